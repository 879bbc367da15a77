"""The shape of the package: ARCHITECTURE.md lists every module, the statute's numbers live
only in the law file, and each reading is applied in exactly one function."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

from actuarial.law.readings import INTERPRETATIONS

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "actuarial"


def _tree_in_architecture() -> set[str]:
    """The files of the annotated tree of ARCHITECTURE.md, as paths from the repository."""
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    block = re.search(r"```text\n(.*?)```", text, flags=re.DOTALL).group(1)
    stack: list[str] = []
    files = set()
    for line in block.splitlines():
        if not line.strip():
            continue
        indent = (len(line) - len(line.lstrip(" "))) // 2
        name = line.split()[0]
        stack = stack[:indent]
        if name.endswith("/"):
            stack.append(name.rstrip("/"))
        else:
            files.add("/".join([*stack, name]))
    return files


def test_architecture_lists_every_module_of_the_package_and_no_other():
    shipped = {
        path.relative_to(ROOT).as_posix()
        for path in PACKAGE.rglob("*")
        if path.suffix in (".py", ".toml") and "__pycache__" not in path.parts
    }
    listed = _tree_in_architecture()
    assert sorted(shipped - listed) == [], "add these to ARCHITECTURE.md"
    assert sorted(listed - shipped) == [], "remove these from ARCHITECTURE.md"


# ------------------------------------------------------------- the statute's numbers
STATUTE_NUMBERS = {500, 0.015, 65, 55, 10, 25, 30, 0.75, 0.65}
STATUTE_TEXTS = re.compile(r"1990-04-01|2000-01-01|\$500|1\.5%|\b75%|\b65%|\b(55|65)y0m")
# Numbers that are not the statute's, each with what it is.
NOT_THE_STATUTE = {
    ("cli.py", "default=10,"): "guides fit --top: rows shown",
    ("dates.py", "_DAYS_IN_MONTH = np.array([31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31])"): (
        "the calendar"
    ),
    (
        "dates.py",
        "month = np.where(month_from_march < 10, month_from_march + 3, month_from_march - 9)",
    ): "the calendar",
    ("duplicate_ids.py", "z = (z ^ (z >> np.uint64(30))) * _MIX[0]"): "a hash's bit shift",
    (
        "members.py",
        "day = pc.cast(pc.if_else(shaped, pc.utf8_slice_codeunits(text, 8, 10), None), pa.int64())",
    ): "characters of YYYY-MM-DD",
    ("mortality.py", "law = (0.0007, 0.00005, 10**0.04)"): "a Makeham law of mortality",
    ("report.py", "timeout=10,"): "seconds",
    ("guides.py", "scale = 10**places"): "decimal places",
}


def _literals(path: Path):
    """(line, text) of each number and each non-docstring string of a Python file."""
    tokens = list(tokenize.generate_tokens(io.StringIO(path.read_text("utf-8")).readline))
    for index, token in enumerate(tokens):
        previous = tokens[index - 1].type if index else tokenize.NEWLINE
        if token.type == tokenize.NUMBER:
            yield token, "number"
        elif token.type == tokenize.STRING and previous not in (
            tokenize.INDENT,
            tokenize.DEDENT,
            tokenize.NEWLINE,
            tokenize.NL,
        ):
            yield token, "string"


def _statute_literals() -> list[str]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for token, kind in _literals(path):
            where = f"{path.relative_to(ROOT)}:{token.start[0]}: {token.line.strip()}"
            if kind == "number":
                try:
                    value = float(token.string.replace("_", ""))
                except ValueError:
                    continue
                if value in STATUTE_NUMBERS and (path.name, token.line.strip()) not in (
                    NOT_THE_STATUTE
                ):
                    found.append(where)
            else:
                unquoted = re.sub(r"«[^»]*»", "", token.string)  # the statute's own words
                if STATUTE_TEXTS.search(unquoted):
                    found.append(where)
    return found


def test_every_number_said_not_to_be_the_statutes_is_still_in_the_code():
    """An exemption outlives its line only as a hole: each names a line that still exists."""
    lines = {
        (path.name, line.strip())
        for path in PACKAGE.rglob("*.py")
        for line in path.read_text("utf-8").splitlines()
    }
    assert sorted(set(NOT_THE_STATUTE) - lines) == []


STATUTE_DATES = re.compile(r"date\(\s*(1990,\s*4,\s*1|2000,\s*1,\s*1)\s*\)")


def test_no_number_of_the_statute_is_written_in_the_code():
    assert _statute_literals() == []
    dates = [
        f"{path.relative_to(ROOT)}: {match.group(0)}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for match in STATUTE_DATES.finditer(path.read_text("utf-8"))
    ]
    assert dates == []


def test_the_search_for_statute_numbers_finds_one_when_there_is(tmp_path, monkeypatch):
    planted = tmp_path / "actuarial"
    planted.mkdir()
    (planted / "bad.py").write_text(
        'RATE = 0.015\nMINIMUM_TEXT = "the $500 minimum"\nOK = "«cincuenta y cinco (55) años»"\n'
        '"""A docstring may quote 65y0m."""\n',
        encoding="utf-8",
    )
    monkeypatch.setattr(__import__(__name__), "PACKAGE", planted)
    monkeypatch.setattr(__import__(__name__), "ROOT", tmp_path)
    assert _statute_literals() == [
        "actuarial/bad.py:1: RATE = 0.015",
        'actuarial/bad.py:2: MINIMUM_TEXT = "the $500 minimum"',
    ]


# ------------------------------------------------------------- one function per reading
def _readers() -> dict[str, set[str]]:
    """For each reading switch, the functions of the package that read it."""
    switches = {item.switch for item in INTERPRETATIONS if item.switch}
    readers: dict[str, set[str]] = {switch: set() for switch in switches}
    for path in PACKAGE.rglob("*.py"):
        if path.name == "readings.py":  # declares the switches
            continue
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if not isinstance(node, ast.FunctionDef):
                continue
            for inner in ast.walk(node):
                if isinstance(inner, ast.Attribute) and inner.attr in switches:
                    readers[inner.attr].add(f"{module}.{node.name}")
    return readers


@pytest.mark.parametrize("item", [i for i in INTERPRETATIONS if i.switch], ids=lambda item: item.id)
def test_each_reading_is_applied_in_exactly_one_function(item):
    assert _readers()[item.switch] == {item.applied_in}


def test_the_readings_are_i1_to_i9():
    assert [item.id for item in INTERPRETATIONS] == [f"I-{n}" for n in range(1, 10)]
