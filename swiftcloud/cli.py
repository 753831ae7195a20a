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
from collections.abc import Sequence

from engine.errors import CompileError, CompileErrors, SwiftError, SwiftRuntimeError, UsageError
from hostkit.errors import EXIT_COMPILE, EXIT_INTERRUPTED, EXIT_RUNTIME, StorageConfigError, StorageError
from hostkit.startup import resume_collection
from swiftcloud import packages


def build_parser() -> argparse.ArgumentParser:
    """The whole command line, every package registered and its commands added."""
    packages.register()
    parser = argparse.ArgumentParser(
        prog="swiftcloud",
        description="Implicitly parallel Swift-style scripting for clusters and clouds.",
        epilog="Run 'swiftcloud COMMAND --help' for the options of one command.")
    parser.add_argument("--debug", action="store_true", default=bool(os.environ.get("SWIFTCLOUD_DEBUG")),
                        help="print the Python traceback of an internal error (also $SWIFTCLOUD_DEBUG=1)")
    packages.add_commands(parser.add_subparsers(dest="command", metavar="COMMAND"))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
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
