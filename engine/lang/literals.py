"""Values of literal tokens: integers, floats and strings (LANGUAGE.md section 1).

The token stream calls these on every literal token, before the parser sees it,
so that a bad literal is reported at its own position and in source order.
Each function raises `LiteralError` with the offset (within the token text) of
the offending character; the caller turns that into a `file:line:col` error.
"""

from __future__ import annotations

import re
from types import MappingProxyType

INT64_MAX = 2**63 - 1

# A multi-line string's delimiters: `"""` + newline ... `"""`, `----` + newline ... `----`.
_MULTILINE_DELIMITERS = ('"""', "----")

_SIMPLE_ESCAPES = MappingProxyType({
    "\\": "\\",
    '"': '"',
    "?": "?",
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
})
_OCTAL_ESCAPE = re.compile(r"[0-7]{1,3}")
_HEX_ESCAPE = re.compile(r"x([0-9a-fA-F]{1,2})")


class LiteralError(ValueError):
    """A malformed literal; `offset` locates the bad character inside the token text."""

    def __init__(self, message: str, offset: int = 0) -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset


def int_value(text: str) -> int:
    """Value of an integer literal: decimal (leading zeros stay decimal), `0x` hex or `0o` octal."""
    if text.startswith("0x"):
        value = int(text[2:], 16)
    elif text.startswith("0o"):
        value = int(text[2:], 8)
    else:
        value = int(text, 10)
    if value > INT64_MAX:
        raise LiteralError("integer literal out of range")
    return value


def float_value(text: str) -> float:
    """Value of a float literal (`1.5`, `2.3e-2`, `1e+3`, `inf`, `NaN`)."""
    if text == "NaN":
        return float("nan")
    return float(text)


def string_value(text: str) -> str:
    """Value of a string token, delimiters removed and escapes applied.

    A multi-line string keeps the newline after its opening delimiter and the
    one before its closing delimiter (LANGUAGE.md section 1).
    """
    for delimiter in _MULTILINE_DELIMITERS:
        if len(text) >= 2 * len(delimiter) and text.startswith(delimiter) and text.endswith(delimiter):
            start = len(delimiter)
            return _unescape(text[start:-start], start)
    return _unescape(text[1:-1], 1)


def _unescape(body: str, offset: int) -> str:
    """Apply the escapes of `body`; `offset` is where `body` starts in the token text."""
    if "\\" not in body:
        return body
    out: list[str] = []
    i = 0
    while i < len(body):
        backslash = body.find("\\", i)
        if backslash < 0:
            out.append(body[i:])
            break
        out.append(body[i:backslash])
        i = backslash + 1
        rest = body[i : i + 3]
        if rest[:1] in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[rest[0]])
            i += 1
        elif octal := _OCTAL_ESCAPE.match(rest):
            out.append(chr(int(octal.group(), 8)))
            i += octal.end()
        elif hexa := _HEX_ESCAPE.match(rest):
            out.append(chr(int(hexa.group(1), 16)))
            i += hexa.end()
        else:
            shown = body[backslash : backslash + 2].replace("\n", "\\n")
            raise LiteralError(f"invalid escape sequence '{shown}' in string", offset + backslash)
    return "".join(out)
