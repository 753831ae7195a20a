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
