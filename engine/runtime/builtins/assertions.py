"""The `assert` module; failure messages follow Turbine, values in text form."""

from __future__ import annotations

from typing import Any

from engine.errors import SwiftRuntimeError
from engine.runtime.builtins.context import BuiltinContext
from engine.runtime.builtins.spec import Table
from engine.runtime.builtins.textform import text_form

ASSERT = Table("assert")
TABLES = (ASSERT,)

_EACH_SCALAR = tuple(f"({t}, {t}, string) -> void" for t in ("int", "float", "string", "boolean"))
_EACH_NUMBER = _EACH_SCALAR[:2]


@ASSERT.define("assert", "(boolean, string) -> void", "(int, string) -> void")
def assert_true(ctx: BuiltinContext, condition: bool | int, message: str) -> None:
    if not condition:
        raise SwiftRuntimeError(f"Assertion failed!: {message}")


@ASSERT.define("assertEqual", *_EACH_SCALAR)
def assert_equal(ctx: BuiltinContext, a: Any, b: Any, message: str) -> None:
    if not a == b:
        raise SwiftRuntimeError(f"Assertion failed {text_form(a)} != {text_form(b)}: {message}")


@ASSERT.define("assertLT", *_EACH_NUMBER)
def assert_less(ctx: BuiltinContext, a: float, b: float, message: str) -> None:
    if not a < b:
        raise SwiftRuntimeError(f"Assertion failed {text_form(a)} >= {text_form(b)}: {message}")


@ASSERT.define("assertLTE", *_EACH_NUMBER)
def assert_less_equal(ctx: BuiltinContext, a: float, b: float, message: str) -> None:
    if not a <= b:
        raise SwiftRuntimeError(f"Assertion failed {text_form(a)} > {text_form(b)}: {message}")
