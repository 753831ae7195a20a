"""Arithmetic helpers for the runtime's operators, and the always-visible basics.

`int_wrap`, `int_div`, `int_mod`, `float_div` and `float_pow` give the
language's integer (64-bit wrapping, truncating division) and IEEE float
semantics; the runtime calls them for `+ - * %/ %% / **`. The builtins here
are trace, strcat/dircat/length, array queries, min/max, pow, xor, ternary
and propagate.
"""

from __future__ import annotations

import math
from typing import Any

from engine.errors import SwiftRuntimeError
from engine.runtime.builtins.context import BuiltinContext
from engine.runtime.builtins.spec import Table
from engine.runtime.builtins.textform import text_form

ALWAYS = Table(None)
TABLES = (ALWAYS,)

_INT_BITS = 64
_INT_RANGE = 1 << _INT_BITS
_INT_MIN = -(1 << (_INT_BITS - 1))


def int_wrap(value: int) -> int:
    """Reduce an exact integer to signed 64-bit two's complement."""
    return (value - _INT_MIN) % _INT_RANGE + _INT_MIN


def int_div(a: int, b: int) -> int:
    """`a %/ b`: quotient truncated toward zero (Turbine); `divide by zero` on b == 0."""
    if b == 0:
        raise SwiftRuntimeError("divide by zero")
    quotient = abs(a) // abs(b)
    return int_wrap(quotient if (a < 0) == (b < 0) else -quotient)


def int_mod(a: int, b: int) -> int:
    """`a %% b`: remainder of truncating division, so it takes the sign of `a`."""
    if b == 0:
        raise SwiftRuntimeError("divide by zero")
    remainder = abs(a) % abs(b)
    return -remainder if a < 0 else remainder


def float_div(a: float, b: float) -> float:
    """IEEE division: x/0.0 is ±Inf and 0.0/0.0 is NaN, never an exception."""
    try:
        return a / b
    except ZeroDivisionError:
        if a == 0 or math.isnan(a):
            return math.nan
        negative = (a < 0) != (math.copysign(1.0, b) < 0)
        return -math.inf if negative else math.inf


def float_pow(base: float, exponent: float) -> float:
    """C `pow` semantics: overflow gives ±Inf, 0 to a negative power Inf, bad domain NaN."""
    base, exponent = float(base), float(exponent)
    odd_integer = math.isfinite(exponent) and exponent.is_integer() and int(exponent) % 2 == 1
    try:
        return math.pow(base, exponent)
    except OverflowError:
        return -math.inf if base < 0 and odd_integer else math.inf
    except ValueError:
        if base == 0:  # negative exponent
            return math.copysign(math.inf, base) if odd_integer else math.inf
        return math.nan


def ordered_values(array: dict[Any, Any]) -> list[Any]:
    """The values of an array in ascending key order."""
    return [array[key] for key in sorted(array)]


@ALWAYS.define("trace", "(scalar...) -> void")
def trace(ctx: BuiltinContext, *values: Any) -> None:
    ctx.write_stdout("trace: " + ",".join(text_form(v) for v in values) + "\n")


@ALWAYS.define("strcat", "(scalar...) -> string")
def strcat(ctx: BuiltinContext, *values: Any) -> str:
    return "".join(text_form(v) for v in values)


@ALWAYS.define("dircat", "(scalar...) -> string")
def dircat(ctx: BuiltinContext, *values: Any) -> str:
    return "/".join(text_form(v) for v in values)


@ALWAYS.define("length", "(string) -> int")
def length(ctx: BuiltinContext, s: str) -> int:
    return len(s)


@ALWAYS.define("size", "(V[K]) -> int")
def size(ctx: BuiltinContext, array: dict[Any, Any]) -> int:
    return len(array)


@ALWAYS.define(("contains", "exists"), "(V[K], K) -> boolean")
def contains(ctx: BuiltinContext, array: dict[Any, Any], key: Any) -> bool:
    return key in array


@ALWAYS.define("keys_integer", "(V[]) -> int[]")
def keys_integer(ctx: BuiltinContext, array: dict[int, Any]) -> list[int]:
    return sorted(array)


@ALWAYS.define("keys_string", "(V[string]) -> string[]")
def keys_string(ctx: BuiltinContext, array: dict[str, Any]) -> list[str]:
    return sorted(array)


@ALWAYS.define("min", "(int, int) -> int", "(float, float) -> float")
@ALWAYS.define("min_integer", "(int, int) -> int")
@ALWAYS.define("min_float", "(float, float) -> float")
def minimum(ctx: BuiltinContext, a: Any, b: Any) -> Any:
    return math.nan if _either_nan(a, b) else min(a, b)


@ALWAYS.define("max", "(int, int) -> int", "(float, float) -> float")
@ALWAYS.define("max_integer", "(int, int) -> int")
@ALWAYS.define("max_float", "(float, float) -> float")
def maximum(ctx: BuiltinContext, a: Any, b: Any) -> Any:
    return math.nan if _either_nan(a, b) else max(a, b)


def _either_nan(a: Any, b: Any) -> bool:
    # Python's min/max answer depends on argument order when one is NaN.
    return isinstance(a, float) and math.isnan(a) or isinstance(b, float) and math.isnan(b)


@ALWAYS.define("pow", "(int, int) -> float", "(float, float) -> float")
@ALWAYS.define("pow_integer", "(int, int) -> float")
@ALWAYS.define("pow_float", "(float, float) -> float")
def power(ctx: BuiltinContext, base: float, exponent: float) -> float:
    return float_pow(base, exponent)


@ALWAYS.define("xor", "(boolean, boolean) -> boolean")
def xor(ctx: BuiltinContext, a: bool, b: bool) -> bool:
    return a != b


@ALWAYS.define(
    "ternary",
    "(boolean, int, int) -> int",
    "(boolean, float, float) -> float",
    "(boolean, string, string) -> string",
    "(boolean, boolean, boolean) -> boolean",
)
@ALWAYS.define("ternary_string", "(boolean, string, string) -> string")
def ternary(ctx: BuiltinContext, condition: bool, if_true: Any, if_false: Any) -> Any:
    return if_true if condition else if_false


@ALWAYS.define(("propagate", "make_void", "makeVoid"), "(any...) -> void")
def propagate(ctx: BuiltinContext, *values: Any) -> None:
    return None
