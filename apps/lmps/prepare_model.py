"""Leaf program: build the prepared DC-OPF model file from the pandapower case (run once).

    python -m apps.lmps.prepare_model --out model.json [--costs quadratic|linear]
        [--segments 10] [--derate default|none|line:148=0.6,line:166=0.5]
"""

from __future__ import annotations

import argparse
import logging
import sys
import warnings
from typing import Optional, Sequence

from apps.lmps import network
from apps.lmps.model_file import write_model

DEFAULT_SEGMENTS = 10


def parse_derate(text: str) -> dict[str, float]:
    """Parse --derate: "default", "none" (or empty), or comma-separated NAME=FACTOR pairs."""
    text = text.strip()
    if text == "default":
        return dict(network.DEFAULT_DERATE)
    if text in ("", "none"):
        return {}
    factors: dict[str, float] = {}
    for item in text.split(","):
        name, _, factor = item.strip().partition("=")
        try:
            factors[name] = float(factor)
        except ValueError:
            raise ValueError(f"derate: expected NAME=FACTOR, got '{item.strip()}'") from None
    return factors


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="prepare_model", description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="model file to write (JSON)")
    parser.add_argument("--costs", choices=("quadratic", "linear"), default="quadratic",
                        help="the case's quadratic costs, or only their linear terms")
    parser.add_argument("--segments", type=int, default=DEFAULT_SEGMENTS,
                        help="linear pieces per quadratic cost curve")
    parser.add_argument("--derate", default="default", help="branch limits to scale down")
    args = parser.parse_args(argv)
    # pandapower logs and warns about case details we do not use (reactive limits, geodata)
    logging.disable(logging.WARNING)
    warnings.simplefilter("ignore")
    try:
        derate = parse_derate(args.derate)
        net = network.load_case(linear_costs=args.costs == "linear")
        network.derate_branches(net, derate)
        model = network.build_model(net, args.segments, derate)
        write_model(model, args.out)
    except (ValueError, OSError) as e:
        print(f"prepare_model: {e}", file=sys.stderr)
        return 1
    print(f"lmps: model {model.case}: {model.n_bus} buses, {model.n_branch} branches"
          f" ({len(derate)} derated), {model.n_gen} generators,"
          f" {args.costs} costs, at most {model.cost_segments} linear piece(s) per curve")
    return 0


if __name__ == "__main__":
    sys.exit(main())
