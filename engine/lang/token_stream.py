"""The tokens of a script, `#include`d files spliced in, checked before the parser sees them.

The parser is fed token by token from here, which lets this module:
- splice `#include "p"` / `#include <p>` textually (the directive is recognised
  only as the first thing on its line; elsewhere `#...` is a comment, and so is
  `# include` with a space, a `#!` line, or any `#word` that is not a C
  preprocessor directive); `#include <m.swift>` found nowhere on the search
  path means the standard library, as in STC, and reads as `import m;`;
- apply object-like macros (§12): `#define NAME text` replaces the token NAME
  from there on (in that file and what it includes) by the tokens of `text`,
  and `#ifdef` / `#ifndef` / `#else` / `#endif` keep or drop lines by whether
  a name is defined;
- reject other directives, reserved words, bad literals and unterminated
  strings or comments at their own position, in source order;
- turn `=` followed by `>` into one ARROW token (`=>` is two tokens in the
  language; they can only mean a chain);
- mark the word after `@name=` as ANNOT_WORD when a definition's output list
  follows (`@dispatch=WORKER (int o) f(...)`), since otherwise `WORKER (`
  would read as a call;
- reject unsupported features recognisable from a few tokens (`@par`,
  `import "path"`, `blob`, `updateable`, `iterate`, `pragma`).

Every token gets a global index in `start_pos`; `files[index]` names its file,
which is how AST nodes built from an included file carry that file's name.
"""

from __future__ import annotations

import os
import re
from collections import deque
from types import MappingProxyType
from typing import Iterator, Optional, Sequence, Union

from lark import Lark, Token
from lark.exceptions import UnexpectedCharacters

from engine.errors import CompileError
from engine.lang.literals import LiteralError, float_value, int_value, string_value
from engine.lang.sources import SourceFiles

_UNION_TYPE_AHEAD = re.compile(r"\|[ \t]*[A-Za-z_]")
_DEFINE = re.compile(r"#define[ \t]+([A-Za-z_][A-Za-z0-9_]*)(\(?)[ \t]*(.*?)[ \t]*(?://.*)?$")
_CONDITION = re.compile(r"#(ifdef|ifndef)[ \t]+([A-Za-z_][A-Za-z0-9_]*)[ \t]*(?://.*)?$")
_INCLUDE = re.compile(r'#include[ \t]*(?:"([^"\n]+)"|<([^>\n]+)>)[ \t]*(?://.*|/\*.*)?$')
_LIBRARY_INCLUDE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\.swift$")
_RESERVED_UNUSED = frozenset({"builtin", "until"})
_UNSUPPORTED_WORDS = MappingProxyType({"iterate": "iterate ... until", "pragma": "pragma"})
_UNSUPPORTED_ANNOTATIONS = MappingProxyType({"par": "@par", "checkpoint": "@checkpoint (checkpointing)"})
_STRING_TYPES = frozenset({"STRING", "MLSTRING", "DASHSTRING"})
_LEXICAL_ERRORS = MappingProxyType({
    "BAD_STRING": "unterminated string",
    "BAD_MLSTRING": "unterminated string",
    "BAD_DASHSTRING": "unterminated string",
    "BAD_COMMENT": "unterminated comment",
})

Item = Union[Token, CompileError]


def normalize_source(text: str) -> str:
    """Drop a byte-order mark and use `\\n` line ends, so columns and string values agree."""
    return text.removeprefix("\ufeff").replace("\r\n", "\n")


def read_source(path: str, files: SourceFiles) -> str:
    """Read a script as UTF-8 (recorded in `files`); a missing or undecodable file is a
    `CompileError`."""
    try:
        data = files.read_bytes(path)
    except OSError as error:
        raise CompileError(path, 1, 1, f"cannot read file: {error.strerror}") from error
    try:
        return normalize_source(data.decode("utf-8"))
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        col = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
        raise CompileError(path, line, col, "file is not valid UTF-8") from error


class TokenStream:
    """Iterates over the checked tokens of one script, with lookahead and history."""

    def __init__(self, lark: Lark, text: str, file: str, include_dirs: Sequence[str], files: SourceFiles) -> None:
        self._lark = lark
        self._include_dirs = list(include_dirs)
        self._files = files
        self.files: list[str] = []
        self.consumed: list[Token] = []
        self._pending: deque[Item] = deque()
        root = (os.path.realpath(file),) if files.is_file(file) else ()
        self._macros: dict[str, list[Token]] = {}
        self._source = self._lex_file(text, file, root)
        self._exhausted = False
        self.eof = self._eof_token(text, file)

    def __iter__(self) -> Iterator[Token]:
        while (token := self._next_token()) is not None:
            yield token

    def file_of(self, token: Token) -> str:
        """The file a token came from."""
        return self.files[token.start_pos]

    def peek(self, ahead: int) -> Optional[Token]:
        """The token `ahead` places after the last consumed one (0 = next), if lexable."""
        while len(self._pending) <= ahead and not self._exhausted:
            self._pull()
        if ahead < len(self._pending) and isinstance(self._pending[ahead], Token):
            return self._pending[ahead]
        return None

    def error_at(self, token: Token, message: str) -> CompileError:
        """A compile error located at `token`."""
        return CompileError(self.file_of(token), token.line, token.column, message)

    # ------------------------------------------------------------ consuming

    def _next_token(self) -> Optional[Token]:
        if self.peek(0) is None and not self._pending:
            return None
        item = self._pending.popleft()
        if isinstance(item, CompileError):
            raise item
        token = item
        follower = self.peek(0)
        if token.type == "EQUAL" and follower is not None and follower.type == "GT":
            self._pending.popleft()
            token = Token.new_borrow_pos("ARROW", "=>", token)
        elif token.type == "AT":
            self._check_annotation(token)
        elif token.type == "IMPORT" and follower is not None and follower.type in _STRING_TYPES:
            raise self.error_at(token, 'unsupported feature: import "path"')
        elif token.type == "NAME":
            self._check_name(token)
        self.consumed.append(token)
        return token

    def _check_annotation(self, at: Token) -> None:
        name = self.peek(0)
        if name is None or name.type != "NAME":
            return
        if name.value in _UNSUPPORTED_ANNOTATIONS:
            raise self.error_at(at, f"unsupported feature: {_UNSUPPORTED_ANNOTATIONS[name.value]}")
        # `@name=WORD (T x) f(...)`: WORD is an annotation value before a definition's outputs.
        if self._shape(1, 5) == ["EQUAL", "NAME", "LPAR", "NAME", "NAME"]:
            self.peek(2).type = "ANNOT_WORD"

    def _check_name(self, token: Token) -> None:
        if token.value == "blob" and self._shape(0, 1) == ["NAME"]:
            raise self.error_at(token, "unsupported feature: blob")
        # STC spells updateables `updateable_float x = 1.0;` (older: `updateable float x`).
        if token.value.startswith("updateable") and self._shape(0, 1) == ["NAME"]:
            raise self.error_at(token, "unsupported feature: updateable variables")

    def _shape(self, start: int, count: int) -> list[Optional[str]]:
        """Types of `count` tokens of lookahead from `start` (None past the end)."""
        tokens = [self.peek(i) for i in range(start, start + count)]
        return [t.type if t is not None else None for t in tokens]

    # ------------------------------------------------------------ lexing

    def _pull(self) -> None:
        """Move one item from the lexer into the lookahead buffer."""
        try:
            token, file = next(self._source)
        except StopIteration:
            self._exhausted = True
            return
        if isinstance(token, CompileError):
            self._exhausted = True
            self._pending.append(token)
            return
        token.start_pos = len(self.files)
        self.files.append(file)
        self._pending.append(token)

    def _lex_file(self, text: str, file: str, including: tuple[str, ...]) -> Iterator[tuple[Item, str]]:
        """Tokens of one file (included files spliced in); stops after the first error."""
        tokens = self._lark.lex(text)
        conditions = _Conditions(file)
        while True:
            try:
                token = next(tokens)
            except StopIteration:
                if (problem := conditions.unclosed()) is not None:
                    yield problem, file
                return
            except UnexpectedCharacters as error:
                if conditions.active:
                    yield _bad_character(error, text, file), file
                    return
                tokens = self._lark.lex(_blank_through_line(text, error.pos_in_stream))
                continue
            if token.type == "DIRECTIVE":
                if not _starts_line(text, token.start_pos):
                    continue
                word = token.value.split()[0][1:]
                if word in _Conditions.WORDS:
                    problem = conditions.apply(token, word, self._macros)
                    if problem is not None:
                        yield problem, file
                        return
                elif conditions.active:
                    yield from self._directive(token, file, including)
                continue
            if not conditions.active:
                continue
            problem = _check_token(token, file)
            if problem is not None:
                yield problem, file
                return
            if token.type == "NAME" and token.value in self._macros:
                for expanded in self._expand(token, frozenset()):
                    yield expanded, file
            else:
                yield token, file

    def _expand(self, use: Token, expanding: frozenset[str]) -> Iterator[Token]:
        """The tokens a macro use stands for, at the use's position (nested macros
        expanded, a macro never inside its own expansion, as in C)."""
        for body in self._macros[use.value]:
            if body.type == "NAME" and body.value in self._macros and body.value not in expanding | {use.value}:
                yield from self._expand(Token.new_borrow_pos(body.type, body.value, use), expanding | {use.value})
            else:
                yield Token.new_borrow_pos(body.type, body.value, use)

    def _define(self, token: Token, file: str) -> Optional[CompileError]:
        """Record `#define NAME text`; only object-like macros are supported."""
        match = _DEFINE.match(token.value.rstrip())
        if match is None:
            return CompileError(file, token.line, token.column, "malformed #define: expected #define NAME text")
        name, paren, body = match.groups()
        if paren:
            return CompileError(file, token.line, token.column,
                                "unsupported feature: function-like macro (only #define NAME text is supported)")
        tokens: list[Token] = []
        try:
            for body_token in self._lark.lex(body):
                problem = _check_token(body_token, file)
                if problem is not None:
                    return CompileError(file, token.line, token.column, f"bad #define of {name}: {problem.message}")
                if body_token.type not in ("DIRECTIVE", "HASH_COMMENT"):
                    tokens.append(body_token)
        except UnexpectedCharacters as error:
            return CompileError(file, token.line, token.column,
                                f"bad #define of {name}: unexpected character '{error.char}'")
        self._macros[name] = tokens
        return None

    def _directive(self, token: Token, file: str, including: tuple[str, ...]) -> Iterator[tuple[Item, str]]:
        def error(message: str) -> tuple[Item, str]:
            return CompileError(file, token.line, token.column, message), file

        if token.value.startswith("#define"):
            problem = self._define(token, file)
            if problem is not None:
                yield problem, file
            return
        if not token.value.startswith("#include"):
            word = token.value.split()[0]
            yield error(f"unsupported feature: preprocessor directive {word}")
            return
        match = _INCLUDE.match(token.value.rstrip())
        if match is None:
            yield error('malformed #include: expected #include "file" or #include <file>')
            return
        name = match.group(1) or match.group(2)
        path = self._find_include(name, file)
        library = _LIBRARY_INCLUDE.match(name) if match.group(2) else None
        if path is None and library is not None:
            yield from _library_import(token, library.group(1), file)
            return
        if path is None:
            yield error(f"cannot find include file '{name}'")
            return
        real = os.path.realpath(path)
        if real in including:
            yield error(f"#include cycle: '{name}' is already being included")
            return
        try:
            text = read_source(path, self._files)
        except CompileError as problem:
            yield error(f"cannot include '{name}': {problem.message}")
            return
        yield from self._lex_file(text, path, including + (real,))

    def _find_include(self, name: str, including_file: str) -> Optional[str]:
        """Search beside the including file, then each include directory, then the cwd."""
        beside = os.path.join(os.path.dirname(including_file), name)
        candidates = [beside] + [os.path.join(d, name) for d in self._include_dirs] + [name]
        return next((os.path.normpath(c) for c in candidates if self._files.is_file(c)), None)

    def _eof_token(self, text: str, file: str) -> Token:
        """`$END`, placed just after the last character of the main file."""
        body = text.rstrip()
        line = body.count("\n") + 1
        col = len(body) - (body.rfind("\n") + 1) + 1
        token = Token("$END", "", 0, line, col, line, col, 0)
        self.files.append(file)
        token.start_pos = len(self.files) - 1
        return token


class _Conditions:
    """The `#ifdef` / `#ifndef` / `#else` / `#endif` nesting of one file."""

    WORDS = frozenset({"ifdef", "ifndef", "else", "endif"})

    def __init__(self, file: str) -> None:
        self.file = file
        # One entry per open #ifdef: (its token, lines kept, inside its #else).
        self.stack: list[tuple[Token, bool, bool]] = []
        self.active = True

    def apply(self, token: Token, word: str, macros: dict[str, list[Token]]) -> Optional[CompileError]:
        """Update the nesting for one directive; an error if it is malformed or unmatched."""
        if word in ("ifdef", "ifndef"):
            match = _CONDITION.match(token.value.rstrip())
            if match is None:
                return self._error(token, f"malformed #{word}: expected #{word} NAME")
            keep = (match.group(2) in macros) == (word == "ifdef")
            self.stack.append((token, keep, False))
        elif not self.stack:
            return self._error(token, f"#{word} without #ifdef or #ifndef")
        elif word == "else":
            opened, keep, in_else = self.stack[-1]
            if in_else:
                return self._error(token, "#else after #else")
            self.stack[-1] = (opened, not keep, True)
        else:
            self.stack.pop()
        self.active = all(keep for _, keep, _ in self.stack)
        return None

    def unclosed(self) -> Optional[CompileError]:
        """At the end of the file: an error at the first #ifdef/#ifndef left open."""
        if not self.stack:
            return None
        opened = self.stack[0][0]
        return self._error(opened, f"{opened.value.split()[0]} without #endif")

    def _error(self, token: Token, message: str) -> CompileError:
        return CompileError(self.file, token.line, token.column, message)


def _blank_through_line(text: str, pos: int) -> str:
    """`text` with everything up to the end of the line holding `pos` blanked
    (newlines kept, so later positions stay right): lexing resumes there."""
    end = text.find("\n", pos)
    end = len(text) if end < 0 else end
    return re.sub(r"[^\n]", " ", text[:end]) + text[end:]


def _library_import(token: Token, module: str, file: str) -> Iterator[tuple[Item, str]]:
    """Tokens of `import module;` for the directive `#include <module.swift>`.

    Old Swift/T scripts include the standard library this way; STC finds it in
    its own library directory. `builtins.swift` needs nothing: builtins are
    always visible. Any other module is imported, so the checker knows it (or
    reports it unknown) at the directive's position.
    """
    if module == "builtins":
        return
    name_col = token.column + token.value.index(module, len("#include"))
    words = (("IMPORT", "import", token.column), ("NAME", module, name_col), ("SEMICOLON", ";", name_col))
    for kind, text, col in words:
        yield Token(kind, text, 0, token.line, col, token.line, col, 0), file


def _starts_line(text: str, pos: int) -> bool:
    """Is only blank space between the start of the line and `pos`?"""
    return text[text.rfind("\n", 0, pos) + 1 : pos].strip() == ""


def _check_token(token: Token, file: str) -> Optional[CompileError]:
    """Set the value of a literal token; return the error if the token is not acceptable."""
    def error(message: str, offset: int = 0) -> CompileError:
        before = token[:offset]
        line = token.line + before.count("\n")
        col = offset - (before.rfind("\n") + 1) + 1 if "\n" in before else token.column + offset
        return CompileError(file, line, col, message)

    kind = token.type
    try:
        if kind == "INT":
            token.value = int_value(token)
        elif kind in ("FLOAT", "INF", "NAN"):
            token.value = float_value(token)
        elif kind in _STRING_TYPES:
            token.value = string_value(token)
    except LiteralError as problem:
        return error(problem.message, problem.offset)
    if kind in _LEXICAL_ERRORS:
        return error(_LEXICAL_ERRORS[kind])
    if kind == "BAD_FLOAT":
        return error(f"invalid number '{token}': a float needs digits on both sides of the '.'")
    if kind == "NAME" and token in _UNSUPPORTED_WORDS:
        return error(f"unsupported feature: {_UNSUPPORTED_WORDS[token]}")
    if kind == "NAME" and token in _RESERVED_UNUSED:
        return error(f"'{token}' is a reserved word")
    return None


def _bad_character(error: UnexpectedCharacters, text: str, file: str) -> CompileError:
    char = error.char
    pos = error.pos_in_stream
    if char == "|" and _UNION_TYPE_AHEAD.match(text, pos) and text[:pos].rstrip()[-1:].isalnum():
        message = "unsupported feature: union types"
    elif char.isprintable():
        message = f"unexpected character '{char}'"
    else:
        message = f"unexpected character U+{ord(char):04X}"
    return CompileError(file, error.line, error.column, message)
