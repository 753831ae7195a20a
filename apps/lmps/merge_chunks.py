"""Leaf program: merge chunk results into year-long tables and a summary.

    python -m apps.lmps.merge_chunks --model model.json --lmp lmp.csv
        --generation generation.csv --flows flows.csv --summary summary.json CHUNK...

Tables have one row per hour (ascending) and one column per bus, generator or
branch; hours that did not solve keep their status and empty cells. The
summary lists those hours, LMP statistics, and how often each branch was at
its limit. One line of it is printed as the program's output.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections import Counter
from typing import Any, Optional, Sequence

from apps.lmps.chunk_file import ChunkResult, read_chunk
from apps.lmps.model_file import GridModel, read_model
from apps.lmps.outputs import open_output

BINDING_TOLERANCE = 1e-6  # relative: a branch within this of its rating is at its limit


def merge(chunks: Sequence[ChunkResult]) -> ChunkResult:
    """All hours of all chunks in ascending order; ValueError on a repeated hour or a gap."""
    rows = sorted(((hour, chunk, i) for chunk in chunks for i, hour in enumerate(chunk.hours)),
                  key=lambda row: row[0])
    hours = [hour for hour, _, _ in rows]
    if len(set(hours)) != len(hours):
        raise ValueError("chunks overlap: some hours appear twice")
    if hours and hours[-1] - hours[0] + 1 != len(hours):
        raise ValueError("chunks leave gaps between their hours")
    merged = ChunkResult()
    for _, chunk, i in rows:
        for name in ChunkResult.__dataclass_fields__:
            getattr(merged, name).append(getattr(chunk, name)[i])
    return merged


def summarize(model: GridModel, merged: ChunkResult) -> dict[str, Any]:
    optimal = [i for i, status in enumerate(merged.status) if status == "optimal"]
    rated = [b for b in range(model.n_branch) if model.branch_rate_mw[b] > 0]
    binding: Counter[str] = Counter()
    congested = 0
    for i in optimal:
        at_limit = [model.branch_names[b] for b in rated
                    if abs(merged.flow[i][b]) >= model.branch_rate_mw[b] * (1.0 - BINDING_TOLERANCE)]
        binding.update(at_limit)
        congested += bool(at_limit)
    prices = [price for i in optimal for price in merged.lmp[i]]
    return {
        "case": model.case,
        "hours": len(merged.hours),
        "first_hour": merged.hours[0] if merged.hours else None,
        "last_hour": merged.hours[-1] if merged.hours else None,
        "status_counts": dict(Counter(merged.status)),
        "infeasible_hours": [h for h, s in zip(merged.hours, merged.status) if s == "infeasible"],
        "unsolved_hours": [{"hour": h, "status": s}
                           for h, s in zip(merged.hours, merged.status) if s != "optimal"],
        "lmp_usd_per_mwh": {
            "min": min(prices, default=None),
            "mean": round(sum(prices) / len(prices), 6) if prices else None,
            "max": max(prices, default=None),
        },
        "congested_hours": congested,
        "binding_branches": dict(binding.most_common()),
        "total_cost_usd": round(sum(merged.cost[i] for i in optimal), 2),
        "solve_seconds": round(sum(merged.solve_seconds), 3),
        "cost_segments": model.cost_segments,
        "derated": model.derated,
    }


def write_table(path: str, names: Sequence[str], merged: ChunkResult, values: list[list[float]],
                leading: bool = False) -> None:
    """One row per hour; `leading` adds the load factor, status and cost columns."""
    with open_output(path, newline="") as out:
        writer = csv.writer(out)
        writer.writerow(["hour", *(["load_factor", "status", "cost"] if leading else []), *names])
        for i, hour in enumerate(merged.hours):
            cost = "" if merged.cost[i] is None else merged.cost[i]
            extra = [merged.load_factor[i], merged.status[i], cost] if leading else []
            writer.writerow([hour, *extra, *(values[i] or [""] * len(names))])


def _check_sizes(model: GridModel, merged: ChunkResult) -> None:
    for name, width in (("lmp", model.n_bus), ("generation", model.n_gen), ("flow", model.n_branch)):
        if any(row and len(row) != width for row in getattr(merged, name)):
            raise ValueError(f"chunk results do not match the model: {name} rows need {width} values")


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="merge_chunks", description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True)
    parser.add_argument("--lmp", required=True, help="CSV to write: hour x bus, $/MWh")
    parser.add_argument("--generation", required=True, help="CSV to write: hour x generator, MW")
    parser.add_argument("--flows", required=True, help="CSV to write: hour x branch, MW")
    parser.add_argument("--summary", required=True, help="JSON to write")
    parser.add_argument("chunks", nargs="+", help="chunk result files")
    args = parser.parse_args(argv)
    try:
        model = read_model(args.model)
        merged = merge([read_chunk(path) for path in args.chunks])
        _check_sizes(model, merged)
        write_table(args.lmp, model.bus_names, merged, merged.lmp, leading=True)
        write_table(args.generation, model.gen_names, merged, merged.generation)
        write_table(args.flows, model.branch_names, merged, merged.flow)
        summary = summarize(model, merged)
        with open_output(args.summary) as out:
            json.dump(summary, out, indent=1)
    except (ValueError, OSError) as e:
        print(f"merge_chunks: {e}", file=sys.stderr)
        return 1
    counts = summary["status_counts"]
    prices = summary["lmp_usd_per_mwh"]
    print(f"lmps: {summary['hours']} hours, {counts.get('optimal', 0)} optimal,"
          f" {len(summary['unsolved_hours'])} not solved ({len(summary['infeasible_hours'])} infeasible);"
          f" LMP {prices['min']}..{prices['max']} $/MWh, mean {prices['mean']};"
          f" {summary['congested_hours']} congested hours; cost ${summary['total_cost_usd']:,.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
