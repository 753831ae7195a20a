"""The `sys` module: script arguments, environment, sleep and clock.

An argument starting with `-` is a flag: one or two leading dashes are
dropped, the key is the text before the first `=` and the value the text after
it (`""` if there is none); a later duplicate wins. Other arguments are
positionals, numbered from 1 (`argp(0)` is the script path).
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass

from engine.errors import SwiftRuntimeError
from engine.runtime.builtins.context import BuiltinContext
from engine.runtime.builtins.spec import Table
from engine.runtime.builtins.textform import float_text

SYS = Table("sys")
TABLES = (SYS,)


@dataclass(frozen=True)
class ScriptArgs:
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
