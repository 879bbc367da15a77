"""What the package ships besides its code, read with :mod:`importlib.resources`: the
illustrative Actuarial Guides, the sample member file, the notebooks ``actuarial report``
runs and the documents they cite (the statute, the readings).

Their source of truth is the repository's top-level ``guides/``, ``examples/``,
``notebooks/`` and ``docs/``. In a checkout (and so in an editable install)
``actuarial/shipped/<folder>`` is a link to them; the wheel holds copies (package data,
``pyproject.toml``).
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

__all__ = [
    "DOCS",
    "EXAMPLE_MEMBERS",
    "EXAMPLES",
    "EXAMPLE_BILL",
    "FOLDERS",
    "GUIDES",
    "NOTEBOOKS",
    "PATHS",
    "folder",
]

FOLDERS = ("guides", "examples", "notebooks", "docs")  # as the repository lays them out


def folder(name: str) -> Path:
    """The shipped folder ``name`` as a path on disk (links resolved)."""
    found = resources.files(__name__) / name
    if not isinstance(found, Path):  # e.g. a zip import: the guides and notebooks need files
        raise RuntimeError(f"actuarial must be installed as files on disk (found {found!r})")
    return found.resolve()


PATHS = tuple(folder(name) for name in FOLDERS)  # on disk, in the order of FOLDERS
GUIDES, EXAMPLES, NOTEBOOKS, DOCS = PATHS
EXAMPLE_MEMBERS = EXAMPLES / "members.csv"
EXAMPLE_BILL = EXAMPLES / "bill-2027.toml"  # a hypothetical amendment of the law
