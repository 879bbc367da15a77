"""User text files: the numbers written in them (guides, life tables, improvement scales)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from actuarial.members import _parse_numbers
from actuarial.text_files import decimal_number, whole_number


@pytest.mark.parametrize(
    ("text", "number"),
    [
        ("0.55", 0.55),
        (" 0.55\t", 0.55),  # white space around it trimmed, as a member file's cell
        ("+1", 1.0),
        ("-.5", -0.5),
        ("5.", 5.0),
        ("5e-3", 0.005),
        ("1E400", math.inf),  # a decimal number beyond a float: infinite, refused by range
        ("0.5_5", None),  # Python's float() reads these four
        ("٠.٥", None),
        ("infinity", None),
        ("nan", None),
        ("0x1p-2", None),
        ("", None),
        ("1 000", None),
    ],
)
def test_a_number_in_a_file_is_a_plain_decimal_number(text, number):
    assert decimal_number(text) == number


@pytest.mark.parametrize(
    ("text", "number"),
    [
        ("55", 55),
        (" 55 ", 55),
        ("+7", 7),
        ("-1", -1),
        ("5_5", None),
        ("٥٥", None),
        ("55.0", None),
        ("", None),
        ("9" * 5_000, None),
    ],  # fmt: skip
)
def test_a_whole_number_in_a_file_is_ascii_digits(text, number):
    assert whole_number(text) == number


NUMBER_CHARACTERS = st.sampled_from(
    [*"0123456789", "+", "-", ".", "e", "E", "_", " ", "\t", "\u00a0", "٠", "٥", "inf", "nan"]
)


@settings(max_examples=1_000)
@given(st.lists(NUMBER_CHARACTERS, max_size=12).map("".join))
def test_a_number_in_a_file_is_the_number_a_member_file_s_cell_holds(text):
    """The one grammar of decimal numbers, in member files (Arrow) and in the files read in
    Python: the same number, or none; only a name (inf, nan), which a member file reads as a
    value then refused (not finite, not a number), is no number in the other files."""
    in_member_file = _parse_numbers(pd.Series([text], dtype=object))[0]
    number = decimal_number(text)
    if number is None:
        named = text.strip().lstrip("+-").lower() in ("inf", "infinity", "nan")
        assert np.isnan(in_member_file) or named
    else:
        assert number == in_member_file
