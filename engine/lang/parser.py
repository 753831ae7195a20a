"""Front end of the compiler: script text to `engine.lang.ast.Module`.

Pipeline: `token_stream.TokenStream` lexes the text with the terminals of
`grammar.lark` (splicing `#include`d files, checking literals and catching
unsupported features early), its tokens are fed one by one to lark's LALR
parser (positions propagated), and `build_ast.AstBuilder` turns the parse tree
into AST dataclasses with `file`, `line`, `col` on every node. Any problem is
a `CompileError` at the offending token; `syntax_errors` words the message.
The grammar is compiled once per process.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Iterator, Sequence

from lark import Lark, Token
from lark.exceptions import UnexpectedToken, VisitError
from lark.lark import PostLex

from engine.errors import CompileError
from engine.lang import ast
from engine.lang.build_ast import AstBuilder
from engine.lang.syntax_errors import syntax_error
from engine.lang.sources import SourceFiles
from engine.lang.token_stream import TokenStream, normalize_source, read_source

GRAMMAR_PATH = Path(__file__).with_name("grammar.lark")


class _KeepErrorTerminals(PostLex):
    """Keeps the lexer's error-only terminals, which no grammar rule mentions.

    The token stream turns them into friendly errors (or, for a directive that
    is not first on its line, into a comment) before the parser sees them.
    """

    always_accept = ("BAD_FLOAT", "BAD_STRING", "BAD_MLSTRING", "BAD_DASHSTRING", "BAD_COMMENT", "DIRECTIVE")

    def process(self, stream: Iterator[Token]) -> Iterator[Token]:
        return stream


@functools.lru_cache(maxsize=1)
def grammar() -> Lark:
    """The LALR parser of `grammar.lark`, built on first use."""
    return Lark(
        GRAMMAR_PATH.read_text(encoding="utf-8"),
        parser="lalr",
        lexer="basic",
        propagate_positions=True,
        maybe_placeholders=True,
        postlex=_KeepErrorTerminals(),
        # Building the LALR tables takes ~0.3 s; lark caches them on disk keyed by
        # the grammar's hash, which makes every later start-up fast.
        cache=True,
    )


def parse_text(text: str, file: str = "<string>", include_dirs: Sequence[str] = (),
               files: SourceFiles | None = None) -> ast.Module:
    """Parse script `text`; `file` names it in positions and locates its `#include`s (the
    files looked at are recorded in `files`)."""
    lark = grammar()
    stream = TokenStream(lark, normalize_source(text), file, include_dirs, files or SourceFiles())
    parser = lark.parse_interactive()
    token = stream.eof
    try:
        for token in stream:
            parser.feed_token(token)
        token = stream.eof
        tree = parser.feed_token(token)
    except UnexpectedToken:
        raise syntax_error(token, parser.accepts(), stream, lark) from None
    try:
        return AstBuilder(stream.files, file).transform(tree)
    except VisitError as error:
        if isinstance(error.orig_exc, CompileError):
            raise error.orig_exc from None
        raise


def parse_file(path: str, include_dirs: Sequence[str] = (), files: SourceFiles | None = None) -> ast.Module:
    """Parse the script at `path` (UTF-8)."""
    files = files or SourceFiles()
    return parse_text(read_source(path, files), path, include_dirs, files)
