"""`sprintf` with the semantics of Tcl's `format`, which Turbine uses (spec §8 string).

A specifier is `%[flags][width][.precision][h|l|ll]conv`. Integer and string
conversions follow Tcl exactly, including its quirks: the `0` flag pads numbers
and strings with zeros to the width even with `-`, `%#x` of 0 is `0x0`, and
`%.0d` of 0 is `0`. Floating conversions follow C (as Tcl does), except that
NaN prints as `nan` where Tcl would fail. Negative numbers under `u o x X`
print as their 64-bit two's complement.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, NamedTuple

from engine.errors import SwiftRuntimeError
from engine.runtime.builtins.textform import text_form

_FLAGS = "-+ 0#"
_INT_CONVS = "diuoxXc"
_FLOAT_CONVS = "feEgG"
_UNSIGNED_MASK = (1 << 64) - 1


class _Spec(NamedTuple):
    """One parsed `%...` field."""

    flags: str
    width: int
    precision: int | None
    conv: str

    @property
    def left(self) -> bool:
        return "-" in self.flags

    @property
    def zero(self) -> bool:
        return "0" in self.flags


def sprintf(fmt: str, args: Sequence[Any], caller: str = "sprintf") -> str:
    """Format `args` by `fmt`; errors name `caller` (`sprintf` or `printf`)."""
    out: list[str] = []
    pos, next_arg, n = 0, 0, len(fmt)
    while pos < n:
        percent = fmt.find("%", pos)
        if percent < 0:
            out.append(fmt[pos:])
            break
        out.append(fmt[pos:percent])
        if percent + 1 < n and fmt[percent + 1] == "%":
            out.append("%")
            pos = percent + 2
            continue
        spec, pos = _parse_spec(fmt, percent + 1, caller, have_arg=next_arg < len(args))
        out.append(_format_one(spec, args[next_arg], caller))
        next_arg += 1
    return "".join(out)


def _parse_spec(fmt: str, pos: int, caller: str, have_arg: bool) -> tuple[_Spec, int]:
    """Read flags, width, precision, size and conversion starting after a `%`.

    Like Tcl, a missing argument is reported before a bad or missing conversion.
    """
    n = len(fmt)
    start = pos
    while pos < n and fmt[pos] in _FLAGS:
        pos += 1
    flags = fmt[start:pos]
    start = pos
    while pos < n and fmt[pos].isdigit():
        pos += 1
    width = int(fmt[start:pos]) if pos > start else 0
    precision = None
    if pos < n and fmt[pos] == ".":
        pos += 1
        start = pos
        while pos < n and fmt[pos].isdigit():
            pos += 1
        precision = int(fmt[start:pos]) if pos > start else 0
    for size in ("ll", "h", "l"):
        if fmt.startswith(size, pos):
            pos += len(size)
            break
    if not have_arg:
        raise SwiftRuntimeError(f"{caller}(): not enough arguments for all format specifiers")
    if pos >= n:
        raise SwiftRuntimeError(f"{caller}(): format string ended in middle of field specifier")
    conv = fmt[pos]
    if conv not in _INT_CONVS + _FLOAT_CONVS + "s":
        raise SwiftRuntimeError(f'{caller}(): bad field specifier "{conv}"')
    return _Spec(flags, width, precision, conv), pos + 1


def _format_one(spec: _Spec, value: Any, caller: str) -> str:
    if spec.conv == "s":
        text = text_form(value)
        if spec.precision is not None:
            text = text[: spec.precision]
        return _pad_text(text, spec)
    if spec.conv in _INT_CONVS:
        if not isinstance(value, int):
            raise SwiftRuntimeError(
                f"{caller}(): %{spec.conv} needs an int or boolean, got {_describe(value)}"
            )
        if spec.conv == "c":
            return _pad_text(_code_point(int(value), caller), spec)
        return _format_int(int(value), spec)
    if isinstance(value, (int, float)):
        return _format_float(float(value), spec)
    raise SwiftRuntimeError(f"{caller}(): %{spec.conv} needs an int or float, got {_describe(value)}")


def _describe(value: Any) -> str:
    kind = {float: "float", str: "string"}.get(type(value), type(value).__name__)
    shown = f"'{value}'" if isinstance(value, str) else text_form(value)
    return f"{kind} {shown}"


def _code_point(value: int, caller: str) -> str:
    if not 0 <= value <= 0x10FFFF:
        raise SwiftRuntimeError(f"{caller}(): %c needs a Unicode code point, got {value}")
    return chr(value)


def _pad_text(text: str, spec: _Spec) -> str:
    """Tcl pads strings and characters with zeros under `0`, on the side `-` picks."""
    fill = "0" if spec.zero else " "
    missing = spec.width - len(text)
    if missing <= 0:
        return text
    return text + fill * missing if spec.left else fill * missing + text


def _format_int(value: int, spec: _Spec) -> str:
    conv = spec.conv
    prefix = ""
    if conv in "di":
        digits = str(abs(value))
        if value < 0:
            prefix = "-"
        elif "+" in spec.flags:
            prefix = "+"
        elif " " in spec.flags:
            prefix = " "
    else:
        unsigned = value & _UNSIGNED_MASK
        digits = {"u": "%d", "o": "%o", "x": "%x", "X": "%X"}[conv] % unsigned
        if "#" in spec.flags:
            if conv in "xX":
                prefix = "0" + conv
            elif conv == "o" and unsigned != 0:
                digits = "0" + digits
    if spec.precision is not None:
        digits = digits.rjust(spec.precision, "0")
    elif spec.zero:
        digits = digits.rjust(spec.width - len(prefix), "0")
    text = prefix + digits
    return text.ljust(spec.width) if spec.left else text.rjust(spec.width)


def _format_float(value: float, spec: _Spec) -> str:
    precision = "" if spec.precision is None else f".{spec.precision}"
    flags = spec.flags
    if not math.isfinite(value):
        # C pads inf/nan with spaces only; Python's % would use the zeros.
        flags = flags.replace("0", "")
    return f"%{flags}{spec.width or ''}{precision}{spec.conv}" % value
