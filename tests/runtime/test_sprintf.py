"""sprintf with Tcl `format` semantics (spec §8 string); expectations come from tclsh 8.6."""

from __future__ import annotations

import math
import shutil
import subprocess

import pytest

from engine.errors import SwiftRuntimeError
from engine.runtime.builtins.sprintf import sprintf

# (format, arguments, expected) -- each verified against Tcl 8.6 `format` (see the last test).
TCL_CASES = [
    ("%d", [42], "42"),
    ("%i", [-7], "-7"),
    ("%5d|%-5d|", [-3, -3], "   -3|-3   |"),
    ("%+d % d", [5, 5], "+5  5"),
    ("%+05d", [-3], "-0003"),
    ("% 05d", [3], " 0003"),
    ("%-05d", [3], "00003"),
    ("%.3d", [5], "005"),
    ("%.2d", [-5], "-05"),
    ("%+.3d", [5], "+005"),
    ("%+08.3d", [5], "    +005"),
    ("%-8.3d|", [-5], "-005    |"),
    ("%.0d", [0], "0"),
    ("%u", [5], "5"),
    ("%u", [-1], "18446744073709551615"),
    ("%+u", [5], "5"),
    ("%o", [8], "10"),
    ("%#o", [15], "017"),
    ("%#o", [0], "0"),
    ("%#.3o", [8], "010"),
    ("%#.4o", [8], "0010"),
    ("%#08o", [8], "00000010"),
    ("%o", [-1], "1777777777777777777777"),
    ("%x %X", [255, 255], "ff FF"),
    ("%#x %#X", [255, 255], "0xff 0XFF"),
    ("%#x", [0], "0x0"),
    ("%x", [-1], "ffffffffffffffff"),
    ("%05x", [255], "000ff"),
    ("%#08x", [255], "0x0000ff"),
    ("%#-8x|", [255], "0xff    |"),
    ("%#8.3x", [5], "   0x005"),
    ("%08.2x", [255], "      ff"),
    ("%+x", [5], "5"),
    ("%hd %ld %lld", [1, 2, 3], "1 2 3"),
    ("%i", [True], "1"),
    ("%d", [False], "0"),
    ("%c", [65], "A"),
    ("%-5c|", [66], "B    |"),
    ("%05c", [65], "0000A"),
    ("%c", [0x263A], "\u263a"),
    ("%s", ["abc"], "abc"),
    ("%5s|%-5s|", ["ab", "ab"], "   ab|ab   |"),
    ("%05s", ["ab"], "000ab"),
    ("%-05s", ["ab"], "ab000"),
    ("%.2s", ["abcdef"], "ab"),
    ("%5.1s", ["abc"], "    a"),
    ("%s %s %s", [1.5, 7, True], "1.5 7 1"),
    ("%s", [1e17], "1e+17"),
    ("%f", [1], "1.000000"),
    ("%f", [3.14159], "3.141590"),
    ("%.2f", [1.005], "1.00"),
    ("%.1f", [0.05], "0.1"),
    ("%.f", [2.5], "2"),
    ("%.f", [3.5], "4"),
    ("%-8.3f|", [3.14159], "3.142   |"),
    ("%+08.3f", [3.14159], "+003.142"),
    ("% 08.3f", [3.14159], " 003.142"),
    ("%05.1f", [-2.5], "-02.5"),
    ("%#.0f", [3], "3."),
    ("%e", [0], "0.000000e+00"),
    ("%5.1e", [12345.678], "1.2e+04"),
    ("%010.3e", [-1234.5], "-1.234e+03"),
    ("%E", [12345.678], "1.234568E+04"),
    ("%#.0e", [1], "1.e+00"),
    ("%g", [100000], "100000"),
    ("%g", [1000000], "1e+06"),
    ("%g", [0.0001], "0.0001"),
    ("%g", [1e-5], "1e-05"),
    ("%g", [123456789.0], "1.23457e+08"),
    ("%G", [1e-10], "1E-10"),
    ("%#g", [1.0], "1.00000"),
    ("%#.3g", [1], "1.00"),
    ("%.3g", [1e300], "1e+300"),
    ("%f", [math.inf], "inf"),
    ("%08.2f", [-math.inf], "    -inf"),
    ("%E", [math.inf], "INF"),
    ("%+f", [math.inf], "+inf"),
    ("100%% sure", [], "100% sure"),
    ("%d%%", [5], "5%"),
    ("no specifiers", [], "no specifiers"),
    ("%d", [1, 2], "1"),
    ("%s=%d", ["x", 3, "extra"], "x=3"),
]


@pytest.mark.parametrize(("fmt", "args", "expected"), TCL_CASES)
def test_matches_tcl(fmt: str, args: list[object], expected: str) -> None:
    assert sprintf(fmt, args) == expected


def test_nan_prints_like_c() -> None:
    # Tcl refuses NaN; the spec lets floats be NaN, so we print C's form.
    assert sprintf("%f|%5.1f|%G", [math.nan, math.nan, math.nan]) == "nan|  nan|NAN"


def test_spec_example() -> None:
    assert (
        sprintf("hello %s: %i items, %.2f each", ["world", 7, 10.0 / 7]) == "hello world: 7 items, 1.43 each"
    )


@pytest.mark.parametrize(
    ("fmt", "args", "message"),
    [
        ("%d %d", [1], "sprintf(): not enough arguments for all format specifiers"),
        ("%s", [], "sprintf(): not enough arguments for all format specifiers"),
        ("%q", [], "sprintf(): not enough arguments for all format specifiers"),
        ("%q", [1], 'sprintf(): bad field specifier "q"'),
        ("%5%", [1], 'sprintf(): bad field specifier "%"'),
        ("%b", [5], 'sprintf(): bad field specifier "b"'),
        ("%*d", [5, 1], 'sprintf(): bad field specifier "*"'),
        ("abc %", [1], "sprintf(): format string ended in middle of field specifier"),
        ("%-", [1], "sprintf(): format string ended in middle of field specifier"),
        ("%d", [1.0], "sprintf(): %d needs an int or boolean, got float 1.0"),
        ("%x", ["12"], "sprintf(): %x needs an int or boolean, got string '12'"),
        ("%c", [2.5], "sprintf(): %c needs an int or boolean, got float 2.5"),
        ("%f", ["1.5"], "sprintf(): %f needs an int or float, got string '1.5'"),
        ("%c", [-1], "sprintf(): %c needs a Unicode code point, got -1"),
        ("%c", [0x110000], "sprintf(): %c needs a Unicode code point, got 1114112"),
    ],
)
def test_errors(fmt: str, args: list[object], message: str) -> None:
    with pytest.raises(SwiftRuntimeError) as caught:
        sprintf(fmt, args)
    assert str(caught.value) == message


def test_errors_name_the_caller() -> None:
    with pytest.raises(SwiftRuntimeError, match=r"^printf\(\): not enough arguments"):
        sprintf("%s", [], caller="printf")


def _tcl_quote(value: object) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return "Inf" if value == math.inf else "-Inf" if value == -math.inf else repr(value)
    return "{" + str(value) + "}"


@pytest.mark.skipif(shutil.which("tclsh") is None, reason="tclsh is not installed")
def test_cases_agree_with_tclsh() -> None:
    """Re-derive every expectation above from the real Tcl `format`."""
    script = "".join(
        f"puts [format {_tcl_quote(fmt)} {' '.join(_tcl_quote(a) for a in args)}]\n"
        for fmt, args, _ in TCL_CASES
    )
    output = subprocess.run(["tclsh"], input=script.encode(), capture_output=True, check=True).stdout.decode()
    assert output.split("\n")[:-1] == [expected for _, _, expected in TCL_CASES]
