"""The `stats` module: sums, mean and population standard deviation of arrays.

Values are taken in ascending key order, so float results do not depend on
the order in which the array was filled.
"""

from __future__ import annotations

import math
from typing import Any

from engine.errors import SwiftRuntimeError
from engine.runtime.builtins.context import BuiltinContext
from engine.runtime.builtins.core import int_wrap, ordered_values
from engine.runtime.builtins.spec import Table

STATS = Table("stats")
TABLES = (STATS,)


@STATS.define("sum_integer", "(int[K]) -> int")
def sum_integer(ctx: BuiltinContext, array: dict[Any, int]) -> int:
    return int_wrap(sum(array.values()))


@STATS.define("sum_float", "(float[K]) -> float")
def sum_float(ctx: BuiltinContext, array: dict[Any, float]) -> float:
    total = 0.0
    for value in ordered_values(array):
        total += value
    return total


@STATS.define("sum", "(int[K]) -> int", "(float[K]) -> float")
def sum_any(ctx: BuiltinContext, array: dict[Any, Any]) -> int | float:
    values = list(array.values())
    if values and isinstance(values[0], float):
        return sum_float(ctx, array)
    return sum_integer(ctx, array)


def _values_of_nonempty(name: str, array: dict[Any, Any]) -> list[float]:
    if not array:
        raise SwiftRuntimeError(f"{name}(): the array is empty")
    return [float(v) for v in ordered_values(array)]


@STATS.define("avg", "(int[K]) -> float", "(float[K]) -> float")
def avg(ctx: BuiltinContext, array: dict[Any, Any]) -> float:
    values = _values_of_nonempty("avg", array)
    return sum(values) / len(values)


@STATS.define("std", "(int[K]) -> float", "(float[K]) -> float")
def std(ctx: BuiltinContext, array: dict[Any, Any]) -> float:
    """Population standard deviation: sqrt(mean((x - mean)^2))."""
    values = _values_of_nonempty("std", array)
    mean = sum(values) / len(values)
    return math.sqrt(sum((v - mean) ** 2 for v in values) / len(values))


def _aggregate(values: list[float]) -> tuple[int, float, float]:
    """Count, mean and M2 (the sum of squared deviations from the mean), by Welford's method."""
    n, mean, m2 = 0, 0.0, 0.0
    for value in values:
        n += 1
        delta = value - mean
        mean += delta / n
        m2 += delta * (value - mean)
    return n, mean, m2


@STATS.define("stats", "(int[K]) -> float, float", "(float[K]) -> float, float")
def stats(ctx: BuiltinContext, array: dict[Any, Any]) -> tuple[float, float]:
    """Mean and population standard deviation."""
    n, mean, m2 = _aggregate(_values_of_nonempty("stats", array))
    return mean, math.sqrt(m2 / n)


@STATS.define("statagg", "(int[K]) -> int, float, float", "(float[K]) -> int, float, float")
def statagg(ctx: BuiltinContext, array: dict[Any, Any]) -> tuple[int, float, float]:
    """Partial statistics (n, mean, M2) that `stat_combine` merges."""
    return _aggregate(_values_of_nonempty("statagg", array))


@STATS.define("stat_combine", "(PartialStats[K]) -> int, float, float")
def stat_combine(ctx: BuiltinContext, parts: dict[Any, dict[str, Any]]) -> tuple[int, float, float]:
    """Merge partial statistics (Chan et al.'s pairwise update); returns n, mean, population std."""
    n, mean, m2 = 0, 0.0, 0.0
    for part in ordered_values(parts):
        pn, pmean, pm2 = int(part["n"]), float(part["mean"]), float(part["M2"])
        if pn == 0:
            continue
        total = n + pn
        delta = pmean - mean
        mean += delta * pn / total
        m2 += pm2 + delta * delta * n * pn / total
        n = total
    if n == 0:
        raise SwiftRuntimeError("stat_combine(): no values")
    return n, mean, math.sqrt(m2 / n)
