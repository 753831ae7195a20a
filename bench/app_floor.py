#!/usr/bin/env python3
"""Benchmark: the least time a Python driver of the app rows' apps takes on this host.

Issue 32 asks the file pipeline to run within 1.05x of its xargs stages and 1,000
`/bin/true` apps at xargs' rate. Our engine is Python: worker ranks start every app
with `subprocess`, publish each output under a temporary name and rename it into
place, and digest it (BLAKE3) for end-to-end integrity. This script measures what
those three costs alone leave of the goal, with nothing else of ours: two processes,
forked before the clock starts (as the pool references are warm), each given half of
the apps beforehand (no scheduling, no messages, no run log), against xargs -P2, and
beside them our own run of the same script (`swiftcloud run -n 3`, its task phase, as
`throughput.py` times it), all alternated round by round:

- spawn: each app started with `subprocess.run`, its output written in place;
- atomic: + each output written under a hidden name beside it and renamed into place,
  with our own `engine.task.atomic.name_beside`;
- stderr: + each app's stderr read through a pipe, as a worker keeps its tail for errors;
- digest: + each output digested as our workers do (`hostkit.digests.file_digest`):
  every guarantee a worker keeps, and nothing of the engine.

Rows: `file_pipeline` (200 `cp` of a 1 MB file, then 200 `sha256sum` to files, then a
merge, in stages as xargs runs them) and `app_true` (1,000 `/bin/true`, which write no
file: spawn and stderr only). Prints one JSON line per row: medians, and each driver's
ratio to xargs as the median of the rounds' paired ratios with a bootstrap 95% interval.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from scipy.stats import bootstrap

sys.path.insert(0, str(Path(__file__).resolve().parent))

import throughput_ours as ours  # noqa: E402  (puts the checkout on the path)
import throughput_refs as refs  # noqa: E402

from engine.task.atomic import name_beside  # noqa: E402
from hostkit.bytecode import byte_compile  # noqa: E402
from hostkit.digests import file_digest  # noqa: E402

VARIANTS = ("spawn", "atomic", "stderr", "digest")  # each adds one cost to every one before it
# (argv, the file its stdout goes to or None, the file it writes itself or None)
App = tuple[list[str], "str | None", "str | None"]


def _adds(variant: str, step: str) -> bool:
    """Does `variant` pay for what `step` adds (as it pays for every variant before it)?"""
    return VARIANTS.index(variant) >= VARIANTS.index(step)


def _run_app(app: App, variant: str) -> None:
    argv, stdout_path, output = app
    target = stdout_path or output
    written = name_beside(target) if target is not None and _adds(variant, "atomic") else target
    if output is not None:
        argv = [written if word == output else word for word in argv]
    stderr = subprocess.PIPE if _adds(variant, "stderr") else None
    if stdout_path is None:
        subprocess.run(argv, check=True, stderr=stderr)
    else:
        with open(written, "wb") as sink:
            subprocess.run(argv, check=True, stdout=sink, stderr=stderr)
    if written is not None and _adds(variant, "digest"):
        file_digest(written)
    if written != target:
        os.replace(written, target)


def _drive(stages: list[list[App]], variant: str, barrier: Any) -> None:
    """One driver: its share of each stage, the other driver met at every stage's end."""
    barrier.wait()
    for stage in stages:
        for app in stage:
            _run_app(app, variant)
        barrier.wait()


def floor(stages: list[list[App]], variant: str, finish: Callable[[], None]) -> float:
    """Two forked drivers, each with every other app of each stage; seconds from the start of
    the first stage to `finish`'s end."""
    context = multiprocessing.get_context("fork")
    barrier = context.Barrier(3)
    drivers = [context.Process(target=_drive, args=([stage[half::2] for stage in stages], variant, barrier))
               for half in range(2)]
    for driver in drivers:
        driver.start()
    barrier.wait()
    started = time.perf_counter()
    for _ in stages:
        barrier.wait()
    finish()
    elapsed = time.perf_counter() - started
    for driver in drivers:
        driver.join()
        if driver.exitcode != 0:
            raise RuntimeError(f"a {variant} driver failed (exit status {driver.exitcode})")
    return elapsed


def pipeline_floor(files: int, workdir: Path, variant: str) -> float:
    data, sums = workdir / "floor-data", workdir / "floor-sums"
    for directory in (data, sums):
        shutil.rmtree(directory, ignore_errors=True)
        directory.mkdir()
    template = str(workdir / "template.dat")
    names = [str(data / f"{i}.dat") for i in range(1, files + 1)]
    writers: list[App] = [(["cp", template, name], None, name) for name in names]
    digests: list[App] = [(["sha256sum", name], str(sums / f"{i}.sum"), None) for i, name in enumerate(names, 1)]

    def merge() -> None:
        with open(workdir / "floor-merged.txt", "wb") as merged:
            subprocess.run(["cat", *(str(sums / f"{i}.sum") for i in range(1, files + 1))], check=True,
                           stdout=merged)

    elapsed = floor([writers, digests], variant, merge)
    shutil.rmtree(data)
    return elapsed


def true_floor(tasks: int, variant: str) -> float:
    return floor([[(["/bin/true", str(i)], None, None) for i in range(1, tasks + 1)]], variant, lambda: None)


def paired(times: list[float], reference: list[float], inverse: bool) -> dict[str, Any]:
    """Median of the rounds' ratios to the reference (time ratio, or rate ratio if `inverse`)
    with a bootstrap 95% interval of that median."""
    ratios = [(ref / t) if inverse else (t / ref) for t, ref in zip(times, reference)]
    summary: dict[str, Any] = {"s": round(statistics.median(times), 3), "ratio": round(statistics.median(ratios), 3)}
    if len(ratios) >= 3:
        interval = bootstrap((ratios,), statistics.median, confidence_level=0.95, n_resamples=2000,
                             method="percentile", random_state=1).confidence_interval
        summary["ratio_ci95"] = [round(interval.low, 3), round(interval.high, 3)]
    return summary


def row(name: str, goal: str, inverse: bool, rounds: int, variants: tuple[str, ...],
        reference: Callable[[], float], floors: Callable[[str], float],
        ours_run: Callable[[], float]) -> dict[str, Any]:
    times: dict[str, list[float]] = {"xargs": [], **{variant: [] for variant in variants}, "ours": []}
    for _ in range(rounds):
        times["xargs"].append(reference())
        for variant in variants:
            times[variant].append(floors(variant))
        times["ours"].append(ours_run())
    record: dict[str, Any] = {"benchmark": f"floor_{name}", "rounds": rounds, "goal": goal,
                              "xargs_s": round(statistics.median(times["xargs"]), 3)}
    for driver in (*variants, "ours"):
        record[driver] = paired(times[driver], times["xargs"], inverse)
    return record


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=8, help="alternated rounds of every driver (default 8)")
    parser.add_argument("--only", choices=("file_pipeline", "app_true"), action="append",
                        help="one row (repeat for both; default both)")
    parser.add_argument("--pipeline-dir", type=Path, default=Path("/dev/shm") if os.path.isdir("/dev/shm") else None,
                        help="where the pipeline's files live (default /dev/shm, as in throughput.py)")
    options = parser.parse_args()
    byte_compile(str(ours.ROOT))
    with (tempfile.TemporaryDirectory(prefix="swiftcloud-bench-") as scratch,
          tempfile.TemporaryDirectory(prefix="swiftcloud-bench-floor-", dir=options.pipeline_dir) as files):
        workdir, pipeline_dir = Path(scratch), Path(files)
        refs.make_template(pipeline_dir)
        rows = {
            "file_pipeline": lambda: row(
                "file_pipeline", "<= 1.05x time", False, options.rounds, VARIANTS,
                lambda: refs.xargs_pipeline(200, pipeline_dir),
                lambda variant: pipeline_floor(200, pipeline_dir, variant),
                lambda: ours.run_script(ours.FILE_PIPELINE, pipeline_dir, 3, "mpi", ("--n=200",)).phase_s),
            "app_true": lambda: row(
                "app_true", ">= 1.0x tasks/s", True, options.rounds, ("spawn", "stderr"),
                lambda: refs.xargs_true(1000),
                lambda variant: true_floor(1000, variant),
                lambda: ours.run_script(ours.APP_TRUE, workdir, 3, "mpi", ("--n=1000",)).phase_s),
        }
        for name in options.only or list(rows):
            print(json.dumps(rows[name]()), flush=True)


if __name__ == "__main__":
    main()
