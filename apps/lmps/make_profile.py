"""Leaf program (the data generator): write the synthetic hourly load profile as CSV.

    python -m apps.lmps.make_profile --out profile.csv --hours 8760 [--low 0.45] [--high 1.12] [--seed 2011]
"""

from __future__ import annotations

import argparse
import sys
from typing import Optional, Sequence

from apps.lmps import profile


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="make_profile", description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="CSV file to write: hour,load_factor")
    parser.add_argument("--hours", type=int, default=profile.HOURS_PER_YEAR)
    parser.add_argument("--low", type=float, default=profile.DEFAULT_LOW,
                        help="lowest load factor of the year")
    parser.add_argument("--high", type=float, default=profile.DEFAULT_HIGH,
                        help="highest load factor of the year")
    parser.add_argument("--seed", type=int, default=profile.DEFAULT_SEED, help="seed of the hourly noise")
    args = parser.parse_args(argv)
    try:
        profile.write_profile(profile.load_factors(args.hours, args.low, args.high, args.seed), args.out)
    except (ValueError, OSError) as e:
        print(f"make_profile: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
