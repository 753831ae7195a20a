"""The two error families every stage raises, as in Swift/T's STC.

User errors are ours to explain: a compile error prints `file:line:col: message`
and exits 2; a run-time error prints `Swift: message` and exits 1. Anything else
that escapes is an internal error and the CLI asks the user to report it.
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_RUNTIME = 1
EXIT_COMPILE = 2


class SwiftError(Exception):
    """Base of the errors that are the user's to fix (never printed with a traceback)."""


class CompileError(SwiftError):
    """A compile-time error (or warning) at a source position."""

    def __init__(self, file: str, line: int, col: int, message: str, warning: bool = False) -> None:
        super().__init__(message)
        self.file = file
        self.line = line
        self.col = col
        self.message = message
        self.warning = warning

    def __str__(self) -> str:
        kind = "warning: " if self.warning else ""
        return f"{self.file}:{self.line}:{self.col}: {kind}{self.message}"

    def __reduce__(self) -> tuple[type, tuple[str, int, int, str, bool]]:
        # A compiled script keeps its warnings (engine.script_cache): rebuilt from all five fields.
        return CompileError, (self.file, self.line, self.col, self.message, self.warning)


class CompileErrors(SwiftError):
    """Several compile errors found in one pass, reported together in source order."""

    def __init__(self, errors: list[CompileError]) -> None:
        super().__init__("\n".join(str(e) for e in errors))
        self.errors = errors


class SwiftRuntimeError(SwiftError):
    """A run-time error of the program (assertion, app failure, bad conversion, ...)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class UsageError(SwiftError):
    """A bad command line or configuration given to the CLI."""
