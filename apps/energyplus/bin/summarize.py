#!/usr/bin/env python3
"""Summarize one EnergyPlus run from its SQLite output as a small JSON document.

Reads the Annual Building Utility Performance Summary tables that EnergyPlus
stores in `eplusout.sql` (TabularDataWithStrings): total site energy, site
energy per m² of building area, and the heating and cooling end uses summed
over every fuel column (ideal loads report them as district heating/cooling).
Also records the zone's floor area and volume, the simulated environments, and
the warning/severe message counts. Standard library only.

    summarize.py --orientation 30 --height 12 eplusout.sql summary.json
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import sys

ABUPS = "AnnualBuildingUtilityPerformanceSummary"
ENTIRE_FACILITY = "Entire Facility"
# Errors.ErrorType in EnergyPlus's SQLite schema.
WARNING, SEVERE = 0, 1


class SummaryError(Exception):
    """The SQLite file lacks what a summary needs; the message says what."""


def tabular_value(db: sqlite3.Connection, table: str, row: str, column: str) -> float:
    """One number of the ABUPS report."""
    found = db.execute(
        "SELECT Value FROM TabularDataWithStrings WHERE ReportName = ? AND ReportForString = ?"
        " AND TableName = ? AND RowName = ? AND ColumnName = ?",
        (ABUPS, ENTIRE_FACILITY, table, row, column),
    ).fetchall()
    if len(found) != 1:
        raise SummaryError(f"expected one '{table}' / '{row}' / '{column}' value, found {len(found)}")
    return float(found[0][0])


def end_uses_gj(db: sqlite3.Connection) -> dict[str, float]:
    """Energy per end use (Heating, Cooling, Interior Lighting, ...) in GJ, summed over fuels."""
    totals: dict[str, float] = {}
    rows = db.execute(
        "SELECT RowName, Value FROM TabularDataWithStrings WHERE ReportName = ? AND ReportForString = ?"
        " AND TableName = 'End Uses' AND Units = 'GJ' AND RowName NOT IN ('', 'Total End Uses')",
        (ABUPS, ENTIRE_FACILITY),
    )
    for end_use, value in rows:
        totals[end_use] = totals.get(end_use, 0.0) + float(value)
    # The report has two decimals; rounding drops the float noise of the sum.
    totals = {end_use: round(total, 6) for end_use, total in totals.items()}
    if "Heating" not in totals or "Cooling" not in totals:
        raise SummaryError("the End Uses table has no Heating or Cooling row")
    return totals


def summarize(sql_path: str, orientation: float, height: float) -> dict[str, object]:
    """The summary of one run, as a JSON-ready dict."""
    if not os.path.isfile(sql_path):
        raise SummaryError(f"no such file: {sql_path}")
    db = sqlite3.connect(f"file:{sql_path}?mode=ro", uri=True)
    try:
        uses = end_uses_gj(db)
        zones = db.execute("SELECT SUM(FloorArea * Multiplier), SUM(Volume * Multiplier) FROM Zones").fetchone()
        environments = [name for (name,) in db.execute(
            "SELECT EnvironmentName FROM EnvironmentPeriods ORDER BY EnvironmentPeriodIndex")]
        messages = dict(db.execute("SELECT ErrorType, COUNT(*) FROM Errors GROUP BY ErrorType").fetchall())
        version = db.execute("SELECT EnergyPlusVersion FROM Simulations").fetchone()
        return {
            "orientation_deg": orientation,
            "height_m": height,
            "total_site_energy_gj": tabular_value(db, "Site and Source Energy", "Total Site Energy", "Total Energy"),
            "site_energy_per_m2_mj": tabular_value(
                db, "Site and Source Energy", "Total Site Energy", "Energy Per Total Building Area"),
            "heating_gj": uses["Heating"],
            "cooling_gj": uses["Cooling"],
            "end_uses_gj": uses,
            "building_area_m2": tabular_value(db, "Building Area", "Total Building Area", "Area"),
            "zone_floor_area_m2": zones[0],
            "zone_volume_m3": zones[1],
            "environments": environments,
            "warnings": messages.get(WARNING, 0),
            "severe_errors": messages.get(SEVERE, 0),
            "energyplus_version": _version_number(version[0]) if version else "",
        }
    except sqlite3.DatabaseError as e:
        raise SummaryError(f"{sql_path} is not a complete EnergyPlus SQLite output ({e})") from None
    finally:
        db.close()


def _version_number(text: str) -> str:
    """'EnergyPlus, Version 25.2.0-cf7368216c, YMD=...' -> '25.2.0-cf7368216c'."""
    for part in text.split(","):
        if part.strip().startswith("Version "):
            return part.strip()[len("Version "):]
    return text


def write_json(summary: dict[str, object], out_path: str) -> None:
    """Write `summary` to `out_path` (parent directories made; temporary name, then rename)."""
    os.makedirs(os.path.dirname(os.path.abspath(out_path)), exist_ok=True)
    partial = f"{out_path}.part"
    with open(partial, "w", encoding="utf-8") as f:
        json.dump(summary, f, indent=2, sort_keys=True)
        f.write("\n")
    os.replace(partial, out_path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Summarize an EnergyPlus SQLite output as JSON.")
    parser.add_argument("--orientation", type=float, required=True, help="the run's North Axis, degrees")
    parser.add_argument("--height", type=float, required=True, help="the run's building height, metres")
    parser.add_argument("sql", help="eplusout.sql of the run")
    parser.add_argument("out", help="the JSON summary to write")
    args = parser.parse_args(argv)
    try:
        write_json(summarize(args.sql, args.orientation, args.height), args.out)
    except SummaryError as e:
        print(f"summarize: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"summarize: {e.strerror or e}: {e.filename or ''}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
