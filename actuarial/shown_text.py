"""Text read from files, made safe to show: long values cut, control characters replaced.

A message quotes at most :data:`QUOTE_LIMIT` characters of a value (then an ellipsis), so a
200,000-character field never makes a 200,000-character message, and a terminal never
receives an escape sequence hidden in a member file, a guide or a file name, nor a line
break where one line is shown.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import sys
from decimal import Decimal

import numpy as np

__all__ = [
    "QUOTE_LIMIT",
    "decimal_shown",
    "decimals_shown",
    "json_printable",
    "labelled",
    "one_line",
    "printable",
    "quoted",
    "shortened",
    "show_factors",
    "show_percent",
    "show_rate",
    "toml_text",
]

QUOTE_LIMIT = 80  # characters of a value quoted in a message
ELLIPSIS = "…"
INDENT = "  "  # the further lines of a value shown over several lines
# C0 and C1 control characters, DEL, and the Unicode line and paragraph separators and
# bidirectional controls a terminal would act on; newline and tab are handled by the caller.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def shortened(text: str, limit: int = QUOTE_LIMIT) -> str:
    """``text`` cut to ``limit`` characters, with an ellipsis when cut."""
    return text if len(text) <= limit else text[:limit] + ELLIPSIS


def quoted(value, limit: int = QUOTE_LIMIT) -> str:
    """A value as a message quotes it: ``repr`` of at most ``limit`` characters of it.

    ``repr`` shows control characters as escapes (``'\\x1b'``), so the quote is printable.
    """
    if isinstance(value, str):
        return repr(shortened(value, limit))
    try:
        return shortened(str(value), limit)
    except ValueError:  # an int of more digits than str() writes (sys.get_int_max_str_digits)
        return f"an integer of more than {sys.get_int_max_str_digits()} digits"


def kind_and_value(value) -> str:
    """An argument of the wrong kind as an error names it: ``None``, or its type and its
    value quoted (``str 'sult'``, ``dict {}``)."""
    return "None" if value is None else f"{type(value).__name__} {quoted(value)}"


def as_given(value, limit: int = QUOTE_LIMIT) -> str:
    """A value as an error says it got it: text as :func:`quoted` (in quotes, cut), any other
    value by its ``repr``, cut (``Period('2027-01', 'M')``, ``['a.toml']``)."""
    if isinstance(value, str):
        return quoted(value, limit)
    try:
        return shortened(repr(value), limit)
    except ValueError:  # an int of more digits than repr() writes
        return f"an integer of more than {sys.get_int_max_str_digits()} digits"


def printable(text: str, keep_newlines: bool = True) -> str:
    """``text`` with control characters replaced by U+FFFD (newlines kept if asked)."""
    text = _CONTROL.sub("\ufffd", str(text))
    text = text.replace("\t", " ")
    return text if keep_newlines else text.replace("\n", "\ufffd")


def one_line(text, limit: int = QUOTE_LIMIT) -> str:
    """``text`` where a message names something by it (a guide by its id, a series by its
    name): at most ``limit`` characters, then an ellipsis, on one line, its control
    characters and line breaks replaced by U+FFFD."""
    return printable(shortened(str(text), limit), keep_newlines=False)


def json_printable(json_text: str) -> str:
    """JSON text with the control characters :func:`printable` replaces written as
    ``\\uXXXX`` escapes instead (JSON escapes C0 controls itself, not DEL, C1 controls or
    bidirectional ones): the same JSON, safe in a terminal."""
    return _CONTROL.sub(lambda match: f"\\u{ord(match.group()):04x}", json_text)


def labelled(label, value, multiline: bool = False) -> str:
    """``label: value``, printable and one line, its line breaks replaced; with ``multiline``
    the value's further lines are indented, so that none of them reads as a label of its own."""
    shown = printable(value, keep_newlines=multiline).replace("\n", "\n" + INDENT)
    return f"{printable(label, keep_newlines=False)}: {shown}"


def decimals_shown(values) -> np.ndarray:
    """Floats as float64, each float32 or float16 as the shortest decimal that is it, the
    one it shows: 66224.88, not the 66224.8828125 a float32 holds for it (widened, an amount
    would be a cent off in about 6% of annuities); what a CSV of the values holds."""
    values = np.asarray(values)
    if values.dtype.kind != "f" or values.dtype.itemsize >= 8:
        return values.astype(np.float64)
    if values.dtype == np.float32:  # Arrow writes the shortest decimals, faster than numpy
        import pyarrow as pa
        import pyarrow.compute as pc

        text = pc.cast(pa.array(values, from_pandas=True), pa.string())
        return pc.cast(text, pa.float64()).to_numpy(zero_copy_only=False)
    return values.astype(str).astype(np.float64)


def decimal_shown(value) -> float:
    """One number as :func:`decimals_shown` reads it, as a Python float."""
    if isinstance(value, np.floating) and value.itemsize < 8:
        return float(decimals_shown(np.array([value]))[0])
    return float(value)


def show_rate(rate) -> str:
    """A rate as a message shows it: every digit that counts (-0.9999999, never -1; 0,
    never -0)."""
    return f"{float(rate) + 0.0:.15g}"


def show_percent(rate) -> str:
    """A rate as a percent with every digit that counts: ``1.5%``, ``1.23456789%`` (its
    :func:`show_rate` moved two places, never 100 x a float's rounding); a huge one in
    exponent form (``1e+310%``: 100 x 1e308 is no float)."""
    percent = Decimal(show_rate(rate)).scaleb(2).normalize()
    return f"{percent:f}%" if abs(percent.adjusted()) < 16 else f"{percent:e}%"


def show_factors(factors):
    """How a table shows reduction factors (and their differences): 6 decimals, or as many
    as ``factors`` need, each then as the engine reads it; each value's shortest exact form
    when no fixed number of decimals would do. Never -0."""
    decimals = next(
        (
            places
            for places in range(6, 18)
            if all(float(f"{factor:.{places}f}") == factor for factor in factors)
        ),
        None,
    )
    if decimals is None:
        return lambda value: repr(float(value) + 0.0)
    return lambda value: f"{value:z.{decimals}f}"


_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def toml_text(value) -> str:
    """A value as TOML writes it (what guide.toml holds): ``true``, ``2020-01-02``,
    ``"text"``, ``[1, "a"]``, ``{a = 1}``; never Python's ``True`` or ``datetime.date(...)``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)  # 0.045, 1e+300, inf, nan: TOML's forms too
    if isinstance(value, dt.date | dt.time):  # a datetime is a date
        return value.isoformat()
    if isinstance(value, str):  # TOML's basic strings escape DEL, which JSON leaves
        return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")
    if isinstance(value, list | tuple):
        return "[" + ", ".join(toml_text(item) for item in value) + "]"
    if isinstance(value, dict):
        pairs = (
            f"{key if _BARE_KEY.fullmatch(key) else toml_text(key)} = {toml_text(item)}"
            for key, item in value.items()
        )
        return "{" + ", ".join(pairs) + "}"
    return str(value)
