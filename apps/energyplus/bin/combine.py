#!/usr/bin/env python3
"""Combine the per-run JSON summaries of the sweep into one CSV table.

One row per simulation, sorted by orientation then height, with the figures a
reader compares across the sweep. Standard library only.

    combine.py table.csv summary1.json summary2.json ...
"""

from __future__ import annotations

import csv
import json
import os
import sys

COLUMNS = (
    "orientation_deg",
    "height_m",
    "total_site_energy_gj",
    "site_energy_per_m2_mj",
    "heating_gj",
    "cooling_gj",
    "building_area_m2",
    "zone_volume_m3",
    "warnings",
    "severe_errors",
)


class CombineError(Exception):
    """A summary is missing or malformed; the message names it."""


def load_summary(path: str) -> dict[str, object]:
    """One JSON summary, checked to have every column of the table."""
    try:
        with open(path, encoding="utf-8") as f:
            summary = json.load(f)
    except (OSError, ValueError) as e:
        raise CombineError(f"cannot read summary {path}: {e}") from None
    missing = [column for column in COLUMNS if column not in summary]
    if missing:
        raise CombineError(f"summary {path} lacks {', '.join(missing)}")
    return summary


def write_table(summaries: list[dict[str, object]], out_path: str) -> None:
    """Write the rows, sorted by (orientation, height), as CSV with a header line."""
    rows = sorted(summaries, key=lambda s: (float(s["orientation_deg"]), float(s["height_m"])))
    os.makedirs(os.path.dirname(os.path.abspath(out_path)), exist_ok=True)
    partial = f"{out_path}.part"
    with open(partial, "w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(COLUMNS)
        for row in rows:
            writer.writerow([_cell(row[column]) for column in COLUMNS])
    os.replace(partial, out_path)


def _cell(value: object) -> str:
    # Four decimals: more than the report's two, and no float noise such as 799.9999999999998.
    return str(round(value, 4)) if isinstance(value, float) else str(value)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) < 2:
        print("usage: combine.py table.csv summary.json...", file=sys.stderr)
        return 2
    out_path, paths = args[0], args[1:]
    try:
        write_table([load_summary(path) for path in paths], out_path)
    except CombineError as e:
        print(f"combine: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"combine: {e.strerror or e}: {e.filename or ''}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
