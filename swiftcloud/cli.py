"""The `swiftcloud` command line: every package's commands under one parser, and `main()`.

    swiftcloud [--debug] COMMAND ...     (`swiftcloud --help` lists the commands)

Exit status: 0 success, 1 run-time error, 2 compile-time error (or bad usage),
130 interrupted. Program output goes to stdout; diagnostics to stderr. A command's
handler returns its status; an error it raises is mapped here: the user's errors
print one line, anything else is an internal error that asks to be reported.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from engine.errors import CompileError, CompileErrors, SwiftError, SwiftRuntimeError, UsageError
from hostkit.errors import EXIT_COMPILE, EXIT_INTERRUPTED, EXIT_RUNTIME, StorageConfigError, StorageError
from hostkit.startup import resume_collection
from swiftcloud import packages


class _OneCommand:
    """The subcommands' action as the packages see it, building only the command named `wanted`
    (all of them for None): a parser of every command costs each command's start about 10 ms,
    as much as a third of its imports. The others' parsers are `_Unbuilt`."""

    def __init__(self, sub: argparse._SubParsersAction, wanted: str | None) -> None:
        self._sub = sub
        self._wanted = wanted
        self.built = False

    def add_parser(self, name: str, **options: Any) -> Any:
        if self._wanted is not None and name != self._wanted:
            return _Unbuilt()
        self.built = True
        return self._sub.add_parser(name, **options)


class _Unbuilt:
    """A command's parser left unbuilt: whatever its package adds to it goes nowhere."""

    def __getattr__(self, name: str) -> Callable[..., _Unbuilt]:
        return lambda *args, **options: self

    def __setattr__(self, name: str, value: object) -> None:
        pass


def _command_word(argv: Sequence[str]) -> str | None:
    """The command `argv` names (its first word that is not an option), or None where the whole
    command line is wanted: no command, or help asked before it."""
    for word in argv:
        if word in ("-h", "--help"):
            return None
        if not word.startswith("-"):
            return word
    return None


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The command line, every package registered; of the commands, only the one `argv` names
    is built (all of them without `argv`, or where it names none we know)."""
    packages.register()
    wanted = _command_word(argv) if argv is not None else None
    parser, built = _parser(wanted)
    if wanted is not None and not built:  # not a command: argparse says so, listing them all
        parser, _ = _parser(None)
    return parser


def _parser(wanted: str | None) -> tuple[argparse.ArgumentParser, bool]:
    """The command line with only the command `wanted` built (all for None); and whether it was."""
    parser = argparse.ArgumentParser(
        prog="swiftcloud",
        description="Implicitly parallel Swift-style scripting for clusters and clouds.",
        epilog="Run 'swiftcloud COMMAND --help' for the options of one command.")
    parser.add_argument("--debug", action="store_true", default=bool(os.environ.get("SWIFTCLOUD_DEBUG")),
                        help="print the Python traceback of an internal error (also $SWIFTCLOUD_DEBUG=1)")
    commands = _OneCommand(parser.add_subparsers(dest="command", metavar="COMMAND"), wanted)
    packages.add_commands(commands)  # type: ignore[arg-type]  # the action's add_parser is all they use
    return parser, commands.built


def main(argv: Sequence[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(words)
    args = parser.parse_args(words)
    if args.command is None:
        parser.print_help(sys.stderr)
        return EXIT_COMPILE
    if not getattr(args, "resumes_collection", False):
        resume_collection()  # the command's work begins
    try:
        return args.handler(args)
    except CompileErrors as e:
        for err in e.errors:
            print(err, file=sys.stderr)
        return EXIT_COMPILE
    except CompileError as e:
        print(e, file=sys.stderr)
        return EXIT_COMPILE
    except SwiftRuntimeError as e:
        sys.stdout.flush()
        print(f"Swift: {e}", file=sys.stderr)
        return EXIT_RUNTIME
    except UsageError as e:
        print(f"swiftcloud: {e}", file=sys.stderr)
        return EXIT_COMPILE
    except SwiftError as e:
        print(f"swiftcloud: {e}", file=sys.stderr)
        return EXIT_RUNTIME
    except StorageError as e:
        print(f"swiftcloud: {e}", file=sys.stderr)
        return EXIT_COMPILE if isinstance(e, StorageConfigError) else EXIT_RUNTIME
    except KeyboardInterrupt:
        print("swiftcloud: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as error:  # noqa: BLE001 - the last line of defence: ours to fix, so say so
        sys.stdout.flush()
        if args.debug:
            import traceback  # deferred, as in internal_error_line

            traceback.print_exc()
        print(internal_error_line(error, args.debug), file=sys.stderr)
        return EXIT_RUNTIME


def internal_error_line(error: BaseException, shown: bool) -> str:
    """One line naming an internal error (a bug in swiftcloud, not in the script) and where it is."""
    import traceback  # deferred: only a bug needs it, and it costs every command's start 2 ms

    frames = traceback.extract_tb(error.__traceback__)
    where = f" at {os.path.basename(frames[-1].filename)}:{frames[-1].lineno}" if frames else ""
    how = "with the traceback above" if shown else "with your script; 'swiftcloud --debug ...' shows the traceback"
    return (f"swiftcloud: internal error: {type(error).__name__}: {error}{where}. This is a bug in swiftcloud:"
            f" please report it to the swiftcloud issue tracker {how}")
