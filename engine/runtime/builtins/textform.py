"""The text form of scalar values (spec §7), as Turbine's Tcl prints them.

Used by trace, strcat, string `+`, `%s`, app arguments and join. Floats use the
shortest digits that read back as the same double (Python's `repr` finds
them); the layout (positional or exponent) follows Tcl, not Python.
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

# Positional layout is used for decimal exponents in this closed range (Tcl's rule).
_MIN_POSITIONAL_EXP = -4
_MAX_POSITIONAL_EXP = 16


def float_text(x: float) -> str:
    """`NaN`, `Inf`, `-Inf`, `1.0`, `0.0001`, `1e+17`, `1.5e-7`, `-0.0`, ..."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Inf" if x > 0 else "-Inf"
    sign, digit_tuple, exponent = Decimal(repr(x)).as_tuple()
    digits = "".join(map(str, digit_tuple)).rstrip("0") or "0"
    # repr may carry trailing zeros (100.0 -> "1000" e-1); drop them, keep the value.
    exponent = int(exponent) + (len(digit_tuple) - len(digits))
    sci_exp = len(digits) - 1 + exponent if digits != "0" else 0
    minus = "-" if sign else ""
    if _MIN_POSITIONAL_EXP <= sci_exp <= _MAX_POSITIONAL_EXP:
        return minus + _positional(digits, sci_exp)
    mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    return f"{minus}{mantissa}e{'+' if sci_exp >= 0 else '-'}{abs(sci_exp)}"


def _positional(digits: str, sci_exp: int) -> str:
    """Place the point in `digits` (value d1.d2... x 10^sci_exp), at least one decimal."""
    if sci_exp < 0:
        return "0." + "0" * (-sci_exp - 1) + digits
    whole = digits[: sci_exp + 1].ljust(sci_exp + 1, "0")
    fraction = digits[sci_exp + 1 :] or "0"
    return f"{whole}.{fraction}"


def text_form(value: Any) -> str:
    """Text form of an int, float, string or boolean (boolean -> `1`/`0`)."""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return float_text(value)
    if isinstance(value, str):
        return value
    raise TypeError(f"no text form for {type(value).__name__} value {value!r}")


def bool_word(value: bool) -> str:
    """`true` / `false`, as bool2string and toString(boolean) give them."""
    return "true" if value else "false"
