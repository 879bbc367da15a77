"""What a notebook page shows a reader: an error as its user gets it, tables formatted for
people, plots styled to be read.

The notebooks call these so that a cell is one line a reviewer can read; nothing here applies
the law (the numbers come from the engine, the guides and :mod:`actuarial.review`).
"""

from __future__ import annotations

import re
from collections.abc import Callable

__all__ = ["expect_error", "show_error"]


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
