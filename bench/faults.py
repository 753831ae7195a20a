#!/usr/bin/env python3
"""Benchmark: the storage fault matrix (cluster/fault_matrix.py) on an emulated cluster of its own.

Brings up a 4-node cluster with MosaStore, HDFS, Chirp and S3 (needs root), runs every cell
(`--cell` picks some by number, as listed by `--list`) `--repeat` times, prints the table
(outcome, when the fault came, time in all, and the time to recover: what the fault added to a
clean run on the same store, measured first) and one JSON line per run,
writes them to `--out` (faults.json), and takes the cluster down.

    .venv/bin/python bench/faults.py                 # every cell once, about 6 minutes
    .venv/bin/python bench/faults.py --cell 5 --cell 6 --repeat 3
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time

from cluster import lifecycle
from cluster.state import ClusterState
from hostkit.interrupt import terminate_as_interrupt
from mosastore.plugin import register as register_mosastore
from cluster.fault_matrix import CELLS, LONG_CELLS, NODES, STORAGE, Cell, Matrix, Outcome


def table(outcomes: list[list[Outcome]]) -> str:
    """The matrix as Markdown: one row per cell, times as the median [min-max] of its runs."""
    def spread(values: list[float | None]) -> str:
        known = [value for value in values if value is not None]
        if not known:
            return "-"
        middle = statistics.median(known)
        return f"{middle:.1f}" if len(known) == 1 else f"{middle:.1f} [{min(known):.1f}-{max(known):.1f}]"

    rows = ["| # | store | daemon killed | started again | expected | outcome | fault at (s) | in all (s) | "
            "clean run (s) | time to recover (s) |", "|---|---|---|---|---|---|---|---|---|---|"]
    for number, runs in enumerate(outcomes, 1):
        cell = runs[0].cell
        seen = sorted({run.outcome if run.holds else f"FAILED ({run.outcome})" for run in runs})
        back = "after the stop" if cell.restart_after_s is None else \
            "at once" if cell.restart_after_s == 0 else f"{cell.restart_after_s:g} s later"
        rows.append(f"| {number} | {cell.store} | {cell.role} on {cell.node} | {back} | {cell.expect} | "
                    f"{', '.join(seen)} | "
                    f"{spread([run.fault_s for run in runs])} | {spread([run.total_s for run in runs])} | "
                    f"{spread([run.clean_s for run in runs])} | {spread([run.recovery_s for run in runs])} |")
    return "\n".join(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cell", type=int, action="append", help="a cell's number (default: every cell)")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each cell, interleaved (default 1)")
    parser.add_argument("--out", default="faults.json", help="where to write the runs (default faults.json)")
    parser.add_argument("--list", action="store_true", help="list the cells and exit")
    args = parser.parse_args()
    cells = (*CELLS, *LONG_CELLS)
    if args.list:
        for number, cell in enumerate(cells, 1):
            back = "not while it runs" if cell.restart_after_s is None else f"{cell.restart_after_s:g} s later"
            print(f"{number:2d}  {cell.name} ({cell.table}), started again {back}: expected {cell.expect}")
        return 0
    chosen = [cells[number - 1] for number in args.cell] if args.cell else list(cells)
    register_mosastore()
    state = tempfile.mkdtemp(prefix="swiftcloud-faults-")
    outcomes: list[list[Outcome]] = [[] for _ in chosen]
    with terminate_as_interrupt():
        cluster = lifecycle.up(state, NODES, storage=STORAGE, report=say)
        try:
            run_all(cluster, state, chosen, args.repeat, outcomes)
        finally:
            lifecycle.down(state, say)
    shutil.rmtree(state, ignore_errors=True)
    with open(args.out, "w", encoding="utf-8") as handle:
        json.dump([[run.as_dict() for run in runs] for runs in outcomes], handle, indent=1)
    print(table(outcomes))
    return 0 if all(run.holds for runs in outcomes for run in runs) else 1


def say(line: str) -> None:
    print(f"cluster: {line}", file=sys.stderr, flush=True)


def run_all(cluster: ClusterState, state: str, chosen: list[Cell], repeats: int,
            outcomes: list[list[Outcome]]) -> None:
    """Every chosen cell, `repeats` times, interleaved; each outcome printed as it comes."""
    matrix = Matrix(cluster, state, os.path.join(state, "work"))
    for table in dict.fromkeys(cell.table for cell in chosen):
        print(f"clean run on {table}: {matrix.clean(table):.1f} s", file=sys.stderr, flush=True)
    for repeat in range(repeats):
        for index, cell in enumerate(chosen):
            begin = time.monotonic()
            outcome = matrix.run(cell)
            outcomes[index].append(outcome)
            verdict = "holds" if outcome.holds else \
                f"FAILS: {'; '.join(outcome.problems) or f'{cell.expect} was expected'}"
            print(f"[{repeat + 1}/{repeats}] {cell.name}: {outcome.outcome} in {time.monotonic() - begin:.1f} s, "
                  f"{verdict}", file=sys.stderr, flush=True)
            print(json.dumps({"repeat": repeat + 1, **outcome.as_dict()}), flush=True)


if __name__ == "__main__":
    sys.exit(main())
