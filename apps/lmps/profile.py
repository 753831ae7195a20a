"""The synthetic hourly load profile: one load factor (× base load) per hour of the year.

Shape: a daily cycle (trough before dawn, peak in the late afternoon), a
seasonal cycle (summer peak, smaller winter peak), weekends 12% lower, and a
little seeded noise. The year is scaled so its lowest hour is `low` and its
highest is `high` (defaults inside the Illinois case's feasible 0.43–1.14).
A profile of fewer hours is the start of the full year's, so a small run sees
exactly the factors a paper-size run sees for the same hours.
"""

from __future__ import annotations

import csv
import math
import random

from apps.lmps.outputs import open_output

HOURS_PER_YEAR = 8760
DEFAULT_LOW = 0.45
DEFAULT_HIGH = 1.12
DEFAULT_SEED = 2011
WEEKEND_FACTOR = 0.88
NOISE = 0.02          # standard deviation of the multiplicative hourly noise
FIRST_WEEKDAY = 5     # hour 0 is a Saturday (0 = Monday), as on 1 January 2011


class ProfileError(ValueError):
    """A profile file that cannot be read, or a request outside it."""


def _raw_shape(hour: int, rng: random.Random) -> float:
    day, hour_of_day = divmod(hour, 24)
    daily = 0.5 * (1.0 - math.cos(2.0 * math.pi * (hour_of_day - 4) / 24.0))
    season = 2.0 * math.pi * (day - 196) / 365.0  # day 196 = mid July, the summer peak
    seasonal = 0.5 + 0.3 * math.cos(season) + 0.2 * math.cos(2.0 * season)
    weekend = WEEKEND_FACTOR if (day + FIRST_WEEKDAY) % 7 >= 5 else 1.0
    return (0.55 + 0.25 * daily + 0.2 * seasonal) * weekend * (1.0 + rng.gauss(0.0, NOISE))


def load_factors(hours: int, low: float = DEFAULT_LOW, high: float = DEFAULT_HIGH,
                 seed: int = DEFAULT_SEED) -> list[float]:
    """The first `hours` factors of the profile (at least a full year is shaped and scaled)."""
    if hours < 1:
        raise ValueError("the profile needs at least one hour")
    if not 0.0 < low < high:
        raise ValueError(f"need 0 < low < high, got low={low} high={high}")
    rng = random.Random(seed)
    raw = [_raw_shape(h, rng) for h in range(max(hours, HOURS_PER_YEAR))]
    lo, hi = min(raw), max(raw)
    return [low + (high - low) * (r - lo) / (hi - lo) for r in raw[:hours]]


def write_profile(factors: list[float], path: str) -> None:
    with open_output(path, newline="") as out:
        writer = csv.writer(out)
        writer.writerow(["hour", "load_factor"])
        writer.writerows((hour, repr(factor)) for hour, factor in enumerate(factors))


def read_factors(path: str, first: int, count: int) -> list[float]:
    """Factors of hours first .. first+count-1 from a profile file."""
    try:
        with open(path, encoding="utf-8", newline="") as src:
            rows = list(csv.reader(src))[1:]
        factors = {int(hour): float(factor) for hour, factor in rows}
    except (OSError, ValueError) as e:
        raise ProfileError(f"cannot read load profile {path}: {e}") from e
    missing = [h for h in range(first, first + count) if h not in factors]
    if missing:
        raise ProfileError(f"load profile {path} has no hour {missing[0]}")
    return [factors[h] for h in range(first, first + count)]
