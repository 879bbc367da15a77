"""Text from files made safe to show: values cut at 80 characters, no control characters."""

from __future__ import annotations

import re
import unicodedata

import pytest
from conftest import PYTHON_CHARACTERS
from hypothesis import given, settings
from hypothesis import strategies as st

from actuarial.shown_text import (
    QUOTE_LIMIT,
    labelled,
    one_line,
    printable,
    quoted,
    shortened,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", ""),
        ("x" * 80, "x" * 80),
        ("x" * 81, "x" * 80 + "…"),
        ("x" * 200_000, "x" * 80 + "…"),
    ],
)
def test_shortened_cuts_at_the_limit_with_an_ellipsis(text, expected):
    assert shortened(text) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [("M-1", "'M-1'"), ("\x1b[31m", "'\\x1b[31m'"), (7, "7"), (1e308, "1e+308"), (None, "None")],
)
def test_quoted_shows_text_in_quotes_with_escapes(value, expected):
    assert quoted(value) == expected


def test_quoted_names_an_int_too_long_for_str_without_raising():
    """str() of an int beyond sys.get_int_max_str_digits() raises ValueError."""
    assert quoted(10**5000) == "an integer of more than 4300 digits"
    assert quoted(-(10**4300)) == "an integer of more than 4300 digits"
    assert quoted(10**4299) == "1" + "0" * 79 + "…"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("py", "py"),
        ("a\nb\r\x1b[31m\u2028", "a\ufffdb\ufffd\ufffd[31m\ufffd"),
        ("g" * 81, "g" * 80 + "…"),
        (5, "5"),
    ],
)
def test_one_line_names_a_thing_on_one_line_cut_without_controls(text, expected):
    assert one_line(text) == expected


@settings(max_examples=500)
@given(st.text(PYTHON_CHARACTERS, max_size=400))
def test_a_quote_is_bounded_and_printable(text):
    """Lone surrogates included ("\\ud800", Python text a frame built in Python may hold):
    shown escaped, so the quote is Unicode text any file or terminal takes."""
    shown = quoted(text)
    assert len(shown) <= 4 * QUOTE_LIMIT + 3  # repr escapes: at most \U0010ffff a character
    assert shown.isprintable()
    shown.encode("utf-8")


CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


@settings(max_examples=500)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=200))
def test_printable_leaves_no_control_character_but_newlines(text):
    shown = printable(text)
    assert not CONTROL.search(shown)
    assert "\t" not in shown and "\r" not in shown
    assert shown.count("\n") == text.count("\n")
    assert not any(unicodedata.category(ch) == "Cc" for ch in shown.replace("\n", ""))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("\x1b[2Jcleared", "\ufffd[2Jcleared"),
        ("bell\x07", "bell\ufffd"),
        ("csi\x9b31m", "csi\ufffd31m"),
        ("\u202eevil", "\ufffdevil"),
        ("a\rb", "a\ufffdb"),
        ("tab\there", "tab here"),
        ("two\nlines", "two\nlines"),
    ],
)
def test_printable_replaces_each_control_character(text, expected):
    assert printable(text) == expected
    assert printable(text, keep_newlines=False) == expected.replace("\n", "\ufffd")


@pytest.mark.parametrize(
    ("label", "value", "multiline", "expected"),
    [
        ("title", "one\nok: fake", False, "title: one\ufffdok: fake"),
        ("title", "a\x1b[2J\r\nb", False, "title: a\ufffd[2J\ufffd\ufffdb"),
        ("source", "one\nstatus: adopted", True, "source: one\n  status: adopted"),
        ("basis.a\nb", 0.05, True, "basis.a\ufffdb: 0.05"),
    ],
)
def test_labelled_shows_a_value_on_one_line_or_its_further_lines_indented(
    label, value, multiline, expected
):
    assert labelled(label, value, multiline) == expected
