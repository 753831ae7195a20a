#!/usr/bin/env python3
"""Benchmark: what the restart log costs, and what `--resume` saves, on the BLAST workflow.

Runs `apps/blast/blast.swift` at the paper's size by default (300 fragments:
602 app calls) with `swiftcloud run -n 3`, alternating runs with the restart
log (the default) and with `--no-restart-log`, `--repeat` times each, and
prints one JSON line: the median wall times and their ratio (the overhead),
then the time of a `--resume` of a finished run (every task reused) against a
full run. The data are generated once into `--out`.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SWIFTCLOUD = str(ROOT / ".venv" / "bin" / "swiftcloud")


def _timed(args: list[str], run_dir: Path) -> float:
    """Wall time of one `swiftcloud run` from the checkout (the workflow's paths are relative to it)."""
    started = time.perf_counter()
    done = subprocess.run([SWIFTCLOUD, "run", "-n", "3", "--run-dir", str(run_dir), *args], cwd=ROOT,
                          capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"run failed: {' '.join(args)}\n{done.stderr[-2000:]}")
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fragments", type=int, default=300)
    parser.add_argument("--proteins", type=int, default=60000)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--out", default="out/bench-resume")
    args = parser.parse_args()
    work = Path(args.out).resolve()
    data = work / "data"
    if not (data / "db.fasta").exists():
        data.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, str(ROOT / "apps/blast/bin/make_data.py"), "--proteins", str(args.proteins),
                        "--queries", "100", "--seed", "1", "--db", str(data / "db.fasta"),
                        "--query-out", str(data / "queries.fasta"), "--truth", str(data / "truth.tsv")], check=True)
    blast = [str(ROOT / "apps/blast/blast.swift"), f"--fragments={args.fragments}", f"--out={work / 'run'}",
             f"--db={data / 'db.fasta'}", f"--queries={data / 'queries.fasta'}"]
    with_log, without_log = [], []
    runs = work / "runs"
    shutil.rmtree(runs, ignore_errors=True)
    for i in range(args.repeat):
        for times, extra in ((without_log, ["--no-restart-log"]), (with_log, [])):
            shutil.rmtree(work / "run", ignore_errors=True)
            times.append(_timed(extra + blast, runs / f"{len(with_log) + len(without_log):03d}"))
    last = runs / f"{2 * args.repeat - 1:03d}"  # a run with the log: every task of it is reused
    resumed = _timed(["--resume-from", str(last)] + blast, runs / "resumed")
    record = {
        "benchmark": "resume_overhead", "workflow": "blast", "fragments": args.fragments,
        "app_calls": 2 * args.fragments + 2, "repeat": args.repeat,
        "with_restart_log_s": round(statistics.median(with_log), 2),
        "without_restart_log_s": round(statistics.median(without_log), 2),
        "overhead_ratio": round(statistics.median(with_log) / statistics.median(without_log), 3),
        "resume_all_reused_s": round(resumed, 2),
        "resume_vs_full_ratio": round(resumed / statistics.median(with_log), 3),
    }
    print(json.dumps(record))


if __name__ == "__main__":
    main()
