#!/usr/bin/env python3
"""Benchmark: what end-to-end digests cost, against the code before them.

Runs two workflows with this checkout and with `--baseline REV` (a git revision
without digests, checked out into a temporary worktree that is removed at the end),
interleaved (A B B A ...), `--repeat` times each, `swiftcloud run -n 3`:

- file_pipeline: 200 writers of 1 MB -> 200 sha256 -> merge (bench/throughput.py's),
  so 401 outputs to digest;
- blast: apps/blast at the paper's 300 fragments (602 app calls; `--fragments`,
  `--proteins`), its data generated once.

With `--storage NAME` (and `--config FILE`) both run on that store, where staged
inputs are also checked against their producers' digests. Prints one JSON line per
workflow: median wall time and task phase (first task start to last end, from the
run log) of each side, their ratios (this checkout / baseline) and the spread (min-max).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import throughput_ours as ours  # noqa: E402  (puts the checkout on the path)
from hostkit.bytecode import byte_compile  # noqa: E402
from hostkit.program import swiftcloud_command  # noqa: E402

ROOT = ours.ROOT


def _run(code: Path, workdir: Path, args: list[str], storage: list[str]) -> ours.Timing:
    """One `swiftcloud run` of the code in `code`, from `workdir`; timed."""
    run_dir = workdir / f"run-{time.monotonic_ns()}"
    env = {**os.environ, "PYTHONPATH": str(code), "SWIFT_TMP": str(workdir)}
    # The code under test is the one on PYTHONPATH (this checkout or the baseline's worktree).
    command = swiftcloud_command("run", "-n", "3", "--run-dir", str(run_dir), *storage, *args)
    started = time.perf_counter()
    result = subprocess.run(command, cwd=workdir, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True, timeout=3600, stdin=subprocess.DEVNULL)
    wall = time.perf_counter() - started
    if result.returncode != 0:
        sys.exit(f"run failed ({code}): {' '.join(args)}\n{result.stderr[-2000:]}")
    timing = ours.phase_of(run_dir, wall)
    shutil.rmtree(run_dir)
    return timing


def _workloads(options: argparse.Namespace, work: Path) -> dict[str, tuple[list[str], int]]:
    """Workflow name -> (the arguments of `swiftcloud run` after the options, its task count)."""
    (work / "bench.swift").write_text(ours.FILE_PIPELINE)
    with open(work / "template.dat", "wb") as template:
        template.write(os.urandom(1024 * 1024))
    data = work / "blast-data"
    data.mkdir()
    subprocess.run([sys.executable, str(ROOT / "apps/blast/bin/make_data.py"), "--proteins", str(options.proteins),
                    "--queries", "100", "--seed", "1", "--db", str(data / "db.fasta"),
                    "--query-out", str(data / "queries.fasta"), "--truth", str(data / "truth.tsv")], check=True)
    blast = [str(ROOT / "apps/blast/blast.swift"), f"--fragments={options.fragments}", "--out=blast-out",
             f"--db={data / 'db.fasta'}", f"--queries={data / 'queries.fasta'}", f"--bin={ROOT / 'apps/blast/bin'}"]
    workloads = {"file_pipeline": (["bench.swift", "--n=200"], 401), "blast": (blast, 2 * options.fragments + 2)}
    return {name: workloads[name] for name in options.only.split(",")}


def _summary(name: str, tasks: int, ours_times: list[ours.Timing], base: list[ours.Timing],
             options: argparse.Namespace) -> dict[str, Any]:
    def median(times: list[ours.Timing], field: str) -> float:
        return statistics.median(getattr(t, field) for t in times)

    def spread(times: list[ours.Timing], field: str) -> list[float]:
        return [round(min(getattr(t, field) for t in times), 3), round(max(getattr(t, field) for t in times), 3)]

    return {
        "benchmark": f"integrity_{name}", "tasks": tasks, "repeat": options.repeat, "baseline": options.baseline,
        "storage": options.storage or "local paths",
        "digests_wall_s": round(median(ours_times, "wall_s"), 3), "baseline_wall_s": round(median(base, "wall_s"), 3),
        "wall_ratio": round(median(ours_times, "wall_s") / median(base, "wall_s"), 3),
        "digests_phase_s": round(median(ours_times, "phase_s"), 3),
        "baseline_phase_s": round(median(base, "phase_s"), 3),
        "phase_ratio": round(median(ours_times, "phase_s") / median(base, "phase_s"), 3),
        "digests_wall_range_s": spread(ours_times, "wall_s"), "baseline_wall_range_s": spread(base, "wall_s"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", required=True, metavar="REV", help="git revision without digests")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--fragments", type=int, default=300)
    parser.add_argument("--proteins", type=int, default=60000)
    parser.add_argument("--only", default="file_pipeline,blast", help="comma-separated: file_pipeline, blast")
    parser.add_argument("--storage", metavar="NAME", help="run both workflows on this store")
    parser.add_argument("--config", metavar="FILE", help="settings file for --storage")
    options = parser.parse_args()
    storage = ["--storage", options.storage] if options.storage else []
    if options.config:
        storage += ["--config", str(Path(options.config).resolve())]
    with tempfile.TemporaryDirectory(prefix="bench-integrity-") as temp:
        work, baseline = Path(temp) / "work", Path(temp) / "baseline"
        work.mkdir()
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-f", str(baseline), options.baseline],
                       check=True, capture_output=True)
        for code in (ROOT, baseline):  # a worktree has no bytecode, and this host writes none itself
            byte_compile(str(code))
        try:
            for name, (args, tasks) in _workloads(options, work).items():
                timings: dict[Path, list[ours.Timing]] = {ROOT: [], baseline: []}
                for round_number in range(options.repeat):
                    order = (ROOT, baseline) if round_number % 2 == 0 else (baseline, ROOT)
                    for code in order:
                        timings[code].append(_run(code, work, args, storage))
                print(json.dumps(_summary(name, tasks, timings[ROOT], timings[baseline], options)), flush=True)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(baseline)], check=False,
                           capture_output=True)


if __name__ == "__main__":
    main()
