"""The installed distribution of ``actuarial``: whether the code runs from an installed package
or from a checkout, and which packages of an optional extra are missing.

The extras and their packages are declared once, in ``pyproject.toml``; this module reads
them from the installed metadata.
"""

from __future__ import annotations

import re
from importlib import metadata
from pathlib import Path

import actuarial

__all__ = ["DISTRIBUTION", "installed_version", "missing_from_extra"]

DISTRIBUTION = "actuarial"


def installed_version() -> str | None:
    """The version of the installed package this code runs from, or ``None`` when it runs
    from a checkout (an editable install included: its files are the checkout's)."""
    try:
        distribution = metadata.distribution(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return None
    installed = Path(distribution.locate_file("actuarial/__init__.py")).resolve()
    return distribution.version if installed == Path(actuarial.__file__).resolve() else None


def missing_from_extra(extra: str) -> list[str]:
    """The packages of ``actuarial[extra]`` that are not installed, in the declared order.

    Empty when they all are, or when the package's own metadata cannot be found (code run
    from a checkout that was never installed: then an import fails instead).
    """
    try:
        requirements = metadata.requires(DISTRIBUTION) or []
    except metadata.PackageNotFoundError:
        return []
    of_extra = re.compile(rf"""extra\s*==\s*["']{re.escape(extra)}["']""")
    names = [
        re.match(r"[A-Za-z0-9._-]+", requirement).group()
        for requirement in requirements
        if of_extra.search(requirement)
    ]
    return [name for name in names if not _installed(name)]


def _installed(name: str) -> bool:
    try:
        metadata.distribution(name)
    except metadata.PackageNotFoundError:
        return False
    return True
