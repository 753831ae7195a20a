"""Conversions between scalar types (spec §8 builtins), with every alias.

Parsing is strict: a string must hold exactly one number (surrounding
whitespace allowed); anything else is a run-time error naming the string.
"""

from __future__ import annotations

import math
import re

from engine.errors import SwiftRuntimeError
from engine.runtime.builtins.context import BuiltinContext
from engine.runtime.builtins.spec import Table
from engine.runtime.builtins.textform import bool_word, float_text, text_form

ALWAYS = Table(None)
TABLES = (ALWAYS,)

_INT_MIN, _INT_MAX = -(1 << 63), (1 << 63) - 1
_DECIMAL_INT = re.compile(r"\s*([+-]?)([0-9]+)\s*", re.ASCII)
_BASED_INT = re.compile(r"\s*([+-]?)([0-9A-Za-z]+)\s*", re.ASCII)
_FLOAT = re.compile(
    r"\s*[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf|infinity|nan)\s*",
    re.ASCII | re.IGNORECASE,
)
_TRUE_WORDS = frozenset({"true", "yes", "on"})
_FALSE_WORDS = frozenset({"false", "no", "off"})


def parse_int(s: str, base: int = 10) -> int | None:
    """The integer `s` spells in `base` (sign and whitespace allowed), or None."""
    match = (_DECIMAL_INT if base == 10 else _BASED_INT).fullmatch(s)
    if not match:
        return None
    sign, digits = match.groups()
    if any(int(d, 36) >= base for d in digits):
        return None
    value = int(digits, base) * (-1 if sign == "-" else 1)
    return value if _INT_MIN <= value <= _INT_MAX else None


def parse_float(s: str) -> float | None:
    """The float `s` spells (decimal, exponent, inf, nan), or None."""
    return float(s) if _FLOAT.fullmatch(s) else None


@ALWAYS.define(("toint", "string2int"), "(string) -> int")
def to_int(ctx: BuiltinContext, s: str) -> int:
    value = parse_int(s)
    if value is None:
        raise SwiftRuntimeError(f"toint(): could not convert string '{s}' to integer")
    return value


@ALWAYS.define("parseInt", "(string s, int base=10) -> int")
def parse_int_builtin(ctx: BuiltinContext, s: str, base: int = 10) -> int:
    if not 2 <= base <= 36:
        raise SwiftRuntimeError(f"parseInt(): base must be between 2 and 36, got {base}")
    value = parse_int(s, base)
    if value is None:
        raise SwiftRuntimeError(f"parseInt(): could not convert string '{s}' to integer in base {base}")
    return value


@ALWAYS.define(("tofloat", "string2float", "parseFloat"), "(string) -> float")
def to_float(ctx: BuiltinContext, s: str) -> float:
    value = parse_float(s)
    if value is None:
        raise SwiftRuntimeError(f"string2float(): could not convert string '{s}' to float")
    return value


@ALWAYS.define(("fromint", "int2string"), "(int) -> string")
def from_int(ctx: BuiltinContext, i: int) -> str:
    return str(i)


@ALWAYS.define(("fromfloat", "float2string"), "(float) -> string")
def from_float(ctx: BuiltinContext, x: float) -> str:
    return float_text(x)


@ALWAYS.define(("bool2string", "boolean2string"), "(boolean) -> string")
def bool_to_string(ctx: BuiltinContext, b: bool) -> str:
    return bool_word(b)


@ALWAYS.define(
    "toString", "(int) -> string", "(float) -> string", "(boolean) -> string", "(string) -> string"
)
def to_string(ctx: BuiltinContext, value: int | float | bool | str) -> str:
    return bool_word(value) if isinstance(value, bool) else text_form(value)


@ALWAYS.define(("string2boolean", "string2bool"), "(string) -> boolean")
def string_to_boolean(ctx: BuiltinContext, s: str) -> bool:
    word = s.strip().lower()
    if word in _TRUE_WORDS:
        return True
    if word in _FALSE_WORDS:
        return False
    number = parse_float(s)
    if number is None or math.isnan(number):
        raise SwiftRuntimeError(f"string2boolean(): could not convert string '{s}' to boolean")
    return number != 0


@ALWAYS.define(("int2float", "itof", "toFloat"), "(int) -> float")
def int_to_float(ctx: BuiltinContext, i: int) -> float:
    return float(i)


@ALWAYS.define(("float2int", "toInt", "ftoi"), "(float) -> int")
def float_to_int(ctx: BuiltinContext, x: float) -> int:
    """Truncate toward zero (Turbine); NaN, Inf and values beyond 64 bits are errors."""
    if not math.isfinite(x) or not _INT_MIN <= math.trunc(x) <= _INT_MAX:
        raise SwiftRuntimeError(f"float2int(): could not convert float {float_text(x)} to integer")
    return math.trunc(x)


@ALWAYS.define("bool2int", "(boolean) -> int")
def bool_to_int(ctx: BuiltinContext, b: bool) -> int:
    return int(b)
