"""Shared fixtures: the shipped half-percent guide, a valid member, guide and file builders."""

from __future__ import annotations

import csv
import datetime as dt
import os
import re
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from actuarial.guides import SHIPPED_GUIDES, load_guides
from actuarial.members import MEMBER_FIELDS

# An as_of before every start date: each annuity is paid, and the minimum judged, from its
# start date (what results gave before as_of defaulted to the day they are asked for).
FROM_START = dt.date(1990, 4, 1)
HALF_PERCENT_SERIES = "illustrative-half-percent-per-month"  # shipped, not the default
HALF_PERCENT_GUIDE = SHIPPED_GUIDES / HALF_PERCENT_SERIES

# make test draws the same examples every run (HYPOTHESIS_PROFILE=repeatable): the same
# code passes or fails there alike, on any machine and in CI. Run pytest alone to draw new
# examples each time, as hypothesis does by default.
settings.register_profile("repeatable", derandomize=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

# Property tests that take fixtures (read only, so one value serves every example) and may
# be slow to draw: no deadline. A module derives its own with ``settings(FIXTURE_PROPERTY,
# max_examples=N)``.
FIXTURE_PROPERTY = settings(
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

# A general employee who separates on his 65th birthday with 20 years and $48,000:
# inciso (a) pays 1.5% x 48,000 x 20 = 14,400 a year, 1,200 a month.
VALID_MEMBER = {
    "member_id": "A-1",
    "birth_date": "1960-06-15",
    "entry_date": "1995-06-15",
    "separation_date": "2025-06-15",
    "credited_service": 20.0,
    "average_compensation": 48_000.0,
    "group": "general",
    "refunded": False,
}


# The files that take minutes (their fixtures build, install, render): collected first, so
# that under make test (pytest-xdist, a file per worker) each starts at once beside the rest.
SLOW_FIRST = ("packaging", "browser")


def pytest_collection_modifyitems(items):
    """The slow files' tests first (in :data:`SLOW_FIRST`'s order), the rest as collected."""

    def rank(item) -> int:
        marks = {mark.name for mark in item.iter_markers()}
        return next((n for n, name in enumerate(SLOW_FIRST) if name in marks), len(SLOW_FIRST))

    items.sort(key=rank)


@pytest.fixture(scope="session")
def half_percent_guides():
    """The shipped illustrative guide: 0.5% per month before 65, yearly rows, linear by month."""
    return load_guides(HALF_PERCENT_GUIDE)


@pytest.fixture
def member():
    """Factory of a valid member mapping; keyword arguments override fields."""

    def make(**overrides) -> dict:
        unknown = set(overrides) - set(MEMBER_FIELDS)
        if unknown:
            raise TypeError(f"not member fields: {sorted(unknown)}")
        return {**VALID_MEMBER, **overrides}

    return make


# What parse_members says of a field holding text with a lone surrogate ("\ud800": Python
# text a frame built in Python may hold, not Unicode text), the text shown as ``{text}``.
LONE_SURROGATE_PROBLEMS = {
    "member_id": "'member_id' must not contain lone surrogates (got {text})",
    "birth_date": "'birth_date' must be a date YYYY-MM-DD (got {text})",
    "entry_date": "'entry_date' must be a date YYYY-MM-DD (got {text})",
    "separation_date": "'separation_date' must be a date YYYY-MM-DD (got {text})",
    "credited_service": "'credited_service' must be a number (got {text})",
    "average_compensation": "'average_compensation' must be a number (got {text})",
    "group": "'group' must be in ['general', 'police', 'firefighter'] (got {text})",
    "refunded": "'refunded' must be true or false (got {text})",
}


# An improvement scale in CSV (age by calendar year): 2% in 2011, 1% from 2012 on, ages 20-21.
# Python text's characters: Unicode, or not (a lone surrogate, "\ud800", which a frame or a
# value built in Python may hold, and no file does).
PYTHON_CHARACTERS = st.characters() | st.characters(categories=["Cs"])
SMALL_SCALE_CSV = "age,2011,2012\n20,0.02,0.01\n21,0.02,0.01\n"


def folder_files(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` (its path relative to it) with its text."""
    return {str(p.relative_to(folder)): p.read_text() for p in folder.rglob("*") if p.is_file()}


def write_files(folder: Path, files: dict[str, str]) -> None:
    """Write ``files`` (path relative to ``folder``: text), their folders made."""
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)


def exactly(message: str) -> str:
    """A pattern for ``pytest.raises(match=...)`` that only ``message``, whole, matches."""
    return "^" + re.escape(message) + "$"


def refused_as_input(path) -> str:
    """What a command says, on stderr, when its output is one of the files it reads."""
    return (
        f"error: {path}: the output is the input {path} (the same file, or a link to it); "
        "refused: it would be replaced\n"
    )


def holds_input(folder, source) -> str:
    """What a command says when the output folder it would empty holds one of its inputs."""
    return f"{folder}: the output folder holds the input {source}; refused: it would be replaced"


def _edit(path: Path, change) -> None:
    if change is None:
        return
    if callable(change):
        path.write_text(change(path.read_text(encoding="utf-8")), encoding="utf-8")
    else:
        path.write_text(change, encoding="utf-8")


@pytest.fixture
def make_guide(tmp_path):
    """Copy the shipped half-percent guide into ``tmp_path`` and change one thing.

    ``make_guide(name="g", toml=..., csv=..., root=...)``: ``toml`` / ``csv`` are either the
    new file text or a function old text -> new text. The folder name and the ``id`` (and
    ``series``) follow ``name`` unless ``toml`` changes them. Returns the guide folder.
    """

    def make(name: str = "guide-a", *, toml=None, csv=None, root: Path | None = None) -> Path:
        folder = (root or tmp_path / "guides") / name
        folder.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(HALF_PERCENT_GUIDE, folder)
        toml_path = folder / "guide.toml"
        toml_path.write_text(
            toml_path.read_text(encoding="utf-8")
            .replace(f'id = "{HALF_PERCENT_SERIES}"', f'id = "{name}"')
            .replace(f'series = "{HALF_PERCENT_SERIES}"', f'series = "{name}"'),
            encoding="utf-8",
        )
        _edit(toml_path, toml)
        _edit(folder / "reduction.csv", csv)
        return folder

    return make


@pytest.fixture
def write_members(tmp_path):
    """Write member mappings to a CSV file (columns: the member fields, or ``columns``)."""

    def write(rows, name: str = "members.csv", columns=None) -> Path:
        path = tmp_path / name
        columns = list(columns or MEMBER_FIELDS)
        with path.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=columns, extrasaction="ignore")
            writer.writeheader()
            for row in rows:
                writer.writerow({key: _cell(row.get(key)) for key in columns})
        return path

    return write


def _cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def write_sult_csv(path: Path, ages=range(20, 121)) -> Path:
    """A CSV life table (``age,qx``) of SULT's rates at ``ages``, at ``path``."""
    from actuarial.mortality import sult

    table = sult()
    rows = "".join(f"{age},{float(table.q(age))!r}\n" for age in ages)
    path.write_text("age,qx\n" + rows, encoding="utf-8")
    return path


# ------------------------------------------------------------------------ amendments
def law_entry(name, date, value, unit, source="Test bill"):
    """One dated entry of an amendment file (TOML), as its text."""
    value = f"{value}" if not isinstance(value, str) else value
    return (
        f"[[{name}]]\neffective_from = {date}\nvalue = {value}\n"
        f'unit = "{unit}"\nsource = "{source}"\n'
    )


@pytest.fixture
def amendment(tmp_path):
    """Write an amendment file from entries; returns its path."""

    def write(*entries, name="bill.toml"):
        path = tmp_path / name
        path.write_text("\n".join(entries), encoding="utf-8")
        return path

    return write


@pytest.fixture
def law_toml_changed(monkeypatch, amendment):
    """The shipped law as if law.toml held these later entries too (the way a change of
    law is made: a dated entry in the shipped file)."""
    from actuarial.law import load_law

    def change(*entries):
        law = load_law(amendment(*entries))
        monkeypatch.setattr("actuarial.law.parameters.shipped_law", lambda: law)
        return law

    return change
