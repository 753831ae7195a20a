#!/usr/bin/env python3
"""Render the single-zone office template into an EnergyPlus input file (IDF).

The template (`apps/energyplus/building.idf.in`) holds `$`-placeholders for the
Building's North Axis, every vertex z coordinate (roof, window sill, window
head) and the run periods; this module fills them for one orientation and one
height. Standard library only, so it runs under any `python3`.

    make_idf.py --template building.idf.in --orientation 30 --height 12 [--period short] out.idf
"""

from __future__ import annotations

import argparse
import os
import string
import sys

# Window band as fractions of the wall height: the window-to-wall ratio stays the
# same at every height, so height changes envelope size, not its make-up.
SILL_FRACTION = 0.3
HEAD_FRACTION = 0.7
MIN_HEIGHT_M = 2.5  # below this the window band is shorter than a door: not an office

RUN_PERIODS = {
    # The paper's experiment: one calendar year of Chicago O'Hare TMY3 weather.
    "annual": [("Annual", 1, 1, 12, 31)],
    # For tests and quick looks: one winter and one summer week, so heating and
    # cooling both appear at a fraction of the annual run's cost.
    "short": [("Winter Week", 1, 14, 1, 20), ("Summer Week", 7, 14, 7, 20)],
}


def run_period_objects(period: str) -> str:
    """The RunPeriod objects of a named period ('annual' or 'short')."""
    try:
        periods = RUN_PERIODS[period]
    except KeyError:
        raise ValueError(f"unknown period '{period}' (choose from: {', '.join(RUN_PERIODS)})") from None
    objects = []
    for name, begin_month, begin_day, end_month, end_day in periods:
        objects.append(
            f"RunPeriod, {name}, {begin_month}, {begin_day}, , {end_month}, {end_day}, , , "
            "Yes, Yes, No, Yes, Yes;"
        )
    return "\n".join(objects)


def render_idf(template: str, orientation: float, height: float, period: str) -> str:
    """The IDF text for a building rotated by `orientation` degrees and `height` metres tall."""
    if not height >= MIN_HEIGHT_M:
        raise ValueError(f"height must be at least {MIN_HEIGHT_M} m, got {height}")
    values = {
        "north_axis": _number(orientation),
        "height": _number(height),
        "z_roof": _number(height),
        "z_sill": _number(SILL_FRACTION * height),
        "z_head": _number(HEAD_FRACTION * height),
        "run_periods": run_period_objects(period),
    }
    try:
        return string.Template(template).substitute(values)
    except (KeyError, ValueError) as e:
        raise ValueError(f"the template has a placeholder this generator does not know: {e}") from None


def _number(value: float) -> str:
    """Fixed-point text with no float noise (0.3 * 10 gives 3.0, not 3.0000000000000004)."""
    return f"{value:.6f}".rstrip("0").rstrip(".")


def write_idf(template_path: str, orientation: float, height: float, period: str, out_path: str) -> None:
    """Render the template at `template_path` into `out_path` (parent directories made)."""
    with open(template_path, encoding="utf-8") as f:
        text = render_idf(f.read(), orientation, height, period)
    os.makedirs(os.path.dirname(os.path.abspath(out_path)), exist_ok=True)
    with open(out_path, "w", encoding="utf-8") as f:
        f.write(text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Render the office template into an EnergyPlus IDF.")
    parser.add_argument("--template", required=True, help="the .idf.in template")
    parser.add_argument("--orientation", type=float, required=True, help="Building North Axis, degrees")
    parser.add_argument("--height", type=float, required=True, help="building height, metres")
    parser.add_argument("--period", default="annual", choices=sorted(RUN_PERIODS), help="run period")
    parser.add_argument("out", help="the IDF to write")
    args = parser.parse_args(argv)
    try:
        write_idf(args.template, args.orientation, args.height, args.period, args.out)
    except (OSError, ValueError) as e:
        print(f"make_idf: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
