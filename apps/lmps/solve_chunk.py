"""Leaf program: solve the DC OPF of a chunk of consecutive hours from the prepared model.

    python -m apps.lmps.solve_chunk --model model.json --profile profile.csv
        --first 0 --count 24 [--time-limit 10] --out chunk.json

Imports numpy, scipy and highspy only (never pandapower), so a task costs little
more than its solves. An hour that is infeasible or hits the time limit is
recorded with its status; it does not fail the task.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Optional, Sequence

from apps.lmps.chunk_file import ChunkResult, write_chunk
from apps.lmps.dcopf import DEFAULT_TIME_LIMIT, DcOpf
from apps.lmps.model_file import read_model
from apps.lmps.profile import read_factors
from apps.lmps.skeleton_chunk import process_elapsed


def solve_hours(opf: DcOpf, first: int, factors: Sequence[float]) -> ChunkResult:
    """Solve hours first, first+1, ... with the given load factors."""
    result = ChunkResult()
    for hour, factor in enumerate(factors, start=first):
        started = time.perf_counter()
        hour_result = opf.solve(factor)
        optimal = hour_result.status == "optimal"
        result.add(hour, factor, hour_result.status, hour_result.cost if optimal else None,
                   hour_result.lmp, hour_result.generation, hour_result.flow, time.perf_counter() - started)
    return result


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="solve_chunk", description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True, help="prepared model file")
    parser.add_argument("--profile", required=True, help="load profile CSV")
    parser.add_argument("--first", type=int, required=True, help="first hour of the chunk (0-based)")
    parser.add_argument("--count", type=int, required=True, help="number of hours")
    parser.add_argument("--time-limit", type=float, default=DEFAULT_TIME_LIMIT, help="seconds per hour")
    parser.add_argument("--out", required=True, help="chunk result file to write (JSON)")
    args = parser.parse_args(argv)
    try:
        if args.first < 0 or args.count < 1:
            raise ValueError("need --first >= 0 and --count >= 1")
        began = time.monotonic()
        model = read_model(args.model)
        factors = read_factors(args.profile, args.first, args.count)
        read_s = time.monotonic() - began
        result = solve_hours(DcOpf(model, args.time_limit), args.first, factors)
        # Computation: everything this process did but read its inputs, start-up and imports
        # included (a skeleton task sleeps it after reading, so its own start-up is inside too).
        compute_s = max(0.0, process_elapsed() - read_s)
        write_chunk(result, args.out, {"read_s": read_s, "compute_s": compute_s})
    except (ValueError, OSError) as e:
        print(f"solve_chunk: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
