"""The `math` and `random` modules, with IEEE results instead of Python exceptions.

Python's `math` raises on domain errors (`sqrt(-1)`, `log(0)`) and overflow;
the language wants NaN and ±Inf there (spec §7), so each function maps those
cases explicitly.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from types import MappingProxyType

from engine.errors import SwiftRuntimeError
from engine.runtime.builtins.context import BuiltinContext
from engine.runtime.builtins.core import float_div, int_wrap
from engine.runtime.builtins.spec import Table

MATH = Table("math")
RANDOM = Table("random")
TABLES = (MATH, RANDOM)

CONSTANTS: Mapping[str, tuple[str, float, str]] = MappingProxyType({
    "PI": ("float", math.pi, "math"),
    "E": ("float", math.e, "math"),
})


def _integral(x: float, rounded: float) -> float:
    """Give an integral result the sign of `x` when it is zero, as C does (ceil(-0.5) = -0.0)."""
    return math.copysign(0.0, x) if rounded == 0 else rounded


@MATH.define("floor", "(float) -> float")
def floor(ctx: BuiltinContext, x: float) -> float:
    return _integral(x, float(math.floor(x))) if math.isfinite(x) else x


@MATH.define("ceil", "(float) -> float")
def ceil(ctx: BuiltinContext, x: float) -> float:
    return _integral(x, float(math.ceil(x))) if math.isfinite(x) else x


@MATH.define("round", "(float) -> float")
def round_half_away(ctx: BuiltinContext, x: float) -> float:
    """Half away from zero: round(2.5) = 3.0, round(-2.5) = -3.0."""
    if not math.isfinite(x):
        return x
    magnitude = abs(x)
    whole = math.floor(magnitude)
    if magnitude - whole >= 0.5:  # exact for doubles, unlike floor(x + 0.5)
        whole += 1
    return _integral(x, math.copysign(float(whole), x))


def _log_of(fn: Callable[[float], float], x: float) -> float:
    if math.isnan(x) or x < 0:
        return math.nan
    if x == 0:
        return -math.inf
    return fn(x)


@MATH.define("log", "(float x) -> float", "(float x, float base) -> float")
@MATH.define("ln", "(float x) -> float")
def log(ctx: BuiltinContext, x: float, base: float | None = None) -> float:
    natural = _log_of(math.log, x)
    return natural if base is None else float_div(natural, _log_of(math.log, base))


@MATH.define("log2", "(float) -> float")
def log2(ctx: BuiltinContext, x: float) -> float:
    return _log_of(math.log2, x)


@MATH.define("log10", "(float) -> float")
def log10(ctx: BuiltinContext, x: float) -> float:
    return _log_of(math.log10, x)


@MATH.define("sqrt", "(float) -> float")
def sqrt(ctx: BuiltinContext, x: float) -> float:
    return math.nan if x < 0 else math.sqrt(x)


@MATH.define("exp", "(float) -> float")
def exp(ctx: BuiltinContext, x: float) -> float:
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def _domain_checked(fn: Callable[..., float]) -> Callable[..., float]:
    """Wrap a math function whose only failure is a domain error (-> NaN)."""

    def impl(ctx: BuiltinContext, *args: float) -> float:
        try:
            return fn(*args)
        except ValueError:
            return math.nan

    impl.__name__ = fn.__name__
    impl.__doc__ = f"math.{fn.__name__} with NaN for arguments outside its domain."
    return impl


for _name in ("sin", "cos", "tan", "asin", "acos", "atan"):
    MATH.define(_name, "(float) -> float")(_domain_checked(getattr(math, _name)))
MATH.define("atan2", "(float y, float x) -> float")(_domain_checked(math.atan2))


@MATH.define("cbrt", "(float) -> float")
def cbrt(ctx: BuiltinContext, x: float) -> float:
    """Cube root, exact for perfect cubes (some libms give cbrt(27) = 3.0000000000000004)."""
    root = math.cbrt(x)
    cube = root * root * root
    if root == 0 or not math.isfinite(cube):
        return root
    return root - (cube - x) / (3 * root * root)  # one Newton step


@MATH.define("abs", "(int) -> int", "(float) -> float")
@MATH.define("abs_integer", "(int) -> int")
@MATH.define("abs_float", "(float) -> float")
def absolute(ctx: BuiltinContext, x: int | float) -> int | float:
    return abs(x) if isinstance(x, float) else int_wrap(abs(x))


@MATH.define(("is_nan", "isNaN"), "(float) -> boolean")
def is_nan(ctx: BuiltinContext, x: float) -> bool:
    return math.isnan(x)


@RANDOM.define("random", "() -> float")
def random_float(ctx: BuiltinContext) -> float:
    return ctx.rng.random()


@RANDOM.define("randint", "(int a, int b) -> int")
def randint(ctx: BuiltinContext, low: int, high: int) -> int:
    """A uniform int in [low, high)."""
    if high <= low:
        raise SwiftRuntimeError(f"randint(): empty range [{low}, {high})")
    return ctx.rng.randrange(low, high)
