"""The `string` module (and `io`'s printf): formatting, searching, splitting, joining.

Indices count characters from 0. Where Swift/T leaves a case open (an empty
search string), Tcl's answer is used: nothing is found and nothing is replaced.
"""

from __future__ import annotations

import re
from typing import Any

from engine.errors import SwiftRuntimeError
from engine.runtime.builtins.context import BuiltinContext
from engine.runtime.builtins.convert import parse_int
from engine.runtime.builtins.core import ordered_values
from engine.runtime.builtins.spec import Table
from engine.runtime.builtins.sprintf import sprintf
from engine.runtime.builtins.textform import text_form

STRING = Table("string")
IO = Table("io")
TABLES = (STRING, IO)


@IO.define("printf", "(string fmt, scalar...) -> void")
def printf(ctx: BuiltinContext, fmt: str, *args: Any) -> None:
    ctx.write_stdout(sprintf(fmt, args, caller="printf") + "\n")


@STRING.define("sprintf", "(string fmt, scalar...) -> string")
def sprintf_builtin(ctx: BuiltinContext, fmt: str, *args: Any) -> str:
    return sprintf(fmt, args)


@STRING.define("strlen", "(string) -> int")
def strlen(ctx: BuiltinContext, s: str) -> int:
    return len(s)


@STRING.define("substring", "(string s, int i, int n) -> string")
def substring(ctx: BuiltinContext, s: str, start: int, count: int) -> str:
    """Characters start..start+count-1, clipped to the string."""
    return s[max(start, 0) : max(start + count, 0)]


def _window(s: str, start: int, end: int) -> tuple[int, int] | None:
    """Clip a search window [start, end) where end -1 means the end of `s`."""
    if end == -1:
        end = len(s)
    if end < 0:
        return None
    return max(start, 0), end


@STRING.define("find", "(string s, string t, int i=0, int j=-1) -> int")
def find(ctx: BuiltinContext, s: str, t: str, start: int = 0, end: int = -1) -> int:
    """First `t` that starts at or after `start` and ends by `end`; else -1."""
    window = _window(s, start, end)
    if not t or window is None:
        return -1
    return s.find(t, *window)


@STRING.define("string_count", "(string s, string t, int i=0, int j=-1) -> int")
def string_count(ctx: BuiltinContext, s: str, t: str, start: int = 0, end: int = -1) -> int:
    """Non-overlapping occurrences of `t` inside the window."""
    window = _window(s, start, end)
    if not t or window is None:
        return 0
    return s.count(t, *window)


@STRING.define("replace", "(string s, string t, string r, int i=0) -> string")
def replace(ctx: BuiltinContext, s: str, t: str, r: str, start: int = 0) -> str:
    """Replace the first `t` found at or after `start`."""
    at = find(ctx, s, t, start)
    return s if at < 0 else s[:at] + r + s[at + len(t) :]


@STRING.define("replace_all", "(string s, string t, string r, int i=0) -> string")
@STRING.define("replaceAll", "(string s, string t, string r, int i=0, int j=-1) -> string")
def replace_all(ctx: BuiltinContext, s: str, t: str, r: str, start: int = 0, end: int = -1) -> str:
    """Replace every non-overlapping `t` inside [start, end) (-1: the end), left to right."""
    window = _window(s, start, end)
    if not t or window is None:
        return s
    start, end = window
    return s[:start] + s[start:end].replace(t, r) + s[end:]


@STRING.define("pick_regexp", "(string pattern, string[K]) -> string[K]")
def pick_regexp(ctx: BuiltinContext, pattern: str, strings: dict[Any, str]) -> dict[Any, str]:
    """The elements that the regular expression matches (anywhere, as Tcl's regexp), keys kept."""
    try:
        compiled = re.compile(pattern)
    except re.error as e:
        raise SwiftRuntimeError(f"pick_regexp(): bad regular expression '{pattern}': {e}") from None
    return {k: v for k, v in strings.items() if compiled.search(v)}


@STRING.define("repr", "(nested) -> string")
def repr_builtin(ctx: BuiltinContext, value: Any) -> str:
    return _repr(value)


@STRING.define("array_repr", "(nested[K]) -> string[K]")
def array_repr(ctx: BuiltinContext, array: dict[Any, Any]) -> dict[Any, str]:
    return {k: _repr(v) for k, v in array.items()}


def _repr(value: Any) -> str:
    """A scalar's text form; an array's members' in key order, as `[1.0,2.0]` (§13)."""
    if isinstance(value, dict):
        return "[" + ",".join(_repr(v) for v in ordered_values(value)) + "]"
    return text_form(value)


@STRING.define("string_from_floats", "(float[K]) -> string")
def string_from_floats(ctx: BuiltinContext, floats: dict[Any, float]) -> str:
    """Text forms in ascending key order, joined by `,`."""
    return ",".join(text_form(v) for v in ordered_values(floats))


@STRING.define("split", '(string s, string d=" ") -> string[]')
def split(ctx: BuiltinContext, s: str, delimiters: str = " ") -> list[str]:
    """Tcl `split`: every character of `delimiters` separates; empty `delimiters` splits chars."""
    if not s:
        return []
    if not delimiters:
        return list(s)
    return re.split("[" + re.escape(delimiters) + "]", s)


@STRING.define(("join", "string_join"), '(scalar[K] A, string sep=" ") -> string')
def join(ctx: BuiltinContext, array: dict[Any, Any], sep: str = " ") -> str:
    return sep.join(text_form(v) for v in ordered_values(array))


@STRING.define("join_args", "(string sep, scalar...) -> string")
def join_args(ctx: BuiltinContext, sep: str, *values: Any) -> str:
    return sep.join(text_form(v) for v in values)


@STRING.define("trim", "(string) -> string")
def trim(ctx: BuiltinContext, s: str) -> str:
    return s.strip()


@STRING.define("toUpper", "(string) -> string")
def to_upper(ctx: BuiltinContext, s: str) -> str:
    return s.upper()


@STRING.define("toLower", "(string) -> string")
def to_lower(ctx: BuiltinContext, s: str) -> str:
    return s.lower()


@STRING.define("isint", "(string) -> boolean")
def isint(ctx: BuiltinContext, s: str) -> bool:
    """Would `toint(s)` succeed?"""
    return parse_int(s) is not None
