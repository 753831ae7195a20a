#!/usr/bin/env python3
"""Benchmark: a `foreach` over 1,000,000 no-op iterations — time and peak memory.

Lazy loop expansion must keep memory flat; the goal is peak RSS under 1 GB.
The reference in the same run is the bare engine start-up (a script with one
trace), so the figure also shows the cost per iteration. Prints one JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from hostkit.program import swiftcloud_command  # noqa: E402


def run_script(text: str, workdir: str) -> tuple[float, float]:
    """Run a script in a child process; return (wall seconds, child peak RSS in MB)."""
    path = os.path.join(workdir, "bench.swift")
    with open(path, "w") as f:
        f.write(text)
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    subprocess.run(swiftcloud_command("run", "--run-dir", os.path.join(workdir, "run"), path),
                   check=True, cwd=workdir, env={**os.environ, "PYTHONPATH": ROOT}, stdout=subprocess.DEVNULL)
    elapsed = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return elapsed, max(peak, before) / 1024.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=1_000_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as workdir:
        base_time, _ = run_script('trace("ready");\n', workdir)
        loop_time, peak_mb = run_script(
            f'foreach i in [1:{args.iterations}] {{ }}\ntrace("done");\n', workdir)
    print(json.dumps({
        "benchmark": "foreach_noop",
        "iterations": args.iterations,
        "wall_s": round(loop_time, 3),
        "startup_s": round(base_time, 3),
        "us_per_iteration": round((loop_time - base_time) / args.iterations * 1e6, 3),
        "peak_rss_mb": round(peak_mb, 1),
        "goal_peak_rss_mb": 1024,
        "ok": peak_mb < 1024,
    }))


if __name__ == "__main__":
    main()
