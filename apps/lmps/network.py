"""Turn a pandapower case into a prepared `GridModel` (the one module importing pandapower).

pandapower's own converter (`to_ppc`, the same `_pd2ppc` step its `rundcopp`
runs) gives the MATPOWER-style bus/branch/generator tables, so our LP sees
exactly the network and limits pandapower's DC OPF sees. The DC branch model
is MATPOWER's `makeBdc`: b = 1 / (x * tap), flow = b (θf − θt − shift).
Quadratic costs become `segments` equal-width secant pieces between Pmin and
Pmax; linear costs stay exact (one piece).
"""

from __future__ import annotations

import math
from typing import Any, Mapping

import numpy as np

from apps.lmps.model_file import GridModel

CASE_NAME = "case_illinois200"
# Two meshed lines whose flow grows with load: derated like this, line 148 binds
# from about 0.75 of base load and line 166 from about 0.85, so LMPs differ across
# buses in busy hours while every load level of 0.43..1.14 stays feasible.
# (Derating a radial line such as line 43 would make busy hours infeasible instead.)
DEFAULT_DERATE: dict[str, float] = {"line:148": 0.6, "line:166": 0.5}

# MATPOWER column indices (pandapower.pypower.idx_bus / idx_brch / idx_gen / idx_cost).
_BUS_TYPE, _PD, _GS, _VA = 1, 2, 4, 8
_REF = 3
_F_BUS, _T_BUS, _BR_X, _RATE_A, _TAP, _SHIFT, _BR_STATUS = 0, 1, 3, 5, 8, 9, 10
_GEN_BUS, _PMAX, _PMIN = 0, 8, 9
_MODEL, _NCOST, _COST = 0, 3, 4
_POLYNOMIAL = 2


def load_case(linear_costs: bool = False) -> Any:
    """The Illinois 200-bus case; `linear_costs` drops the quadratic cost terms."""
    import pandapower.networks as networks

    net = networks.case_illinois200()
    if linear_costs:
        net.poly_cost["cp2_eur_per_mw2"] = 0.0
    return net


def derate_branches(net: Any, factors: Mapping[str, float]) -> None:
    """Scale the thermal limit of branches named "line:IDX" or "trafo:IDX" by their factor."""
    for name, factor in factors.items():
        table, index = _split_name(name)
        if index not in net[table].index:
            raise ValueError(f"derate: the case has no {name}")
        if not 0.0 < factor <= 1.0:
            raise ValueError(f"derate: factor for {name} must be in (0, 1], got {factor}")
        net[table].loc[index, "max_loading_percent"] *= factor


def build_model(net: Any, segments: int, derated: Mapping[str, float], case: str = CASE_NAME) -> GridModel:
    """Extract the DC-OPF data of `net` (already derated) into a GridModel."""
    from pandapower.converter.pypower.to_ppc import to_ppc

    if segments < 1:
        raise ValueError("cost segments must be at least 1")
    ppc = to_ppc(net, init="flat", mode="opf", calculate_voltage_angles=True)
    base = float(ppc["baseMVA"])
    bus, branch, gen, cost = (np.real(ppc[k]).astype(np.float64) for k in ("bus", "branch", "gen", "gencost"))
    lookups = net._pd2ppc_lookups
    if branch.shape[0] != len(net.line) + len(net.trafo) or not (branch[:, _BR_STATUS] > 0).all():
        raise ValueError("the prepared model needs every line and transformer in service")

    refs = np.flatnonzero(bus[:, _BUS_TYPE] == _REF)
    if len(refs) != 1:
        raise ValueError(f"expected one reference bus, found {len(refs)}")
    tap = np.where(branch[:, _TAP] == 0.0, 1.0, branch[:, _TAP])
    b_pu = 1.0 / (branch[:, _BR_X] * tap)
    shift_mw = -b_pu * np.deg2rad(branch[:, _SHIFT]) * base

    gen_pmin, gen_pmax = gen[:, _PMIN].copy(), gen[:, _PMAX].copy()
    at_pmin, pieces = zip(*(_piecewise(row, lo, hi, segments)
                            for row, lo, hi in zip(cost, gen_pmin, gen_pmax)))
    return GridModel(
        case=case,
        base_mva=base,
        bus_names=_bus_names(net, lookups["bus"], bus.shape[0]),
        ref_bus=int(refs[0]),
        ref_angle_rad=math.radians(bus[refs[0], _VA]),
        bus_load_mw=bus[:, _PD].copy(),
        bus_fixed_mw=bus[:, _GS].copy(),
        branch_names=_branch_names(net, lookups["branch"], branch.shape[0]),
        branch_from=branch[:, _F_BUS].astype(np.int64),
        branch_to=branch[:, _T_BUS].astype(np.int64),
        branch_b_mw=b_pu * base,
        branch_shift_mw=shift_mw,
        branch_rate_mw=branch[:, _RATE_A].copy(),
        gen_names=_gen_names(net, gen.shape[0]),
        gen_bus=gen[:, _GEN_BUS].astype(np.int64),
        gen_pmin=gen_pmin,
        gen_pmax=gen_pmax,
        gen_cost_at_pmin=np.asarray(at_pmin, dtype=np.float64),
        gen_segments=list(pieces),
        cost_segments=max((len(p) for p in pieces), default=0),
        derated=dict(derated),
    )


def _piecewise(cost_row: np.ndarray, pmin: float, pmax: float, segments: int
               ) -> tuple[float, list[tuple[float, float]]]:
    """(cost at Pmin, [(width, slope)...]) of a polynomial cost of degree ≤ 2 on [Pmin, Pmax]."""
    if int(cost_row[_MODEL]) != _POLYNOMIAL or not 1 <= int(cost_row[_NCOST]) <= 3:
        raise ValueError("only polynomial generator costs of degree 0..2 are supported")
    coefficients = cost_row[_COST:_COST + int(cost_row[_NCOST])]  # highest order first
    c2, c1, c0 = np.concatenate([np.zeros(3 - len(coefficients)), coefficients])

    def cost(p: float) -> float:
        return float(c2 * p * p + c1 * p + c0)

    if pmax <= pmin:
        return cost(pmin), []
    pieces = segments if c2 != 0.0 else 1
    breaks = np.linspace(pmin, pmax, pieces + 1)
    return cost(pmin), [(float(hi - lo), (cost(hi) - cost(lo)) / float(hi - lo))
                        for lo, hi in zip(breaks[:-1], breaks[1:])]


def _bus_names(net: Any, bus_lookup: np.ndarray, n_bus: int) -> list[str]:
    """Name each internal bus by the pandapower bus index it came from."""
    names = [""] * n_bus
    for index in sorted(net.bus.index):
        position = int(bus_lookup[index])
        if 0 <= position < n_bus and not names[position]:
            names[position] = f"bus:{index}"
    if not all(names):
        raise ValueError("could not map every internal bus back to a pandapower bus")
    return names


def _branch_names(net: Any, ranges: Mapping[str, tuple[int, int]], n_branch: int) -> list[str]:
    names = [""] * n_branch
    for table, (start, stop) in ranges.items():
        for position, index in zip(range(start, stop), net[table].index):
            names[position] = f"{table}:{index}"
    return names


def _gen_names(net: Any, n_gen: int) -> list[str]:
    """Internal generator rows follow pandapower's element order: ext_grid, gen, sgen, ..."""
    names = [""] * n_gen
    lookups = net._pd2ppc_lookups
    for element in net._gen_order:
        rows = lookups[element]
        table = element.removesuffix("_controllable")
        for index in net[table].index:
            if index < len(rows) and 0 <= rows[index] < n_gen:
                names[int(rows[index])] = f"{table}:{index}"
    if not all(names):
        raise ValueError("could not map every internal generator back to a pandapower element")
    return names


def _split_name(name: str) -> tuple[str, int]:
    table, _, index = name.partition(":")
    if table not in ("line", "trafo") or not index.isdigit():
        raise ValueError(f"derate: expected line:IDX or trafo:IDX, got '{name}'")
    return table, int(index)
