"""The `sys` module: script arguments, environment, sleep, clock, and running programs.

An argument starting with `-` is a flag: one or two leading dashes are
dropped, the key is the text before the first `=` and the value the text after
it (`""` if there is none); a later duplicate wins. Other arguments are
positionals, numbered from 1 (`argp(0)` is the script path).
"""

from __future__ import annotations

import math
import shlex
import subprocess
import time
from collections.abc import Sequence
from collections.abc import Mapping
from types import MappingProxyType
from typing import NamedTuple

from engine.errors import SwiftRuntimeError
from engine.runtime.builtins.context import BuiltinContext
from engine.runtime.builtins.spec import Table
from engine.runtime.builtins.textform import float_text, text_form

SYS = Table("sys")
TABLES = (SYS,)


class ScriptArgs(NamedTuple):
    """Script arguments split into flags (key -> value) and positionals."""

    flags: dict[str, str]
    positionals: tuple[str, ...]


def parse_script_args(args: Sequence[str]) -> ScriptArgs:
    """Split `args` per the rules in the module docstring."""
    flags: dict[str, str] = {}
    positionals: list[str] = []
    for arg in args:
        if not arg.startswith("-"):
            positionals.append(arg)
            continue
        body = arg[2:] if arg.startswith("--") else arg[1:]
        key, _, value = body.partition("=")
        flags[key] = value
    return ScriptArgs(flags, tuple(positionals))


@SYS.define("args", "() -> string")
def args(ctx: BuiltinContext) -> str:
    return " ".join(ctx.script_args)


@SYS.define("argc", "() -> int")
def argc(ctx: BuiltinContext) -> int:
    return len(parse_script_args(ctx.script_args).positionals)


@SYS.define("argp", "(int) -> string", "(int, string) -> string")
def argp(ctx: BuiltinContext, index: int, default: str | None = None) -> str:
    if index == 0:
        return ctx.script_path
    positionals = parse_script_args(ctx.script_args).positionals
    if 1 <= index <= len(positionals):
        return positionals[index - 1]
    if default is not None:
        return default
    raise SwiftRuntimeError(
        f"argp(): The command line did not provide positional argument {index} (argc() is {len(positionals)})"
    )


@SYS.define("argv", "(string) -> string", "(string, string) -> string")
def argv(ctx: BuiltinContext, key: str, default: str | None = None) -> str:
    flags = parse_script_args(ctx.script_args).flags
    if key in flags:
        return flags[key]
    if default is not None:
        return default
    raise SwiftRuntimeError(f"argv(): The command line did not provide '{key}'")


@SYS.define("argv_contains", "(string) -> boolean")
def argv_contains(ctx: BuiltinContext, key: str) -> bool:
    return key in parse_script_args(ctx.script_args).flags


@SYS.define("argv_accept", "(string...) -> void")
def argv_accept(ctx: BuiltinContext, *accepted: str) -> None:
    """Fail on the first flag (in command-line order) that is not in `accepted`."""
    for key in parse_script_args(ctx.script_args).flags:
        if key not in accepted:
            raise SwiftRuntimeError(f"argv_accept(): unknown argument '{key}'")


@SYS.define("getenv", "(string) -> string")
def getenv(ctx: BuiltinContext, name: str) -> str:
    return ctx.environ.get(name, "")


@SYS.define("sleep", "(int secs) -> void", "(float secs) -> void", where="worker")
def sleep(ctx: BuiltinContext, seconds: float) -> None:
    if not seconds >= 0 or math.isinf(seconds):
        raise SwiftRuntimeError(f"sleep(): cannot sleep for {float_text(float(seconds))} seconds")
    time.sleep(seconds)


@SYS.define("clock", "() -> float")
def clock(ctx: BuiltinContext) -> float:
    return time.time()


@SYS.define("clock_seconds", "() -> float")
def clock_seconds(ctx: BuiltinContext) -> float:
    """Seconds since the epoch (§13)."""
    return time.time()


CONSTANTS: Mapping[str, tuple[str, str, str]] = MappingProxyType({
    "CLOCK_FMT_ISO8601": ("string", "%Y-%m-%dT%H:%M:%S", "sys"),
    "CLOCK_FMT_RFC3339": ("string", "%Y-%m-%d %H:%M:%S", "sys"),
})


@SYS.define("clock_format", "(string fmt, int t) -> string", "(string fmt, float t) -> string")
def clock_format(ctx: BuiltinContext, fmt: str, seconds: float) -> str:
    """strftime of local time, `seconds` rounded to a whole second."""
    if not math.isfinite(seconds):
        raise SwiftRuntimeError(f"clock_format(): bad time {float_text(float(seconds))}")
    return time.strftime(fmt, time.localtime(round(seconds)))


@SYS.define("sleep_trace", "(int secs, scalar...) -> void", "(float secs, scalar...) -> void", where="worker")
def sleep_trace(ctx: BuiltinContext, seconds: float, *values: object) -> None:
    """Sleep, then trace the other arguments."""
    sleep(ctx, seconds)
    ctx.write_stdout("trace: " + ",".join(text_form(v) for v in values) + "\n")


def _run_program(argv: list[str], caller: str) -> tuple[str, int]:
    """Run `argv` directly (never through a shell); its stdout without the final
    newline (as Tcl's exec) and its exit status; a program that cannot start is status 127."""
    if not argv:
        raise SwiftRuntimeError(f"{caller}(): no command given")
    try:
        done = subprocess.run(argv, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, check=False)
    except OSError:
        return "", 127
    if done.returncode != 0:
        return "", done.returncode
    return done.stdout.decode("utf-8", "replace").removesuffix("\n"), 0


@SYS.define("system", "(string[]) -> string, int", where="worker")
def system(ctx: BuiltinContext, argv: dict[int, str]) -> tuple[str, int]:
    return _run_program([argv[k] for k in sorted(argv)], "system")


@SYS.define("system1", "(string command) -> string", where="worker")
def system1(ctx: BuiltinContext, command: str) -> str:
    """The command split into words as a shell would quote them, but run without a shell."""
    try:
        words = shlex.split(command)
    except ValueError as e:
        raise SwiftRuntimeError(f"system1(): cannot split '{command}' into words: {e}") from None
    return _run_program(words, "system1")[0]


@SYS.define("turbine_workers", "() -> int")
def turbine_workers(ctx: BuiltinContext) -> int:
    return ctx.worker_count


@SYS.define("turbine_engines", "() -> int")
def turbine_engines(ctx: BuiltinContext) -> int:
    """One: rank 0 is the only engine (§13)."""
    return 1


@SYS.define("adlb_servers", "() -> int")
def adlb_servers(ctx: BuiltinContext) -> int:
    """One: the engine rank holds all data, as one ADLB server would."""
    return 1


@SYS.define("zero", "(void) -> int")
def zero(ctx: BuiltinContext, _done: None) -> int:
    return 0
