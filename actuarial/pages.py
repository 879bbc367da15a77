"""What a notebook page shows a reader: an error as its user gets it, tables formatted for
people, plots styled to be read.

The notebooks call these so that a cell is one line a reviewer can read; nothing here applies
the law (the numbers come from the engine, the guides and :mod:`actuarial.review`).
"""

from __future__ import annotations

import datetime as dt
import html
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = [
    "Table",
    "expect_error",
    "format_count",
    "format_date",
    "format_money",
    "format_usd",
    "hatch_bars",
    "prose",
    "show_error",
    "table",
    "use_plot_style",
]

# Series told apart without colour: each line its own dash pattern and marker.
LINE_STYLES = ("-", "--", "-.", ":", (0, (5, 1, 1, 1, 1, 1)))
MARKERS = ("o", "s", "^", "D", "v")
COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e")


def expect_error(error_type: type[BaseException], pattern: str, function: Callable, *args, **kw):
    """Run ``function(*args, **kwargs)`` and return the error it raises (nothing printed).

    The error must be an ``error_type`` whose message matches the regular expression
    ``pattern`` (:func:`re.search`).

    Anything else raises :class:`AssertionError` saying what happened instead, so that a
    notebook cell demonstrating an error fails nbval when the error changes.
    """
    try:
        function(*args, **kw)
    except error_type as error:
        message = str(error)
        if not re.search(pattern, message):
            raise AssertionError(
                f"the {type(error).__name__} message does not match {pattern!r}: {message!r}"
            ) from error
        return error
    name = getattr(function, "__qualname__", repr(function))
    raise AssertionError(f"{name} raised no {error_type.__name__}")


def show_error(error_type: type[BaseException], pattern: str, function: Callable, *args, **kwargs):
    """Run the call as :func:`expect_error` does and print the message its user gets, as
    ``ErrorType: message``."""
    error = expect_error(error_type, pattern, function, *args, **kwargs)
    print(f"{type(error).__name__}: {error}")


def use_plot_style() -> None:
    """Plots of every page: sized to read, series told apart by line style and marker as well
    as colour, a light grid, and text drawn as written (matplotlib's mathtext never parses a
    ``$`` in a title or label, so a guide id or file name from data shows literally)."""
    import matplotlib as mpl
    from cycler import cycler

    mpl.rcParams.update(
        {
            "text.parse_math": False,
            "figure.figsize": (9.0, 4.8),
            "figure.dpi": 100,
            "font.size": 11,
            "axes.titlesize": 12,
            "axes.grid": True,
            "grid.alpha": 0.3,
            "legend.framealpha": 0.9,
            "lines.linewidth": 1.8,
            "lines.markersize": 5,
            "axes.prop_cycle": cycler(color=COLOURS)
            + cycler(linestyle=LINE_STYLES)
            + cycler(marker=MARKERS)
            + cycler(markevery=[0.08] * len(MARKERS)),  # a marker every 8% of the axes' width
        }
    )


HATCHES = ("", "///", "...", "xx", "\\\\", "++")


def hatch_bars(axes) -> None:
    """Give each series of bars (a bar chart's or histogram's) its own hatch pattern, so that
    stacked series are told apart without colour (call before placing the legend)."""
    for number, container in enumerate(axes.containers):
        for patch in getattr(container, "patches", container):
            patch.set_hatch(HATCHES[number % len(HATCHES)])
            patch.set_edgecolor("white")
    if axes.get_legend() is not None:  # drawn before the hatches: drawn again with them
        axes.legend()


# --------------------------------------------------------------------- prose
PLACEHOLDER = re.compile(r"\[\[(\w+)\]\]")


def prose(template: str, **values):
    """A paragraph of a page whose numbers come from data (the law in force), not literals:
    ``template`` (markdown, formulas included) with each ``[[name]]`` replaced by
    ``values[name]`` (as text). ``[[...]]`` rather than ``{...}`` leaves TeX's braces alone.

    Shown as markdown; in the report a code cell tagged ``prose`` becomes the markdown cell it
    writes, formulas typeset, code hidden. An unknown name raises :class:`KeyError`.
    """
    from IPython.display import Markdown

    def fill(match) -> str:
        name = match.group(1)
        if name not in values:
            raise KeyError(f"prose: no value for [[{name}]] (values: {sorted(values)})")
        return str(values[name])

    return Markdown(PLACEHOLDER.sub(fill, template).strip())


# --------------------------------------------------------------------- tables
def _blank(value) -> bool:
    return value is None or value is pd.NaT or (isinstance(value, float) and np.isnan(value))


def format_money(value) -> str:
    """An amount in USD: thousands separators and cents (``48,000.00``); blank when missing.
    An amount that rounds to no cents is ``0.00``, never ``-0.00`` (a difference of equal
    sums can come out a hair below zero, by how the processor's numpy adds them)."""
    return "" if _blank(value) else f"{float(value):z,.2f}"


def format_usd(value) -> str:
    """An amount in dollars, its sign before the dollar sign: ``$48,000.00``,
    ``-$210,990.18``; blank when missing (:func:`format_money`'s digits)."""
    money = format_money(value)
    if not money:
        return ""
    return f"-${money[1:]}" if money.startswith("-") else f"${money}"


def format_count(count: int, noun: str) -> str:
    """A count with its noun: ``1 row``, ``2,000 rows`` (the noun's plural takes an s)."""
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


def format_date(value) -> str:
    """A date as ISO ``YYYY-MM-DD``; blank when missing."""
    if _blank(value) or (isinstance(value, str) and not value):
        return ""
    if isinstance(value, str):
        return value
    return pd.Timestamp(value).date().isoformat()


def _format_value(value, kind: str, decimals: int, percent_decimals: int = 2) -> str:
    if _blank(value) or pd.isna(value):
        return ""
    if kind == "money":
        return format_money(value)
    if kind == "factor":
        return f"{float(value):z.{decimals}f}"
    if kind == "percent":
        return f"{float(value):z.{percent_decimals}%}"
    if kind == "date":
        return format_date(value)
    if isinstance(value, bool | np.bool_):
        return "yes" if value else "no"
    if isinstance(value, int | np.integer):
        return f"{int(value):,}"
    if isinstance(value, float | np.floating):
        return format_money(value)  # two decimals, as an amount
    if isinstance(value, dt.date | pd.Timestamp):
        return format_date(value)
    return str(value)


@dataclass(frozen=True)
class Table:
    """A table formatted for people: every cell already text, each column left (text) or right
    (numbers) aligned, with a caption. Shown as HTML in a notebook and in the report (every cell
    escaped), as aligned text elsewhere."""

    caption: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    numeric: tuple[bool, ...]

    def frame(self) -> pd.DataFrame:
        """The cells as text, one column per column."""
        return pd.DataFrame(list(self.rows), columns=list(self.columns))

    def __repr__(self) -> str:
        widths = [
            max([len(name), *(len(row[i]) for row in self.rows)])
            for i, name in enumerate(self.columns)
        ]

        def line(cells):
            return "  ".join(
                cell.rjust(width) if numeric else cell.ljust(width)
                for cell, width, numeric in zip(cells, widths, self.numeric, strict=True)
            ).rstrip()

        return "\n".join([self.caption, line(self.columns), *(line(row) for row in self.rows)])

    def _repr_html_(self) -> str:
        escape = html.escape

        def cell(tag, text, numeric):
            align = "right" if numeric else "left"
            return f'<{tag} style="text-align: {align}">{escape(text)}</{tag}>'

        head = "".join(
            cell("th", name, numeric)
            for name, numeric in zip(self.columns, self.numeric, strict=True)
        )
        body = "".join(
            "<tr>"
            + "".join(cell("td", text, n) for text, n in zip(row, self.numeric, strict=True))
            + "</tr>\n"
            for row in self.rows
        )
        return (
            '<table class="report-table">\n'
            f'<caption style="caption-side: top; text-align: left; font-weight: bold">'
            f"{escape(self.caption)}</caption>\n"
            f"<thead><tr>{head}</tr></thead>\n<tbody>\n{body}</tbody>\n</table>"
        )


def table(
    frame: pd.DataFrame | pd.Series,
    caption: str,
    *,
    money: Iterable[str] = (),
    factors: Iterable[str] = (),
    percent: Iterable[str] = (),
    dates: Iterable[str] = (),
    decimals: int = 4,
    percent_decimals: int = 2,
    index: bool = False,
) -> Table:
    """``frame`` as a :class:`Table` for people, under ``caption``.

    Columns named in ``money`` show USD with thousands separators and cents; in ``factors``,
    ``decimals`` decimals; in ``percent``, percentages with ``percent_decimals``; in ``dates``
    (and any date column), ISO dates. Other numbers: integers with separators, other floats with
    two decimals; booleans yes/no. Missing values are blank. The index is shown (as the first
    column) only with ``index=True``, when it means something (an age, a clause).
    """
    if isinstance(frame, pd.Series):
        frame = frame.to_frame()
    if index:
        frame = frame.reset_index()
    frame = frame.copy()
    frame.columns = [str(name) for name in frame.columns]
    kinds = dict.fromkeys(frame.columns, "")
    for kind, names in (
        ("money", money),
        ("factor", factors),
        ("percent", percent),
        ("date", dates),
    ):
        for name in names:
            if name not in kinds:
                raise KeyError(f"'{kind}' column {name!r} is not in the table: {list(kinds)}")
            kinds[name] = kind
    numeric = tuple(
        bool(kinds[name] in ("money", "factor", "percent"))
        or (
            pd.api.types.is_numeric_dtype(frame[name])
            and not pd.api.types.is_bool_dtype(frame[name])
        )
        for name in frame.columns
    )
    rows = tuple(
        tuple(
            _format_value(value, kinds[name], decimals, percent_decimals)
            for name, value in zip(frame.columns, values, strict=True)
        )
        for values in frame.itertuples(index=False, name=None)
    )
    return Table(caption, tuple(frame.columns), rows, numeric)
