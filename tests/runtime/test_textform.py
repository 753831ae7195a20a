"""Text forms of scalars (spec §7) and the true/false words."""

from __future__ import annotations

import math

import pytest

from engine.runtime.builtins.textform import bool_word, float_text, text_form


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (1.0, "1.0"),
        (100.0, "100.0"),
        (0.0001, "0.0001"),
        (-0.0, "-0.0"),
        (0.0, "0.0"),
        (0.30000000000000004, "0.30000000000000004"),
        (1e16, "10000000000000000.0"),
        (1e17, "1e+17"),
        (1.5e-7, "1.5e-7"),
        (-2.5e20, "-2.5e+20"),
        (2.5, "2.5"),
        (0.1, "0.1"),
        (1.0 / 3.0, "0.3333333333333333"),
        (123456789.125, "123456789.125"),
        (0.00012345, "0.00012345"),
        (0.00001, "1e-5"),
        (1.2345e-5, "1.2345e-5"),
        (1.7976931348623157e308, "1.7976931348623157e+308"),
        (5e-324, "5e-324"),
        (12345678901234567.0, "12345678901234568.0"),
        (1.5e16, "15000000000000000.0"),
        (-1.25e17, "-1.25e+17"),
        (math.nan, "NaN"),
        (math.inf, "Inf"),
        (-math.inf, "-Inf"),
    ],
)
def test_float_text(value: float, expected: str) -> None:
    assert float_text(value) == expected
    assert text_form(value) == expected


def test_float_text_round_trips() -> None:
    for value in (0.1, 1 / 7, 2.0**60, 1e-300, 6.02214076e23, -123.456):
        assert float(float_text(value)) == value


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (True, "1"),
        (False, "0"),
        (0, "0"),
        (-42, "-42"),
        (2**63 - 1, "9223372036854775807"),
        ("a b", "a b"),
        ("", ""),
    ],
)
def test_other_scalars(value: object, expected: str) -> None:
    assert text_form(value) == expected


def test_non_scalar_is_an_internal_error() -> None:
    with pytest.raises(TypeError):
        text_form([1, 2])


def test_bool_word() -> None:
    assert (bool_word(True), bool_word(False)) == ("true", "false")
