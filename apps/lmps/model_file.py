"""The prepared DC-OPF model: what one hour's LP needs, saved once as JSON.

The model is built from the pandapower case by `network.py` (the only module
that imports pandapower); every solve task reads it back with the standard
library and numpy only. Quantities are in MW, radians and $/MWh: branch
susceptances are already multiplied by the base MVA, so flows come out in MW.
A branch rate of 0 means "no flow limit", as in MATPOWER.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from apps.lmps.outputs import open_output

FORMAT = "swiftcloud-lmps-dcopf"
VERSION = 1


class ModelFileError(ValueError):
    """A model file that is missing, unreadable or of another format."""


@dataclass
class GridModel:
    """A DC network with generators whose costs are piecewise linear.

    Generator `g` produces `gen_pmin[g] + sum(segment MW)`; its segments are
    (width MW, slope $/MWh) pairs with non-decreasing slopes (convex cost), and
    `gen_cost_at_pmin[g]` is its cost ($/h) at minimum output.
    """

    case: str
    base_mva: float
    bus_names: list[str]
    ref_bus: int
    ref_angle_rad: float
    bus_load_mw: np.ndarray          # scaled by the hourly load factor
    bus_fixed_mw: np.ndarray         # not scaled: shunt conductance and phase-shifter injections
    branch_names: list[str]
    branch_from: np.ndarray
    branch_to: np.ndarray
    branch_b_mw: np.ndarray          # MW per radian of angle difference
    branch_shift_mw: np.ndarray      # flow offset of phase-shifting transformers
    branch_rate_mw: np.ndarray       # 0 = unlimited
    gen_names: list[str]
    gen_bus: np.ndarray
    gen_pmin: np.ndarray
    gen_pmax: np.ndarray
    gen_cost_at_pmin: np.ndarray
    gen_segments: list[list[tuple[float, float]]]
    cost_segments: int               # most pieces of any cost curve (1: linear costs)
    derated: dict[str, float] = field(default_factory=dict)

    @property
    def n_bus(self) -> int:
        return len(self.bus_names)

    @property
    def n_branch(self) -> int:
        return len(self.branch_names)

    @property
    def n_gen(self) -> int:
        return len(self.gen_names)


_INT_ARRAYS = ("branch_from", "branch_to", "gen_bus")
_FLOAT_ARRAYS = ("bus_load_mw", "bus_fixed_mw", "branch_b_mw", "branch_shift_mw", "branch_rate_mw",
                 "gen_pmin", "gen_pmax", "gen_cost_at_pmin")
_PLAIN = ("case", "base_mva", "bus_names", "ref_bus", "ref_angle_rad", "branch_names", "gen_names",
          "cost_segments", "derated")


def write_model(model: GridModel, path: str) -> None:
    """Save `model` as JSON (floats written exactly, so a reload is bit-identical)."""
    doc: dict[str, Any] = {"format": FORMAT, "version": VERSION}
    for name in _PLAIN:
        doc[name] = getattr(model, name)
    for name in _INT_ARRAYS + _FLOAT_ARRAYS:
        doc[name] = getattr(model, name).tolist()
    doc["gen_segments"] = [[list(segment) for segment in segments] for segments in model.gen_segments]
    with open_output(path) as out:
        json.dump(doc, out)


def read_model(path: str) -> GridModel:
    """Load a model written by `write_model`; ModelFileError if it is not one."""
    try:
        with open(path, encoding="utf-8") as src:
            doc = json.load(src)
    except (OSError, ValueError) as e:
        raise ModelFileError(f"cannot read model file {path}: {e}") from e
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ModelFileError(f"{path} is not a prepared LMP model ({FORMAT})")
    if doc.get("version") != VERSION:
        raise ModelFileError(f"{path} has model version {doc.get('version')}; this program reads {VERSION}")
    try:
        values: dict[str, Any] = {name: doc[name] for name in _PLAIN}
        values.update({name: np.asarray(doc[name], dtype=np.int64) for name in _INT_ARRAYS})
        values.update({name: np.asarray(doc[name], dtype=np.float64) for name in _FLOAT_ARRAYS})
        values["gen_segments"] = [[(float(w), float(s)) for w, s in segs] for segs in doc["gen_segments"]]
    except (KeyError, TypeError, ValueError) as e:
        raise ModelFileError(f"{path} is an incomplete model file ({e})") from e
    return GridModel(**values)
