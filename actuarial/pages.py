"""What a notebook page shows a reader: an error as its user gets it, tables formatted for
people, plots styled to be read.

The notebooks call these so that a cell is one line a reviewer can read; nothing here applies
the law (the numbers come from the engine, the guides and :mod:`actuarial.review`).
"""

from __future__ import annotations

import re
from collections.abc import Callable

__all__ = ["expect_error", "show_error", "use_plot_style"]

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
