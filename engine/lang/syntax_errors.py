"""Friendly syntax errors: what was found and what was expected, in words.

The parser hands over the offending token and the set of terminals the LALR
parser would have accepted there. First we look for an unsupported feature
(LANGUAGE.md section 10) that explains the error better than "unexpected X":
`+=`, `:=`, `bag<T>`, type parameters, Tcl leaf function bodies. Otherwise the
message names the token and the expected terminals in human words, e.g.
`syntax error: unexpected '}', expected ';'`. Lark's terminal names never
appear: string terminals are shown as their text, the others through
`_TERMINAL_WORDS`, and families of terminals collapse into "a statement",
"an expression" or "a literal"; operators and other continuations possible
after any expression are left out when something more telling is expected.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Optional

from lark import Lark, Token
from lark.lexer import PatternStr

from engine.errors import CompileError
from engine.lang.token_stream import TokenStream

_TERMINAL_WORDS = MappingProxyType({
    "NAME": "a name",
    "INT": "an integer",
    "FLOAT": "a number",
    "STRING": "a string",
    "ARROW": "'=>'",
    "$END": "end of file",
})
# Terminals that never deserve a mention of their own.
_UNMENTIONED = frozenset({"MLSTRING", "DASHSTRING", "ANNOT_WORD"})
_STRING_TYPES = frozenset({"STRING", "MLSTRING", "DASHSTRING"})

_EXPRESSION_START = frozenset({
    "NAME", "INT", "FLOAT", "STRING", "MLSTRING", "DASHSTRING", "INF", "NAN", "TRUE", "FALSE",
    "LPAR", "LSQB", "LBRACE", "MINUS", "BANG", "AT",
})
_STATEMENT_START = frozenset({"IF", "SWITCH", "FOREACH", "FOR", "WAIT", "GLOBAL", "SEMICOLON"})
_DEFINITION_START = frozenset({"TYPE", "TYPEDEF", "APP", "IMPORT"})
_OPERATORS = frozenset({
    "OROR", "ANDAND", "EQEQ", "NEQ", "LT", "LE", "GT", "GE",
    "PLUS", "MINUS", "STAR", "SLASH", "INTDIV", "MOD", "PERCENT", "POW",
})
# Continuations that are possible after almost any name or expression: only
# worth naming when nothing better is expected.
_SECONDARY = _OPERATORS | {"LSQB", "DOT", "ARROW"}
_ORDER = ("SEMICOLON", "RPAR", "RSQB", "RBRACE", "COMMA", "COLON", "EQUAL", "LBRACE", "LPAR")
_STATEMENT_BOUNDARY = frozenset({"SEMICOLON", "LBRACE", "RBRACE"})


def syntax_error(token: Token, accepts: set[str], stream: TokenStream, lark: Lark) -> CompileError:
    """The error to report for `token`, which the parser could not accept."""
    unsupported = _unsupported_feature(token, stream)
    if unsupported is not None:
        return unsupported
    previous = _previous(token, stream)
    if "SEMICOLON" in accepts and previous is not None and previous.end_line < token.line:
        message = "missing ';' after statement"
    else:
        message = f"unexpected {_describe_token(token)}"
        expected = _describe_expected(accepts, lark)
        if expected:
            message += f", expected {expected}"
        if token.type == "GE" and "GT" in accepts:
            message += " ('>=' is one token: write '> =')"
    if previous is not None and previous.type in _STRING_TYPES and previous.end_line > previous.line:
        message += f" (is the string that starts on line {previous.line} missing its closing quote?)"
    return CompileError(stream.file_of(token), token.line, token.column, f"syntax error: {message}")


def _previous(token: Token, stream: TokenStream) -> Optional[Token]:
    """The token consumed just before `token`."""
    history = stream.consumed
    if token.type == "$END":
        return history[-1] if history else None
    return history[-2] if len(history) >= 2 else None


def _describe_token(token: Token) -> str:
    if token.type == "$END":
        return "end of file"
    text = str(token)
    if token.type in _STRING_TYPES:
        first_line = text.split("\n", 1)[0]
        return f"string {first_line[:24]}{'...' if len(text) > len(first_line[:24]) else ''}"
    if token.type != "NAME" and text.isidentifier():
        return f"'{text}' (a reserved word)"
    return f"'{text}'"


def _describe_expected(accepts: set[str], lark: Lark) -> str:
    remaining = set(accepts) - _UNMENTIONED
    groups: list[str] = []
    if {"IF", "FOREACH"} <= remaining:
        groups += ["a statement", "a definition"] if "TYPE" in remaining else ["a statement"]
        remaining -= _STATEMENT_START | _DEFINITION_START | _EXPRESSION_START
    if {"NAME", "INT", "STRING", "MINUS"} <= remaining:
        groups.append("an expression")
        remaining -= _EXPRESSION_START
    elif {"INT", "STRING", "TRUE"} <= remaining:
        groups.append("a literal")
        remaining -= _EXPRESSION_START
    at_end = "$END" in remaining
    remaining.discard("$END")
    primary = remaining - _SECONDARY
    if remaining & _OPERATORS:
        primary.discard("LPAR")  # a call after an expression: obvious, and rarely the intent
    if "GT" in remaining and "LT" not in remaining:
        primary.add("GT")  # the `>` closing a file mapping `<...>`
    if not primary and not groups:
        primary = remaining
    words = [_terminal_word(name, lark) for name in sorted(primary, key=_mention_order)] + groups
    if at_end:
        words.append("end of file")
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " or " + words[-1]


def _mention_order(name: str) -> tuple[int, str]:
    return (_ORDER.index(name) if name in _ORDER else len(_ORDER), name)


def _terminal_word(name: str, lark: Lark) -> str:
    if name in _TERMINAL_WORDS:
        return _TERMINAL_WORDS[name]
    pattern = lark.get_terminal(name).pattern
    return f"'{pattern.value}'" if isinstance(pattern, PatternStr) else "a token"


# ---------------------------------------------------------------- unsupported features


def _unsupported_feature(token: Token, stream: TokenStream) -> Optional[CompileError]:
    """An unsupported feature that explains the syntax error at `token`, if any."""
    follower = stream.peek(0)
    previous = _previous(token, stream)

    def adjacent(first: Token, second: Optional[Token]) -> bool:
        return second is not None and second.line == first.line and second.column == first.column + 1

    def unsupported(where: Token, what: str) -> CompileError:
        return stream.error_at(where, f"unsupported feature: {what}")

    if token.type == "PLUS" and follower is not None and follower.type == "EQUAL" and adjacent(token, follower):
        return unsupported(token, "+=")
    if token.type == "COLON" and follower is not None and follower.type == "EQUAL" and adjacent(token, follower):
        return unsupported(token, ":= (updateable variables)")
    closing = _closing_angle(stream) if token.type == "LT" else None
    if closing is not None:
        after = [stream.peek(closing + 1), stream.peek(closing + 2)]
        if [t.type if t is not None else None for t in after] == ["COLON", "EQUAL"]:
            return unsupported(token, ":= (updateable variables)")  # `x <incr> := 1;`
        if previous is not None and previous.type == "NAME" and previous == "bag":
            return unsupported(previous, "bag<T>")
        return unsupported(token, "type parameters <T>")
    if (
        token.type in _STRING_TYPES
        and previous is not None
        and previous.type in ("RPAR", "NAME")
        and follower is not None
        and follower.type in _STRING_TYPES
    ):
        return unsupported(token, "Tcl leaf functions")
    return _unsupported_in_statement(token, stream)


def _closing_angle(stream: TokenStream) -> Optional[int]:
    """If the next tokens read `NAME (, NAME)* >` (the rest of `<T, U>`), the lookahead index of `>`."""
    i = 0
    while True:
        name, separator = stream.peek(i), stream.peek(i + 1)
        if name is None or name.type != "NAME" or separator is None:
            return None
        if separator.type == "GT":
            return i + 1
        if separator.type != "COMMA":
            return None
        i += 2


def _unsupported_in_statement(token: Token, stream: TokenStream) -> Optional[CompileError]:
    """Look back through the current statement for `bag<` (as in `f(bag<int> b) {...}`)."""
    history = stream.consumed
    end = len(history) - 1 if history and history[-1] is token else len(history)
    start = end
    while start > 0 and history[start - 1].type not in _STATEMENT_BOUNDARY:
        start -= 1
    window = history[start:end]
    for tok, follower in zip(window, window[1:]):
        if tok.type == "NAME" and tok == "bag" and follower.type == "LT":
            return stream.error_at(tok, "unsupported feature: bag<T>")
    return None
