"""One hour's DC optimal power flow as a HiGHS linear program; LMPs are balance-row duals.

Columns: bus angles θ (the reference bus fixed), generator outputs Pg, and
cost-segment outputs. Rows, in this order:
- nodal balance, one per bus: Σ Pg(bus) − Σ flows leaving the bus = load;
  its dual is the bus's locational marginal price in $/MWh;
- flow limits, one per rated branch: −rate ≤ b (θf − θt) + shift ≤ rate;
- segment links, one per generator: Pg − Σ segments = Pmin.
The LP is built once per `DcOpf`; each hour only changes the balance row
bounds. Every hour is solved from scratch (no warm start) so a result never
depends on which hours were solved before it in the same task.
"""

from __future__ import annotations

from dataclasses import dataclass

import highspy
import numpy as np

from apps.lmps.model_file import GridModel

DEFAULT_TIME_LIMIT = 10.0  # seconds per hour; an LP of this size solves in milliseconds

_STATUS_NAMES = {
    highspy.HighsModelStatus.kOptimal: "optimal",
    highspy.HighsModelStatus.kInfeasible: "infeasible",
    # all variables that carry cost are bounded, so "unbounded or infeasible" is infeasible
    highspy.HighsModelStatus.kUnboundedOrInfeasible: "infeasible",
    highspy.HighsModelStatus.kTimeLimit: "time_limit",
}


@dataclass
class HourResult:
    """The outcome of one hour. Arrays are empty unless `status` is "optimal"."""

    status: str
    cost: float              # $/h, including cost at minimum output
    lmp: np.ndarray          # $/MWh per bus
    generation: np.ndarray   # MW per generator
    flow: np.ndarray         # MW per branch, positive from "from" to "to" bus


class DcOpf:
    """A reusable DC-OPF LP for one network; `solve(scale)` runs one hour."""

    def __init__(self, model: GridModel, time_limit: float = DEFAULT_TIME_LIMIT) -> None:
        if time_limit <= 0:
            raise ValueError("the solver time limit must be positive")
        self.model = model
        self.time_limit = time_limit
        self._rated = np.flatnonzero(model.branch_rate_mw > 0)
        self._highs = highspy.Highs()
        self._highs.setOptionValue("output_flag", False)
        self._highs.passModel(self._build_lp())

    def solve(self, load_scale: float) -> HourResult:
        """Solve the hour whose loads are the base loads times `load_scale`."""
        m = self.model
        demand = self._demand(load_scale)
        h = self._highs
        h.changeRowsBounds(m.n_bus, np.arange(m.n_bus, dtype=np.int32), demand, demand)
        h.clearSolver()
        # some HiGHS releases compare the limit with the object's cumulative clock: adding
        # that clock keeps the limit per hour with any release
        h.setOptionValue("time_limit", h.getRunTime() + self.time_limit)
        h.run()
        status = _STATUS_NAMES.get(h.getModelStatus(), h.modelStatusToString(h.getModelStatus()).lower())
        if status != "optimal":
            empty = np.empty(0)
            return HourResult(status, float("nan"), empty, empty, empty)
        solution = h.getSolution()
        x = np.asarray(solution.col_value)
        theta = x[:m.n_bus]
        generation = x[m.n_bus:m.n_bus + m.n_gen]
        flow = m.branch_b_mw * (theta[m.branch_from] - theta[m.branch_to]) + m.branch_shift_mw
        lmp = np.asarray(solution.row_dual)[:m.n_bus]
        return HourResult(status, h.getInfo().objective_function_value, lmp, generation, flow)

    def _demand(self, load_scale: float) -> np.ndarray:
        """Right-hand side of the balance rows. Phase shifters act as fixed withdrawals:
        + shift at the from bus, − shift at the to bus."""
        m = self.model
        demand = m.bus_load_mw * load_scale + m.bus_fixed_mw
        np.add.at(demand, m.branch_from, m.branch_shift_mw)
        np.subtract.at(demand, m.branch_to, m.branch_shift_mw)
        return demand

    def _build_lp(self) -> highspy.HighsLp:
        m = self.model
        n_seg = sum(len(s) for s in m.gen_segments)
        n_col = m.n_bus + m.n_gen + n_seg
        gen_col = m.n_bus + np.arange(m.n_gen)
        seg_col = m.n_bus + m.n_gen + np.arange(n_seg)
        seg_gen = np.repeat(np.arange(m.n_gen), [len(s) for s in m.gen_segments])
        widths = np.array([w for s in m.gen_segments for w, _ in s])
        slopes = np.array([c for s in m.gen_segments for _, c in s])

        f, t, b = m.branch_from, m.branch_to, m.branch_b_mw
        rated = self._rated
        n_rated = len(rated)
        link_row = m.n_bus + n_rated + np.arange(m.n_gen)
        # (row, column, value) triplets; the flow on branch l is b (θf − θt)
        rows = np.concatenate([
            f, f, t, t, m.gen_bus,                                   # balance: Pg − flows out
            m.n_bus + np.arange(n_rated), m.n_bus + np.arange(n_rated),  # limits: flow
            link_row, link_row[seg_gen],                             # links: Pg − Σ segments
        ])
        cols = np.concatenate([f, t, f, t, gen_col, f[rated], t[rated], gen_col, seg_col])
        values = np.concatenate([-b, b, b, -b, np.ones(m.n_gen), b[rated], -b[rated],
                                 np.ones(m.n_gen), -np.ones(n_seg)])
        n_row = m.n_bus + n_rated + m.n_gen

        rate = m.branch_rate_mw[rated]
        shift = m.branch_shift_mw[rated]
        angle_lo = np.full(m.n_bus, -highspy.kHighsInf)
        angle_hi = np.full(m.n_bus, highspy.kHighsInf)
        angle_lo[m.ref_bus] = angle_hi[m.ref_bus] = m.ref_angle_rad

        lp = highspy.HighsLp()
        lp.num_col_, lp.num_row_ = n_col, n_row
        lp.col_cost_ = np.concatenate([np.zeros(m.n_bus + m.n_gen), slopes])
        lp.col_lower_ = np.concatenate([angle_lo, m.gen_pmin, np.zeros(n_seg)])
        lp.col_upper_ = np.concatenate([angle_hi, m.gen_pmax, widths])
        base_demand = self._demand(1.0)
        lp.row_lower_ = np.concatenate([base_demand, -rate - shift, m.gen_pmin])
        lp.row_upper_ = np.concatenate([base_demand, rate - shift, m.gen_pmin])
        lp.offset_ = float(m.gen_cost_at_pmin.sum())
        lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
        matrix = lp.a_matrix_
        matrix.start_, matrix.index_, matrix.value_ = _column_wise(rows, cols, values, n_row, n_col)
        return lp


def _column_wise(rows: np.ndarray, cols: np.ndarray, values: np.ndarray, n_row: int, n_col: int
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Compressed-column (start, index, value) of a matrix given as triplets; repeated
    entries (parallel branches, a bus's own angle) are summed, zero sums dropped."""
    keys, where = np.unique(cols * n_row + rows, return_inverse=True)
    summed = np.bincount(where, weights=values)
    keep = summed != 0.0
    keys, summed = keys[keep], summed[keep]
    start = np.searchsorted(keys // n_row, np.arange(n_col + 1))
    return start.astype(np.int32), (keys % n_row).astype(np.int32), summed
