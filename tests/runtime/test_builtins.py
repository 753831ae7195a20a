"""Every builtin of the standard library (spec §8), called through the registry."""

from __future__ import annotations

import io
import math
import os
import random
import time
from pathlib import Path
from typing import Any

import pytest

from engine.errors import SwiftRuntimeError
from engine.lang.types import parse_signature
from engine.runtime.builtins import BUILTINS, CONSTANTS, SimpleContext
from engine.runtime.builtins.core import (
    float_div,
    float_pow,
    int_div,
    int_mod,
    int_wrap,
)

INT_MAX, INT_MIN = 2**63 - 1, -(2**63)


@pytest.fixture
def ctx(tmp_path: Path) -> SimpleContext:
    return SimpleContext(
        script_args=["--n=5", "-v", "in.txt"],
        script_path="prog.swift",
        rng=random.Random(7),
        environ={"HOME": "/home/me"},
        temp_dir=str(tmp_path / "swifttmp"),
        stdout=io.StringIO(),
    )


def call(ctx: SimpleContext, name: str, *args: Any) -> Any:
    return BUILTINS[name].impl(ctx, *args)


def fails(ctx: SimpleContext, name: str, *args: Any) -> str:
    with pytest.raises(SwiftRuntimeError) as caught:
        call(ctx, name, *args)
    return str(caught.value)


def out(ctx: SimpleContext) -> str:
    assert isinstance(ctx.stdout, io.StringIO)
    return ctx.stdout.getvalue()


# ------------------------------------------------------------------ registry


def test_every_overload_parses_and_returns_one_value() -> None:
    several = {"stats": 2, "statagg": 3, "stat_combine": 3, "system": 2}  # §12's multi-output functions
    for name, builtin in BUILTINS.items():
        assert builtin.name == name
        assert builtin.overloads, name
        for text in builtin.overloads:
            assert len(parse_signature(text).outputs) == several.get(name, 1), (name, text)


def test_visibility_and_placement() -> None:
    modules = {name: b.module for name, b in BUILTINS.items()}
    assert modules["trace"] is None and modules["strcat"] is None and modules["size"] is None
    assert modules["toint"] is None and modules["input_file"] is None and modules["filename"] is None
    assert modules["printf"] == "io" and modules["sprintf"] == "string" and modules["split"] == "string"
    assert modules["argv"] == "sys" and modules["glob"] == "files" and modules["assertEqual"] == "assert"
    assert modules["sqrt"] == "math" and modules["randint"] == "random" and modules["avg"] == "stats"
    assert modules["python_persist"] == "python"
    workers = sorted(name for name, b in BUILTINS.items() if b.where == "worker")
    # python_persist keeps one namespace: on the engine; programs and sleeps block: on workers
    assert workers == ["python", "sleep", "sleep_trace", "system", "system1"]
    assert CONSTANTS["PI"] == ("float", math.pi, "math") and CONSTANTS["E"] == ("float", math.e, "math")


def test_int_overloads_come_before_float_ones() -> None:
    for name in ("min", "max", "pow", "abs", "sum", "ternary", "sleep", "sleep_trace", "stats", "clock_format"):
        first = str(parse_signature(BUILTINS[name].overloads[0]))
        assert "float" not in first.split("->")[0], name


def test_aliases_share_their_implementation() -> None:
    groups = [
        ("toint", "string2int"),
        ("tofloat", "string2float", "parseFloat"),
        ("fromint", "int2string"),
        ("fromfloat", "float2string"),
        ("bool2string", "boolean2string"),
        ("string2boolean", "string2bool"),
        ("int2float", "itof", "toFloat"),
        ("float2int", "toInt", "ftoi"),
        ("propagate", "make_void", "makeVoid"),
        ("input", "input_file"),
        ("join", "string_join"),
        ("replace_all", "replaceAll"),
        ("contains", "exists"),
        ("is_nan", "isNaN"),
        ("log", "ln"),
    ]
    for group in groups:
        assert len({BUILTINS[name].impl for name in group}) == 1, group


# ------------------------------------------------------------------ operator helpers


def test_int_division_truncates_toward_zero() -> None:
    assert [int_div(-7, 2), int_mod(-7, 2), int_mod(7, -2), int_div(7, -2)] == [-3, -1, 1, -3]
    assert [int_div(7, 2), int_mod(7, 2), int_div(-7, -2), int_mod(-7, -2)] == [3, 1, 3, -1]
    assert int_div(INT_MIN, -1) == INT_MIN  # wraps like 64-bit hardware
    for fn in (int_div, int_mod):
        with pytest.raises(SwiftRuntimeError, match="^divide by zero$"):
            fn(1, 0)


def test_int_wrap() -> None:
    assert int_wrap(INT_MAX + 1) == INT_MIN
    assert int_wrap(INT_MIN - 1) == INT_MAX
    assert int_wrap(2**64 + 5) == 5
    assert int_wrap(-5) == -5


def test_float_helpers_follow_ieee() -> None:
    assert float_div(1.0, 0.0) == math.inf and float_div(-1.0, 0.0) == -math.inf
    assert float_div(1.0, -0.0) == -math.inf and math.isnan(float_div(0.0, 0.0))
    assert float_div(7.0, 2.0) == 3.5
    assert float_pow(2, 3) == 8.0 and float_pow(2.0, -1.0) == 0.5
    assert float_pow(10.0, 400.0) == math.inf and float_pow(-10.0, 401.0) == -math.inf
    assert float_pow(0.0, -1.0) == math.inf and float_pow(-0.0, -1.0) == -math.inf
    assert float_pow(0.0, -2.0) == math.inf
    assert math.isnan(float_pow(-8.0, 1.0 / 3.0))


# ------------------------------------------------------------------ builtins


def test_trace(ctx: SimpleContext) -> None:
    assert call(ctx, "trace", 1, "a b", 2.5, True) is None
    call(ctx, "trace")
    call(ctx, "trace", "step", 1.0, -0.0, 1e17, False)
    assert out(ctx) == "trace: 1,a b,2.5,1\ntrace: \ntrace: step,1.0,-0.0,1e+17,0\n"


def test_strcat_dircat_length(ctx: SimpleContext) -> None:
    assert call(ctx, "strcat", "n=", 3, " x=", 0.5, True) == "n=3 x=0.51"
    assert call(ctx, "strcat") == ""
    assert call(ctx, "dircat", "a", "b", 3) == "a/b/3"
    assert call(ctx, "length", "héllo") == 5


def test_array_queries(ctx: SimpleContext) -> None:
    stock = {"fig": 12, "kiwi": 0, "lime": 5}
    assert call(ctx, "size", stock) == 3 and call(ctx, "size", {}) == 0
    assert call(ctx, "contains", stock, "kiwi") and not call(ctx, "contains", stock, "sun")
    assert call(ctx, "keys_string", {"b": 1, "a": 2, "c": 3}) == ["a", "b", "c"]
    assert call(ctx, "keys_integer", {10: "x", -2: "y", 3: "z"}) == [-2, 3, 10]


def test_string_to_int(ctx: SimpleContext) -> None:
    for name in ("toint", "string2int", "parseInt"):
        assert call(ctx, name, "007") == 7
        assert call(ctx, name, "  -42 ") == -42
        assert call(ctx, name, "+3") == 3
    assert call(ctx, "toint", "9223372036854775807") == INT_MAX
    assert call(ctx, "toint", "-9223372036854775808") == INT_MIN
    for bad in ("", "12b", "0x1f", "1.0", "- 1", "1 2", "9223372036854775808", "١٢"):
        assert fails(ctx, "toint", bad) == f"toint(): could not convert string '{bad}' to integer"
    assert fails(ctx, "string2int", "x") == "toint(): could not convert string 'x' to integer"


def test_parse_int_bases(ctx: SimpleContext) -> None:
    assert call(ctx, "parseInt", "ff", 16) == 255
    assert call(ctx, "parseInt", " -Zz ", 36) == -(35 * 36 + 35)
    assert call(ctx, "parseInt", "101", 2) == 5
    assert (
        fails(ctx, "parseInt", "102", 2) == "parseInt(): could not convert string '102' to integer in base 2"
    )
    assert fails(ctx, "parseInt", "0x1f", 16).startswith("parseInt(): could not convert")
    assert fails(ctx, "parseInt", "1", 37) == "parseInt(): base must be between 2 and 36, got 37"
    assert fails(ctx, "parseInt", "1", 1) == "parseInt(): base must be between 2 and 36, got 1"


def test_string_to_float(ctx: SimpleContext) -> None:
    for name in ("tofloat", "string2float", "parseFloat"):
        assert call(ctx, name, " 2.5 ") == 2.5
    assert call(ctx, "tofloat", "1e3") == 1000.0
    assert call(ctx, "tofloat", "-2.3E-2") == -0.023
    assert call(ctx, "tofloat", "7") == 7.0 and call(ctx, "tofloat", ".5") == 0.5
    assert call(ctx, "tofloat", "inf") == math.inf and call(ctx, "tofloat", "-Inf") == -math.inf
    assert math.isnan(call(ctx, "tofloat", "NaN"))
    for bad in ("", "abc", "1,5", "1_000", "0x10", "1e", "--1"):
        msg = f"string2float(): could not convert string '{bad}' to float"
        assert fails(ctx, "tofloat", bad) == msg
        assert fails(ctx, "parseFloat", bad) == msg


def test_to_string_family(ctx: SimpleContext) -> None:
    assert call(ctx, "fromint", -5) == "-5" and call(ctx, "int2string", 0) == "0"
    assert call(ctx, "fromfloat", 1e17) == "1e+17" and call(ctx, "float2string", 2.0) == "2.0"
    assert call(ctx, "toString", 3) == "3" and call(ctx, "toString", 0.5) == "0.5"
    assert call(ctx, "toString", True) == "true" and call(ctx, "toString", "s") == "s"
    assert call(ctx, "bool2string", False) == "false" and call(ctx, "boolean2string", True) == "true"


def test_string_to_boolean(ctx: SimpleContext) -> None:
    for word in ("true", "YES", "On", " true "):
        assert call(ctx, "string2boolean", word) is True
    for word in ("false", "No", "OFF"):
        assert call(ctx, "string2bool", word) is False
    assert call(ctx, "string2boolean", "0") is False and call(ctx, "string2boolean", "2") is True
    assert call(ctx, "string2boolean", "0.0") is False and call(ctx, "string2boolean", "-1.5") is True
    for bad in ("", "maybe", "nan", "t"):
        assert (
            fails(ctx, "string2boolean", bad)
            == f"string2boolean(): could not convert string '{bad}' to boolean"
        )


def test_numeric_conversions(ctx: SimpleContext) -> None:
    assert call(ctx, "int2float", 3) == 3.0 and isinstance(call(ctx, "itof", 3), float)
    assert call(ctx, "toFloat", -2) == -2.0
    assert (
        call(ctx, "float2int", 2.9) == 2 and call(ctx, "toInt", -2.9) == -2 and call(ctx, "ftoi", -0.5) == 0
    )
    assert call(ctx, "bool2int", True) == 1 and call(ctx, "bool2int", False) == 0
    assert fails(ctx, "float2int", math.nan) == "float2int(): could not convert float NaN to integer"
    assert fails(ctx, "ftoi", -math.inf) == "float2int(): could not convert float -Inf to integer"
    assert fails(ctx, "toInt", 1e30) == "float2int(): could not convert float 1e+30 to integer"


def test_min_max_pow_xor_ternary_propagate(ctx: SimpleContext) -> None:
    assert call(ctx, "min", 3, -4) == -4 and call(ctx, "max", 3, -4) == 3
    assert call(ctx, "min_integer", 1, 2) == 1 and call(ctx, "max_integer", 1, 2) == 2
    assert call(ctx, "min_float", 1.5, 2.5) == 1.5 and call(ctx, "max_float", 1.5, 2.5) == 2.5
    assert math.isnan(call(ctx, "max", 1.0, math.nan)) and math.isnan(call(ctx, "min", math.nan, 1.0))
    assert call(ctx, "pow", 2, 3) == 8.0 and isinstance(call(ctx, "pow_integer", 2, 3), float)
    assert call(ctx, "pow_float", 2.0, 0.5) == math.sqrt(2.0)
    assert call(ctx, "pow", 2, -1) == 0.5
    assert call(ctx, "xor", True, False) is True and call(ctx, "xor", True, True) is False
    assert call(ctx, "ternary", True, 1, 2) == 1 and call(ctx, "ternary", False, 1.5, 2.5) == 2.5
    assert call(ctx, "ternary_string", False, "a", "b") == "b"
    assert call(ctx, "propagate", 1, "x", {}) is None and call(ctx, "make_void") is None
    assert call(ctx, "makeVoid") is None


# ------------------------------------------------------------------ io and string


def test_printf(ctx: SimpleContext) -> None:
    call(ctx, "printf", "hello %s: %i items, %.2f each", "world", 7, 10.0 / 7)
    call(ctx, "printf", "line\n")
    call(ctx, "printf", "plain")
    assert out(ctx) == "hello world: 7 items, 1.43 each\nline\n\nplain\n"
    assert fails(ctx, "printf", "%d") == "printf(): not enough arguments for all format specifiers"


def test_sprintf_builtin(ctx: SimpleContext) -> None:
    assert call(ctx, "sprintf", "%s-%03d", "x", 7) == "x-007"


def test_strlen_substring(ctx: SimpleContext) -> None:
    assert call(ctx, "strlen", "") == 0 and call(ctx, "strlen", "日本語") == 3
    assert call(ctx, "substring", "hello", 1, 3) == "ell"
    assert call(ctx, "substring", "hello", 3, 10) == "lo"
    assert call(ctx, "substring", "hello", 7, 2) == ""
    assert call(ctx, "substring", "hello", -2, 3) == "h"
    assert call(ctx, "substring", "hello", 1, -1) == ""
    assert call(ctx, "substring", "日本語", 1, 1) == "本"


def test_find_and_count(ctx: SimpleContext) -> None:
    s = "abcabcabc"
    assert call(ctx, "find", s, "bc", 0, -1) == 1
    assert call(ctx, "find", s, "bc", 2, -1) == 4
    assert call(ctx, "find", s, "bc") == 1  # optional bounds
    assert call(ctx, "find", s, "bc", 5, 6) == -1  # would end after 6
    assert call(ctx, "find", s, "bc", 5, 9) == 7
    assert call(ctx, "find", s, "zz", 0, -1) == -1
    assert call(ctx, "find", s, "", 0, -1) == -1
    assert call(ctx, "find", s, "a", -3, -1) == 0
    assert call(ctx, "string_count", s, "abc", 0, -1) == 3
    assert call(ctx, "string_count", "aaaa", "aa", 0, -1) == 2  # non-overlapping
    assert call(ctx, "string_count", s, "abc", 1, -1) == 2
    assert call(ctx, "string_count", s, "abc", 0, 6) == 2
    assert call(ctx, "string_count", s, "", 0, -1) == 0


def test_replace(ctx: SimpleContext) -> None:
    assert call(ctx, "replace", "a-b-c", "-", "+", 0) == "a+b-c"
    assert call(ctx, "replace", "a-b-c", "-", "+", 2) == "a-b+c"
    assert call(ctx, "replace", "a-b-c", "x", "+", 0) == "a-b-c"
    assert call(ctx, "replace_all", "a-b-c", "-", "+", 0) == "a+b+c"
    assert call(ctx, "replace_all", "a-b-c-d", "-", "", 2) == "a-bcd"
    assert call(ctx, "replaceAll", "aaaa", "aa", "b") == "bb"
    assert call(ctx, "replaceAll", "abc", "", "x") == "abc"


def test_split(ctx: SimpleContext) -> None:
    assert call(ctx, "split", "a b c") == ["a", "b", "c"]
    assert call(ctx, "split", "a  b", " ") == ["a", "", "b"]
    assert call(ctx, "split", " a,b;c ", ",; ") == ["", "a", "b", "c", ""]
    assert call(ctx, "split", "", ",") == []
    assert call(ctx, "split", "abc", "") == ["a", "b", "c"]
    assert call(ctx, "split", "a.b", ".") == ["a", "b"]  # regex metacharacters are literal
    assert call(ctx, "split", "a]b^c", "]^") == ["a", "b", "c"]


def test_join(ctx: SimpleContext) -> None:
    assert call(ctx, "join", {2: "c", 0: "a", 1: "b"}) == "a b c"
    assert call(ctx, "string_join", {1: 2.5, 0: 1, 5: True}, ", ") == "1, 2.5, 1"
    assert call(ctx, "join", {"b": "y", "a": "x"}, "") == "xy"
    assert call(ctx, "join", {}, ",") == ""
    assert call(ctx, "join_args", "/", "a", 1, 2.0) == "a/1/2.0"
    assert call(ctx, "join_args", ",") == ""


def test_trim_case_isint(ctx: SimpleContext) -> None:
    assert call(ctx, "trim", " \t x y \n") == "x y"
    assert call(ctx, "toUpper", "abc-é") == "ABC-É" and call(ctx, "toLower", "ABC") == "abc"
    assert call(ctx, "isint", " -12 ") is True and call(ctx, "isint", "007") is True
    for bad in ("", "1.0", "12b", "0x1f", "99999999999999999999"):
        assert call(ctx, "isint", bad) is False


# ------------------------------------------------------------------ math, random, stats


def test_rounding(ctx: SimpleContext) -> None:
    assert [call(ctx, "round", x) for x in (2.5, -2.5, 0.49999999999999994, 1.4, -0.4)] == [
        3.0,
        -3.0,
        0.0,
        1.0,
        -0.0,
    ]
    assert call(ctx, "floor", -1.5) == -2.0 and call(ctx, "ceil", -1.5) == -1.0
    assert math.copysign(1, call(ctx, "ceil", -0.5)) == -1  # C's ceil gives -0.0
    for name in ("floor", "ceil", "round"):
        assert isinstance(call(ctx, name, 2.0), float)
        assert call(ctx, name, math.inf) == math.inf
        assert math.isnan(call(ctx, name, math.nan))


def test_logs_roots_exp(ctx: SimpleContext) -> None:
    assert call(ctx, "log", math.e) == 1.0 and call(ctx, "ln", 1.0) == 0.0
    assert call(ctx, "log", 8.0, 2.0) == pytest.approx(3.0)
    assert call(ctx, "log2", 8.0) == 3.0 and call(ctx, "log10", 1000.0) == 3.0
    assert call(ctx, "log", 0.0) == -math.inf and math.isnan(call(ctx, "log", -1.0))
    assert call(ctx, "log10", 0.0) == -math.inf and math.isnan(call(ctx, "log2", -1.0))
    assert call(ctx, "log", 5.0, 1.0) == math.inf  # log(1) = 0 divides by zero
    assert math.isnan(call(ctx, "sqrt", -1.0)) and call(ctx, "sqrt", 9.0) == 3.0
    assert call(ctx, "exp", 1000.0) == math.inf and call(ctx, "exp", 0.0) == 1.0
    assert call(ctx, "cbrt", -27.0) == -3.0 and call(ctx, "cbrt", 1e-300) == 1e-100
    assert all(call(ctx, "cbrt", float(i**3)) == i for i in range(-50, 51))
    assert call(ctx, "cbrt", 1.7976931348623157e308) == pytest.approx(5.643803094122362e102)


def test_trigonometry(ctx: SimpleContext) -> None:
    assert call(ctx, "sin", 0.0) == 0.0 and call(ctx, "cos", 0.0) == 1.0
    assert call(ctx, "tan", math.pi / 4) == pytest.approx(1.0)
    assert call(ctx, "atan2", 1.0, 1.0) == pytest.approx(math.pi / 4)
    assert call(ctx, "atan", math.inf) == pytest.approx(math.pi / 2)
    assert math.isnan(call(ctx, "asin", 2.0)) and math.isnan(call(ctx, "acos", -2.0))
    assert math.isnan(call(ctx, "sin", math.inf))


def test_abs_and_nan(ctx: SimpleContext) -> None:
    assert call(ctx, "abs", -3) == 3 and call(ctx, "abs", -2.5) == 2.5
    assert call(ctx, "abs_integer", INT_MIN) == INT_MIN  # wraps
    assert call(ctx, "abs_float", -0.0) == 0.0
    assert call(ctx, "is_nan", math.nan) is True and call(ctx, "isNaN", 1.0) is False


def test_random(ctx: SimpleContext) -> None:
    draws = [call(ctx, "random") for _ in range(500)]
    assert all(0.0 <= d < 1.0 for d in draws) and len(set(draws)) > 490
    ints = {call(ctx, "randint", 3, 6) for _ in range(500)}
    assert ints == {3, 4, 5}
    assert call(ctx, "randint", -2, -1) == -2
    assert fails(ctx, "randint", 5, 5) == "randint(): empty range [5, 5)"


def test_random_uses_the_context_generator(tmp_path: Path) -> None:
    a, b = SimpleContext(rng=random.Random(1)), SimpleContext(rng=random.Random(1))
    assert [call(a, "random") for _ in range(3)] == [call(b, "random") for _ in range(3)]


def test_stats(ctx: SimpleContext) -> None:
    ints = {1: 1, 0: 4, 2: 9, 3: 16, 4: 25}
    assert call(ctx, "sum_integer", ints) == 55 and call(ctx, "sum", ints) == 55
    assert call(ctx, "sum_integer", {0: INT_MAX, 1: 1}) == INT_MIN
    assert call(ctx, "sum_float", {0: 0.5, 1: 0.25}) == 0.75 and call(ctx, "sum", {0: 1.5}) == 1.5
    assert call(ctx, "sum_float", {}) == 0.0 and call(ctx, "sum_integer", {}) == 0
    floats = {"a": 0.1, "b": 0.2, "c": 0.3}
    assert call(ctx, "sum_float", floats) == (0.1 + 0.2) + 0.3  # ascending key order
    assert call(ctx, "avg", {0: 1, 1: 2}) == 1.5 and isinstance(call(ctx, "avg", {0: 2}), float)
    assert call(ctx, "std", {0: 2, 1: 4, 2: 4, 3: 4, 4: 5, 5: 5, 6: 7, 7: 9}) == 2.0
    assert call(ctx, "std", {0: 1.5}) == 0.0
    assert fails(ctx, "avg", {}) == "avg(): the array is empty"
    assert fails(ctx, "std", {}) == "std(): the array is empty"


# ------------------------------------------------------------------ sys


def test_sys_flags_and_positionals(ctx: SimpleContext) -> None:
    # the spec's example: --n=5 -v in.txt
    assert call(ctx, "argv", "n") == "5"
    assert call(ctx, "argv_contains", "v") is True and call(ctx, "argv", "v") == ""
    assert call(ctx, "argv_contains", "in.txt") is False
    assert call(ctx, "argc") == 1
    assert call(ctx, "argp", 1) == "in.txt" and call(ctx, "argp", 0) == "prog.swift"
    assert call(ctx, "args") == "--n=5 -v in.txt"
    assert call(ctx, "argv", "missing", "dflt") == "dflt"
    assert call(ctx, "argp", 2, "dflt") == "dflt"
    assert fails(ctx, "argv", "missing") == "argv(): The command line did not provide 'missing'"
    assert fails(ctx, "argp", 2) == (
        "argp(): The command line did not provide positional argument 2 (argc() is 1)"
    )


def test_sys_flag_rules() -> None:
    ctx = SimpleContext(script_args=["-a=1=2", "--b", "x", "---c=3", "-a=last", "-", "y z", "--e="])
    assert call(ctx, "argv", "a") == "last"  # key before the first '=', last duplicate wins
    assert call(ctx, "argv", "b") == "" and call(ctx, "argv", "-c") == "3"  # only two dashes drop
    assert call(ctx, "argv", "e") == "" and call(ctx, "argv_contains", "")
    assert call(ctx, "argc") == 2 and call(ctx, "argp", 2) == "y z"
    assert call(ctx, "args") == "-a=1=2 --b x ---c=3 -a=last - y z --e="


def test_argv_accept(ctx: SimpleContext) -> None:
    assert call(ctx, "argv_accept", "n", "v", "other") is None
    assert fails(ctx, "argv_accept", "n") == "argv_accept(): unknown argument 'v'"


def test_getenv_clock_sleep(ctx: SimpleContext) -> None:
    assert call(ctx, "getenv", "HOME") == "/home/me" and call(ctx, "getenv", "NOPE") == ""
    assert abs(call(ctx, "clock") - time.time()) < 5
    start = time.monotonic()
    assert call(ctx, "sleep", 0.05) is None and call(ctx, "sleep", 0) is None
    assert time.monotonic() - start >= 0.05
    assert fails(ctx, "sleep", -1.0) == "sleep(): cannot sleep for -1.0 seconds"
    assert fails(ctx, "sleep", math.nan) == "sleep(): cannot sleep for NaN seconds"


# ------------------------------------------------------------------ files


def test_write_and_read(ctx: SimpleContext, tmp_path: Path) -> None:
    path = call(ctx, "write", "quiet words\nsecond\r\n")
    assert path.endswith(".turbine") and path.startswith(str(tmp_path / "swifttmp"))
    assert Path(path).read_bytes() == b"quiet words\nsecond\r\n"
    assert call(ctx, "read", path) == "quiet words\nsecond\r\n"
    assert call(ctx, "write", "") != path  # a new file every time
    left = os.listdir(tmp_path / "swifttmp")
    assert len(left) == 2 and all(name.endswith(".turbine") for name in left)  # no temporaries
    missing = str(tmp_path / "nope.txt")
    assert (
        fails(ctx, "read", missing) == f"read(): could not read file '{missing}': No such file or directory"
    )


def test_read_undecodable_bytes(ctx: SimpleContext, tmp_path: Path) -> None:
    target = tmp_path / "bin"
    target.write_bytes(b"ok\xff\n")
    assert call(ctx, "read", str(target)) == "ok\ufffd\n"


def test_glob(ctx: SimpleContext, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("a1.txt", "a2.txt", "b1.txt", "c.dat", "x*y.txt", ".hidden.txt", "sub/d.txt"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text("")
    monkeypatch.chdir(tmp_path)
    assert call(ctx, "glob", "*.txt") == ["a1.txt", "a2.txt", "b1.txt", "x*y.txt"]
    assert call(ctx, "glob", "a?.txt") == ["a1.txt", "a2.txt"]
    assert call(ctx, "glob", "[ab]1.*") == ["a1.txt", "b1.txt"]
    assert call(ctx, "glob", "{c,b1}.*") == ["b1.txt", "c.dat"]
    assert call(ctx, "glob", "{a{1,2},c}.*") == ["a1.txt", "a2.txt", "c.dat"]
    assert call(ctx, "glob", "{a1,a?}.txt") == ["a1.txt", "a2.txt"]  # no duplicates
    assert call(ctx, "glob", "x\\*y.txt") == ["x*y.txt"]
    assert call(ctx, "glob", "*/d.txt") == ["sub/d.txt"]
    assert call(ctx, "glob", "*.none") == []
    assert call(ctx, "glob", str(tmp_path / "c.*")) == [str(tmp_path / "c.dat")]
    assert fails(ctx, "glob", "{a,b") == "glob(): unmatched open-brace in pattern '{a,b'"


def test_file_lines(ctx: SimpleContext, tmp_path: Path) -> None:
    source = tmp_path / "lines.txt"
    source.write_text("first\n  # only a comment\n\n  second # trailing\nthird;x\n   \nlast")
    assert call(ctx, "file_lines", str(source)) == {0: "first", 3: "second", 4: "third;x", 6: "last"}
    assert call(ctx, "file_lines", str(source), ";") == {
        0: "first",
        1: "# only a comment",
        3: "second # trailing",
        4: "third",
        6: "last",
    }
    assert call(ctx, "file_lines", str(source), "") == {
        0: "first",
        1: "# only a comment",
        3: "second # trailing",
        4: "third;x",
        6: "last",
    }
    assert fails(ctx, "file_lines", str(tmp_path / "x")).startswith("file_lines(): could not read file")


def test_file_exists_and_size(ctx: SimpleContext, tmp_path: Path) -> None:
    target = tmp_path / "f"
    target.write_bytes(b"12345")
    assert call(ctx, "file_exists", str(target)) is True
    assert call(ctx, "file_exists", str(tmp_path)) is True
    assert call(ctx, "file_exists", str(tmp_path / "g")) is False
    assert call(ctx, "file_size", str(target)) == 5
    missing = str(tmp_path / "g")
    assert fails(ctx, "file_size", missing) == (
        f"file_size(): could not read the size of '{missing}': No such file or directory"
    )


@pytest.mark.parametrize(
    ("path", "base", "directory", "root", "ext"),
    [
        ("x.txt", "x.txt", ".", "x", ".txt"),
        ("a", "a", ".", "a", ""),
        ("dir/sub/b.tar.gz", "b.tar.gz", "dir/sub", "dir/sub/b.tar", ".gz"),
        ("/abs/f", "f", "/abs", "/abs/f", ""),
        ("/f.c", "f.c", "/", "/f.c"[:-2], ".c"),
        ("a.b/c", "c", "a.b", "a.b/c", ""),
        ("a/b/", "b", "a", "a/b/", ""),
        (".bashrc", ".bashrc", ".", "", ".bashrc"),
        ("/", "", "/", "/", ""),
    ],
)
def test_path_pieces(ctx: SimpleContext, path: str, base: str, directory: str, root: str, ext: str) -> None:
    for suffix in ("", "_string"):
        assert call(ctx, "basename" + suffix, path) == base
        assert call(ctx, "dirname" + suffix, path) == directory
        assert call(ctx, "rootname" + suffix, path) == root
        assert call(ctx, "extension" + suffix, path) == ext


def test_mktemp(ctx: SimpleContext) -> None:
    first, second = call(ctx, "mktemp"), call(ctx, "mktemp_string")
    assert first != second
    for path in (first, second):
        assert path.endswith(".turbine") and os.path.isfile(path) and os.path.getsize(path) == 0


def test_temp_dir_defaults_follow_the_spec() -> None:
    assert SimpleContext(environ={"SWIFT_TMP": "/s", "TMP": "/t"}).temp_path().startswith("/s/")
    assert SimpleContext(environ={"TMP": "/t"}).temp_path().startswith("/t/")
    assert SimpleContext(environ={}).temp_path().startswith("/tmp/")


def test_input_and_filename(ctx: SimpleContext, tmp_path: Path) -> None:
    target = tmp_path / "in.txt"
    target.write_text("x")
    assert call(ctx, "input", str(target)) == str(target)
    assert call(ctx, "input_file", str(target)) == str(target)
    missing = str(tmp_path / "none.txt")
    assert fails(ctx, "input_file", missing) == f"input_file: file '{missing}' does not exist"
    assert fails(ctx, "input", missing) == f"input_file: file '{missing}' does not exist"
    assert call(ctx, "filename", "loud.txt") == "loud.txt"


# ------------------------------------------------------------------ assert


def test_assert(ctx: SimpleContext) -> None:
    assert call(ctx, "assert", True, "fine") is None and call(ctx, "assert", 2, "fine") is None
    assert fails(ctx, "assert", False, "x must hold") == "Assertion failed!: x must hold"
    assert fails(ctx, "assert", 0, "int zero") == "Assertion failed!: int zero"


def test_assert_comparisons(ctx: SimpleContext) -> None:
    assert call(ctx, "assertEqual", 1, 1, "m") is None and call(ctx, "assertEqual", "a", "a", "m") is None
    assert call(ctx, "assertLT", 1, 2, "m") is None and call(ctx, "assertLTE", 2.0, 2.0, "m") is None
    assert fails(ctx, "assertEqual", 1, 2, "ints") == "Assertion failed 1 != 2: ints"
    assert fails(ctx, "assertEqual", 0.5, 1e17, "floats") == "Assertion failed 0.5 != 1e+17: floats"
    assert fails(ctx, "assertEqual", "a", "b", "s") == "Assertion failed a != b: s"
    assert fails(ctx, "assertEqual", True, False, "b") == "Assertion failed 1 != 0: b"
    assert fails(ctx, "assertEqual", math.nan, math.nan, "n") == "Assertion failed NaN != NaN: n"
    assert fails(ctx, "assertLT", 2, 2, "lt") == "Assertion failed 2 >= 2: lt"
    assert fails(ctx, "assertLT", 3.5, 2.0, "lt") == "Assertion failed 3.5 >= 2.0: lt"
    assert fails(ctx, "assertLTE", 3, 2, "lte") == "Assertion failed 3 > 2: lte"
