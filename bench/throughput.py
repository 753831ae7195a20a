#!/usr/bin/env python3
"""Benchmark: task throughput of `swiftcloud run -n 3` against in-run references.

One JSON line per benchmark (issue 3's table), each the median of
`--repeat` runs, ours and the reference interleaved so that both see the
same machine load:

- python_noop (python_noop_steady): 5000 (200,000) `python()` no-ops against
  ProcessPoolExecutor(2), one submit per task; goal >= 1.0x tasks/s.
- app_true: 1000 `/bin/true` apps against `xargs -P2 -n1 /bin/true`; >= 0.8x.
- fan_out_in (fan_out_in_wide): 1000 (20,000) no-ops, each releasing one
  dependent, then one reduce, against a process pool with dependency
  release; >= 0.5x.
- file_pipeline: 200 writers of 1 MB files -> 200 sha256 readers -> 1 merge,
  against the same stages with `xargs -P2`; <= 1.15x the time.
- hello: compile + run hello world; <= 0.5 s local, <= 1.0 s under MPI.

Ratios compare our task phase (first task start to last task end, from the
run's event log: warm workers, as the warmed-up pool's) with the reference's
run. Beside it: the ratio from our first submission (`ratio_from_submit`,
worker warm-up included) and from our whole wall time (`ratio_end_to_end`,
interpreter, compile and MPI start-up included). `--with-peers` adds Parsl
and Dask columns to python_noop, installing them into the venv first.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))

import throughput_ours as ours  # noqa: E402
import throughput_peers as peers  # noqa: E402
import throughput_refs as refs  # noqa: E402


def compare(name: str, script: str, tasks: int, expected_tasks: int, reference: Callable[[], float],
            reference_name: str, goal: float, options: argparse.Namespace, workdir: Path,
            lower_is_better: bool = False) -> dict[str, Any]:
    """Run ours and the reference `options.repeat` times each, interleaved; medians."""
    timings, references = [], []
    for _ in range(options.repeat):
        timing = ours.run_script(script, workdir, options.processes, options.transport,
                                 (f"--n={tasks}",))
        if timing.tasks != expected_tasks:
            raise RuntimeError(f"{name}: expected {expected_tasks} tasks, "
                               f"the log has {timing.tasks}")
        timings.append(timing)
        references.append(reference())
    phase = statistics.median(t.phase_s for t in timings)
    from_submit = statistics.median(t.from_submit_s for t in timings)
    wall = statistics.median(t.wall_s for t in timings)
    theirs = statistics.median(references)
    record: dict[str, Any] = {
        "benchmark": name, "tasks": expected_tasks, "transport": options.transport,
        "processes": options.processes, "repeat": options.repeat, "reference": reference_name,
        "ours_phase_s": round(phase, 3), "ours_from_submit_s": round(from_submit, 3),
        "ours_wall_s": round(wall, 3), "reference_s": round(theirs, 3),
    }
    if lower_is_better:
        record.update(ratio=round(phase / theirs, 3),
                      ratio_from_submit=round(from_submit / theirs, 3),
                      ratio_end_to_end=round(wall / theirs, 3),
                      goal=f"<= {goal}x time", met=phase / theirs <= goal)
    else:
        record.update(ours_tasks_per_s=round(expected_tasks / phase),
                      reference_tasks_per_s=round(expected_tasks / theirs),
                      ratio=round(theirs / phase, 3),
                      ratio_from_submit=round(theirs / from_submit, 3),
                      ratio_end_to_end=round(theirs / wall, 3),
                      goal=f">= {goal}x tasks/s", met=theirs / phase >= goal)
    return record


def hello(options: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    times: dict[str, list[float]] = {"local": [], "mpi": []}
    for _ in range(max(options.repeat, 5)):
        for transport in times:
            times[transport].append(
                ours.run_script(ours.HELLO, workdir, options.processes, transport).wall_s)
    local, mpi = (statistics.median(times[t]) for t in ("local", "mpi"))
    return {"benchmark": "hello", "processes": options.processes, "repeat": len(times["mpi"]),
            "local_s": round(local, 3), "mpi_s": round(mpi, 3),
            "goal": "<= 0.5 s local, <= 1.0 s mpi", "met": local <= 0.5 and mpi <= 1.0}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", "--processes", type=int, default=3)
    parser.add_argument("--transport", choices=("mpi", "local"), default="mpi")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", action="append", default=[], metavar="NAME",
                        help="run only these benchmarks (python_noop, python_noop_steady, "
                             "app_true, fan_out_in, fan_out_in_wide, file_pipeline, hello)")
    parser.add_argument("--with-peers", action="store_true",
                        help="add Parsl and Dask columns to python_noop (pip-installs them)")
    parser.add_argument("--steady-tasks", type=int, default=200_000)
    options = parser.parse_args()
    workers = options.processes - 1
    with tempfile.TemporaryDirectory(prefix="swiftcloud-bench-") as scratch:
        workdir = Path(scratch)
        refs.make_template(workdir)
        benchmarks: dict[str, Callable[[], dict[str, Any]]] = {
            "python_noop": lambda: compare(
                "python_noop", ours.PYTHON_NOOP, 5000, 5000, lambda: refs.pool_noop(5000, workers),
                f"ProcessPoolExecutor({workers})", 1.0, options, workdir),
            "python_noop_steady": lambda: compare(
                "python_noop_steady", ours.PYTHON_NOOP, options.steady_tasks, options.steady_tasks,
                lambda: refs.pool_noop(options.steady_tasks, workers),
                f"ProcessPoolExecutor({workers})", 1.0, options, workdir),
            "app_true": lambda: compare(
                "app_true", ours.APP_TRUE, 1000, 1000, lambda: refs.xargs_true(1000),
                "xargs -P2 -n1 /bin/true", 0.8, options, workdir),
            "fan_out_in": lambda: compare(
                "fan_out_in", ours.FAN_OUT_IN, 1000, 2001, lambda: refs.pool_fan(1000, workers),
                "process pool with dependency release", 0.5, options, workdir),
            "fan_out_in_wide": lambda: compare(
                "fan_out_in_wide", ours.FAN_OUT_IN, 20_000, 40_001,
                lambda: refs.pool_fan(20_000, workers),
                "process pool with dependency release", 0.5, options, workdir),
            "file_pipeline": lambda: compare(
                "file_pipeline", ours.FILE_PIPELINE, 200, 401,
                lambda: refs.xargs_pipeline(200, workdir), "the same stages with xargs -P2",
                1.15, options, workdir, lower_is_better=True),
            "hello": lambda: hello(options, workdir),
        }
        for name in options.only or list(benchmarks):
            record = benchmarks[name]()
            if name == "python_noop" and options.with_peers:
                for peer in ("parsl", "dask"):
                    rate, why = peers.measure(peer, 5000)
                    record[f"{peer}_tasks_per_s"] = round(rate) if rate else None
                    if rate:
                        record[f"{peer}_ratio"] = round(rate / record["reference_tasks_per_s"], 3)
                    else:
                        record[f"{peer}_skipped"] = why
            print(json.dumps(record), flush=True)


if __name__ == "__main__":
    main()
