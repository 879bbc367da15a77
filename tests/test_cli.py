"""The command line: evaluate, batch and guides, with their exit codes and messages."""

from __future__ import annotations

import errno
import json
import re
import shutil
from pathlib import Path

import click
import pandas as pd
import pytest
from click.testing import CliRunner
from conftest import (
    HALF_PERCENT_SERIES,
    SMALL_SCALE_CSV,
    law_entry,
    refused_as_input,
    write_sult_csv,
)

from actuarial.cli import cli
from actuarial.guides import DEFAULT_SERIES, SHIPPED_GUIDES, load_guide
from actuarial.members import MEMBER_FIELDS

SAMPLE = "examples/members.csv"

# Born 1960-06-15, separated at 57y5m with 26 years at $40,000 (the shipped guide's example).
EARLY_RETIREE = [
    "--member-id",
    "C-1",
    "--birth-date",
    "1960-06-15",
    "--entry-date",
    "1990-06-15",
    "--separation-date",
    "2017-11-15",
    "--service",
    "26",
    "--compensation",
    "40000",
    "--series",
    HALF_PERCENT_SERIES,
    "--as-of",
    "2026-06-01",
]


def invoke(*args):
    return CliRunner().invoke(cli, [str(arg) for arg in args])


def member_args(**values) -> list[str]:
    """evaluate options for a member: the early retiree with some options replaced."""
    args = dict(zip(EARLY_RETIREE[::2], EARLY_RETIREE[1::2], strict=True))
    args.update({f"--{name.replace('_', '-')}": str(value) for name, value in values.items()})
    return [item for pair in args.items() for item in pair]


# ----------------------------------------------------------------------------- evaluate
def test_evaluate_explains_every_clause_in_english():
    result = invoke("evaluate", *EARLY_RETIREE)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == (
        "Member C-1: born 1960-06-15, entered 1990-06-15, separated 2017-11-15 at age 57y5m; "
        "credited service 26.00 years; average compensation $40,000.00; group general; "
        "refund no."
    )
    assert "inciso (c) Anualidad por retiro temprano: ELIGIBLE" in lines
    # 0.545 at 57y5m (guide, linear by month); 1.5% x 40,000 x 26 x 0.545 = 8,502.
    assert (
        "  reduction factor 0.545000: guide 'illustrative-half-percent-per-month', linear by "
        "month between 57y0m (0.520000) and 58y0m (0.580000)"
    ) in lines
    assert "  annual $8,502.00; monthly $708.50 from 2017-11-15, paid on 2026-06-01" in lines
    assert "Payment date: the later of 2026-06-01 (as of) and each annuity's start date." in lines
    assert "Readings used:" in lines


def test_evaluate_shows_a_negative_zero_service_as_zero():
    given = [*EARLY_RETIREE]
    given[given.index("--service") + 1] = "-0"
    lines = invoke("evaluate", *given).stdout.splitlines()
    assert "credited service 0.00 years;" in lines[0]


def test_evaluate_explains_every_clause_in_spanish():
    result = invoke("evaluate", *EARLY_RETIREE, "--lang", "es")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith("Participante C-1: nació el 1960-06-15, ingresó el 1990-06-15")
    assert "inciso (c) Anualidad por retiro temprano: ELEGIBLE" in lines
    assert "inciso (a) Anualidad por años de servicios: no elegible" in lines
    assert "  anual $8,502.00; mensual $708.50 desde el 2017-11-15, pagada el 2026-06-01" in lines
    assert "Interpretaciones usadas:" in lines


def test_evaluate_json_has_the_four_clauses_and_the_readings():
    result = invoke("evaluate", *EARLY_RETIREE, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [clause["clause"] for clause in data["clauses"]] == ["a", "b", "c", "d"]
    assert data["clauses"][2]["annual_amount"] == 8_502.00
    assert data["clauses"][2]["guide_id"] == HALF_PERCENT_SERIES
    assert data["as_of"] == "2026-06-01"
    assert data["law"][0]["file"] == "actuarial/law/law.toml"
    assert data["readings"]["minimum_applies_to"] == "all"
    assert data["age_at_separation"] == {"years": 57, "months": 5}


def test_evaluate_json_escapes_what_a_terminal_would_act_on_and_keeps_the_data(tmp_path):
    """A bidirectional override in an id (an id may hold one) or a C1 control in a law
    file's name (CSI, U+009B) reaches the terminal as \\uXXXX in JSON, as the text output
    replaces them: the JSON reads back to the same values."""
    law = tmp_path / "bill\u202eevil\x9b.toml"
    law.write_text(
        "[[minimum_monthly_pension]]\neffective_from = 2027-01-01\nvalue = 600\n"
        'unit = "USD a month"\nsource = "Test bill"\n',
        encoding="utf-8",
    )
    result = invoke("evaluate", *member_args(member_id="A\u202eB"), "--law", law, "--json")
    assert result.exit_code == 0, result.output
    assert not re.search("[\x80-\x9f\u202a-\u202e\u2066-\u2069]", result.stdout)
    assert "A\\u202eB" in result.stdout
    data = json.loads(result.stdout)
    assert data["member_id"] == "A\u202eB"
    assert data["law"][1]["file"] == str(law)


@pytest.mark.parametrize(
    ("flag", "member", "reading", "value", "clause", "changes"),
    [
        (
            ["--april-first-excluded"],
            {"entry_date": "1990-04-01"},
            "april_first_is_covered",
            False,
            "c",
            ("eligible", True, False),
        ),
        (
            ["--deferred-reads-service"],
            {"separation_date": "2026-06-15"},  # separated at 66
            "deferred_reads_age",
            False,
            "d",
            ("eligible", False, True),
        ),
        (
            ["--refund-allows-high-risk"],
            {"group": "police", "service": "30", "refunded": True},
            "refund_bars_high_risk",
            False,
            "b",
            ("eligible", False, True),
        ),
        (
            ["--minimum-applies-to", "a"],
            {
                "service": "10",
                "compensation": "12000",
                "separation_date": "2010-06-15",
                "entry_date": "1995-06-15",
            },
            "minimum_applies_to",
            "a",
            "d",
            ("monthly_amount", 500.0, 150.0),  # 1.5% x 12,000 x 10 / 12 = 150
        ),
        (
            ["--deferred-minimum-service", "0"],
            {"service": "3", "entry_date": "1995-06-15", "separation_date": "1998-06-15"},
            "deferred_minimum_service",
            0.0,
            "d",
            ("eligible", False, True),
        ),
        (
            ["--leap-day-birthday", "mar1"],
            {"birth_date": "1960-02-29", "separation_date": "2025-02-28"},
            "leap_day_birthday",
            "mar1",
            "c",
            ("eligible", False, True),  # 65y0m by default; 64y11m with mar1
        ),
    ],
)
def test_each_reading_switch_reaches_the_result(flag, member, reading, value, clause, changes):
    refunded = member.pop("refunded", False)
    args = member_args(**member) + (["--refunded"] if refunded else [])
    default = json.loads(invoke("evaluate", *args, "--json").stdout)
    switched_result = invoke("evaluate", *args, *flag, "--json")
    assert switched_result.exit_code == 0, switched_result.output
    switched = json.loads(switched_result.stdout)
    assert switched["readings"][reading] == value
    assert default["readings"][reading] != value
    field, before, after = changes
    assert default["clauses"]["abcd".index(clause)][field] == before
    assert switched["clauses"]["abcd".index(clause)][field] == after


def test_evaluate_as_of_applies_the_minimum_to_later_payments():
    small = member_args(
        birth_date="1948-01-15",
        entry_date="1990-07-02",
        separation_date="2013-06-30",
        service="10",
        compensation="12000",
    )
    before = json.loads(invoke("evaluate", *small, "--as-of", "2013-06-30", "--json").stdout)[
        "clauses"
    ][0]
    after = json.loads(invoke("evaluate", *small, "--as-of", "2013-07-01", "--json").stdout)
    # 1.5% x 12,000 x 10 / 12 = 150 a month; from 2013-07-01 paid 500.
    assert before["monthly_amount"] == 150.0
    assert after["clauses"][0]["monthly_amount"] == 500.0


def test_evaluate_refuses_invalid_member_data_with_exit_1_and_the_reason():
    result = invoke("evaluate", *member_args(separation_date="2021-02-29"))
    assert result.exit_code == 1
    assert result.stderr == (
        "error: member row 1 (member 'C-1'): 'separation_date' (--separation-date) must be "
        "a date YYYY-MM-DD (got '2021-02-29')\n"
    )
    # Each field named with the option that gives it (the member parser's message, whole).
    result = invoke("evaluate", *member_args(service="25,5", compensation="x"))
    assert result.exit_code == 1
    assert "'credited_service' (--service) must be a number (got '25,5')" in result.stderr
    assert "'average_compensation' (--compensation) must be a number (got 'x')" in result.stderr
    # Only the fields' names: not a name inside the id or a value given.
    odd = member_args(member_id="x'credited_service'y", birth_date="'entry_date'")
    result = invoke("evaluate", *odd)
    assert result.stderr == (
        "error: member row 1 (member \"x'credited_service'y\"): 'birth_date' (--birth-date) "
        "must be a date YYYY-MM-DD (got \"'entry_date'\")\n"
    )


def test_evaluate_refuses_an_id_with_a_byte_that_is_not_utf8_naming_it_escaped():
    # Python reads such a byte of the command line as a lone surrogate (b"\xfe": "\udcfe").
    member_id = b"A\xfe".decode("utf-8", "surrogateescape")
    result = invoke("evaluate", *member_args(member_id=member_id))
    assert result.exit_code == 1
    assert result.stderr == (
        "error: member row 1 (member 'A\\udcfe'): 'member_id' (--member-id) must not contain "
        "lone surrogates (got 'A\\udcfe')\n"
    )


def test_evaluate_refuses_a_bad_as_of_date_as_a_usage_error():
    result = invoke("evaluate", *EARLY_RETIREE, "--as-of", "2013-13-01")
    assert result.exit_code == 2
    assert "must be a date YYYY-MM-DD (got '2013-13-01')" in result.stderr


# -------------------------------------------------------------------------------- batch
def test_batch_succeeds_with_invalid_rows_and_prints_the_summary(tmp_path):
    out = tmp_path / "out.csv"
    result = invoke("batch", SAMPLE, "--out", out, "--no-progress")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "members: 313 (invalid rows: 6; not covered, I-1: 11)"
    assert lines[-3:] == [
        f"guides: series '{DEFAULT_SERIES}' ({DEFAULT_SERIES})",
        "readings: defaults",
        f"written: {out}",
    ]
    assert len(pd.read_csv(out)) == 4 * 307 + 6


# The command line starts without pandas; `batch` reads the member ids while it loads.
STARTS_WITHOUT_PANDAS = """
import json, sys, threading
from actuarial.cli import cli

first = {"pandas": "pandas" in sys.modules}


class Watch:  # notes the threads running when pandas begins to load
    def find_spec(self, name, path=None, target=None):
        if name == "pandas" and "threads" not in first:
            first["threads"] = [thread.name for thread in threading.enumerate()]


sys.meta_path.insert(0, Watch())
try:
    cli.main(sys.argv[1:], prog_name="actuarial")
except SystemExit as status:
    first["exit"] = status.code
print(json.dumps(first))
"""


def test_batch_reads_the_ids_while_pandas_loads_and_the_cli_starts_without_it(tmp_path):
    import subprocess
    import sys

    out = tmp_path / "out.csv"
    command = [sys.executable, "-c", STARTS_WITHOUT_PANDAS, "batch", SAMPLE, "--out", str(out)]
    printed = subprocess.run(command, capture_output=True, check=True, text=True).stdout
    seen = json.loads(printed.splitlines()[-1])
    assert seen["pandas"] is False  # not loaded by importing the command line
    assert any(name.startswith("actuarial-ids") for name in seen["threads"]), seen
    assert seen["exit"] in (0, None)
    assert len(pd.read_csv(out)) == 4 * 307 + 6


# What the command line's process leaves of OpenBLAS: the setting, and its own threads.
OPENBLAS_SEEN = """
import os, sys
{first}import actuarial.cli
print(os.environ.get("OPENBLAS_NUM_THREADS"), len(os.listdir("/proc/self/task")))
"""


@pytest.mark.parametrize(
    ("first", "user_value", "seen"),
    [
        ("", None, "1 1"),  # OpenBLAS starts no thread: one thread in all, the main one
        ("", "3", "3 "),  # the user's value is kept
        ("import numpy\n", None, "None "),  # numpy already loaded: too late, nothing set
    ],
)
def test_the_command_line_starts_no_openblas_threads_unless_asked(first, user_value, seen):
    import os
    import subprocess
    import sys

    environment = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if user_value is not None:
        environment["OPENBLAS_NUM_THREADS"] = user_value
    script = OPENBLAS_SEEN.format(first=first)
    command = [sys.executable, "-c", script]
    printed = subprocess.run(command, capture_output=True, check=True, text=True, env=environment)
    assert printed.stdout.strip().startswith(seen), printed.stdout


def test_batch_passes_reading_switches_and_chunk_size(tmp_path):
    out = tmp_path / "out.parquet"
    result = invoke(
        "batch", SAMPLE, "--out", out, "--chunk-rows", "50", "--minimum-applies-to", "a"
    )
    assert result.exit_code == 0, result.output
    assert "readings: minimum_applies_to=a" in result.stdout.splitlines()
    assert set(pd.read_parquet(out)["readings"]) == {"minimum_applies_to=a"}


def test_the_chunk_size_is_declared_once_and_batch_shows_it_as_its_default():
    # Declared where the command line reads it without pandas or Arrow (it starts without).
    from actuarial import batch, member_record

    chunk_rows = member_record.DEFAULT_CHUNK_ROWS
    assert batch.DEFAULT_CHUNK_ROWS is chunk_rows
    option = next(p for p in cli.commands["batch"].params if p.name == "chunk_rows")
    assert option.default is chunk_rows
    assert f"--chunk-rows INTEGER RANGE      [default: {chunk_rows}; x>=1]" in (
        invoke("batch", "--help").stdout
    )
    literal = re.compile(rf"\b({chunk_rows}|{chunk_rows:_})\b")
    package = Path(member_record.__file__).parent
    written = [p.name for p in sorted(package.rglob("*.py")) if literal.search(p.read_text())]
    assert written == ["member_record.py"]


def test_batch_fails_with_exit_1_naming_a_missing_column(tmp_path):
    source = tmp_path / "members.csv"
    pd.read_csv(SAMPLE, dtype=str).drop(columns=["group"]).to_csv(source, index=False)
    out = tmp_path / "out.csv"
    result = invoke("batch", source, "--out", out)
    assert result.exit_code == 1
    given = [name for name in MEMBER_FIELDS if name != "group"]
    assert result.stderr == (
        f"error: {source}: missing required column(s) ['group'] "
        f"(required: {list(MEMBER_FIELDS)}; given: {given})\n"
    )
    assert not out.exists()


@pytest.mark.parametrize(
    ("header", "said"),
    [
        (
            "member_id;birth_date;entry_date",
            "; the header is one column holding ';': a member file's columns are separated "
            "by commas",
        ),
        (
            "member_id\tbirth_date",
            "; the header is one column holding '\\t': a member file's columns are separated "
            "by commas",
        ),
        (
            ",".join(["Member ID", *MEMBER_FIELDS[1:6], "GROUP", "refunded"]),
            "; names are matched exactly: 'Member ID' for 'member_id', 'GROUP' for 'group'",
        ),
    ],
)
def test_a_missing_column_is_shown_beside_how_the_header_seems_written(tmp_path, header, said):
    source = tmp_path / "members.csv"
    source.write_text(header + "\n")
    result = invoke("batch", source, "--out", tmp_path / "out.csv")
    assert result.exit_code == 1
    assert result.stderr.startswith(f"error: {source}: missing required column(s) [")
    assert result.stderr.endswith(said + "\n")


def test_the_columns_given_are_shown_twenty_at_most_each_cut(tmp_path):
    source = tmp_path / "members.csv"
    names = [f"extra_{k}_" + "x" * 50 for k in range(25)]
    source.write_text(",".join(names) + "\n")
    result = invoke("batch", source, "--out", tmp_path / "out.csv")
    assert result.exit_code == 1
    shown = ", ".join(f"'{name[:40]}…'" for name in names[:20])
    assert f"; given: [{shown}, ... 5 more])\n" in result.stderr


def test_batch_fails_with_exit_1_on_an_unreadable_file(tmp_path):
    source = tmp_path / "members.parquet"
    source.write_bytes(b"PAR1 but not really")
    result = invoke("batch", source, "--out", tmp_path / "out.csv")
    assert result.exit_code == 1
    assert result.stderr.startswith(f"error: {source}: cannot read the member file (")


# An output that cannot be written is one line worded alike by every command, whether the
# failure comes inside output_files.writing (batch) or outside it (report's MathJax copy).
def test_batch_names_an_output_it_cannot_write_with_the_reason(tmp_path, monkeypatch):
    import pyarrow.parquet as pq

    class FullDisk(pq.ParquetWriter):
        def write_table(self, table, *args, **kwargs):
            raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(pq, "ParquetWriter", FullDisk)
    out = tmp_path / "out.parquet"
    result = invoke("batch", SAMPLE, "--out", out, "--no-progress")
    assert result.exit_code == 1
    assert result.stderr == f"error: {out}: cannot write (No space left on device)\n"
    assert not out.exists()


def test_report_names_an_output_it_cannot_write_with_the_reason(tmp_path, monkeypatch):
    def full_disk(source, target, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device", str(target))

    monkeypatch.setattr(shutil, "copytree", full_disk)
    out = tmp_path.resolve() / "out"
    result = invoke("report", "--out", out, "--no-progress")
    assert result.exit_code == 1
    assert result.stderr == (f"error: {out / 'mathjax'}: cannot write (No space left on device)\n")


def test_batch_fails_with_exit_1_on_a_missing_file(tmp_path):
    result = invoke("batch", tmp_path / "nope.csv", "--out", tmp_path / "out.csv")
    assert result.exit_code == 1
    assert result.stderr == (
        f"error: {tmp_path / 'nope.csv'}: cannot read the member file (no such file)\n"
    )


def test_batch_fails_with_exit_1_on_bad_guides(make_guide, tmp_path):
    broken = make_guide(csv=lambda text: text.replace("65,0,1.000000", "65,0,0.99"))
    out = tmp_path / "out.csv"
    result = invoke("batch", SAMPLE, "--out", out, "--guides", broken)
    assert result.exit_code == 1
    assert result.stderr == (
        f"error: {broken / 'reduction.csv'}:12: 'factor' must be 1 at 65y0m (got 0.99)\n"
    )
    assert not out.exists()


def test_batch_with_several_series_needs_series(make_guide, tmp_path):
    make_guide("guide-a")
    second = make_guide("guide-b")
    out = tmp_path / "out.csv"
    result = invoke("batch", SAMPLE, "--out", out, "--guides", second.parent)
    assert result.exit_code == 1
    assert "several series present, name one with series= / --series: ['guide-a', " in (
        result.stderr
    )
    chosen = invoke("batch", SAMPLE, "--out", out, "--guides", second.parent, "--series", "guide-b")
    assert chosen.exit_code == 0, chosen.output
    assert "guides: series 'guide-b' (guide-b)" in chosen.stdout.splitlines()


def test_batch_refuses_its_input_as_output_before_reading_it(tmp_path):
    """The refusal comes first, even for a member file it could not use (no columns)."""
    members = tmp_path / "members.csv"
    members.write_text("member_id\nM-1\n")
    before = members.read_bytes()
    result = invoke("batch", members, "--out", members)
    assert result.exit_code == 1, result.output
    assert result.stderr == refused_as_input(members)
    assert members.read_bytes() == before


def test_batch_never_overwrites_a_guide_of_another_series_read_beside_its_own(make_guide, tmp_path):
    make_guide("used")
    other = make_guide("other") / "reduction.csv"  # read and validated, not used
    before = other.read_bytes()
    result = invoke(
        "batch", SAMPLE, "--guides", tmp_path / "guides", "--series", "used", "--out", other
    )
    assert result.exit_code == 1, result.output
    assert result.stderr == refused_as_input(other)
    assert other.read_bytes() == before


@pytest.mark.parametrize("command", ["batch", "value", "report"])
def test_an_empty_series_is_refused_on_the_shipped_guides_too_never_read_as_the_default(
    command, tmp_path
):
    """``--series ""`` (an unset shell variable) is refused as with --guides, not the default."""
    out = tmp_path / "out.csv"
    given = {
        "batch": [SAMPLE, "--out", out],
        "value": [SAMPLE, "--out", out, "--mortality", "sult", "--interest", "0.05"],
        "report": ["--out", out, "--no-progress"],
    }[command]
    result = invoke(command, *given, "--series", "")
    assert result.exit_code == 1, result.output
    shipped = sorted(path.name for path in SHIPPED_GUIDES.iterdir() if path.is_dir())
    assert result.stderr == f"error: {SHIPPED_GUIDES}: 'series' must be in {shipped} (got '')\n"
    assert not out.exists()


# ------------------------------------------------------------------------------- guides
def test_guides_validate_lists_every_valid_guide():
    result = invoke("guides", "validate", SHIPPED_GUIDES)
    assert result.exit_code == 0, result.output
    assert (
        f"ok: {HALF_PERCENT_SERIES} (series '{HALF_PERCENT_SERIES}', illustrative, from "
        "1990-04-01 to open end, 11 rows, monthly-linear)"
    ) in result.stdout.splitlines()
    assert len(result.stdout.splitlines()) == len(
        [path for path in SHIPPED_GUIDES.iterdir() if (path / "guide.toml").exists()]
    )


def test_guides_validate_fails_listing_every_problem_of_every_guide(make_guide):
    first = make_guide(
        "guide-a",
        toml=lambda text: text.replace('status = "illustrative"', 'status = "draft"'),
        csv=lambda text: text.replace("58,0,0.580000", "58,0,abc"),
    )
    second = make_guide("guide-b", csv=lambda text: text.replace("65,0,1.000000", "65,0,0.99"))
    result = invoke("guides", "validate", first.parent)
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        "error: 3 problem(s) in the Actuarial Guides:",
        f"{first / 'guide.toml'}:4: 'status' must be in ['adopted', 'illustrative'] (got 'draft')",
        f"{first / 'reduction.csv'}:5: 'factor' must be a number (got 'abc')",
        f"{second / 'reduction.csv'}:12: 'factor' must be 1 at 65y0m (got 0.99)",
    ]


def test_guides_validate_refuses_overlapping_periods(make_guide):
    first = make_guide("first", toml=lambda text: text.replace('series = "first"', 'series = "pr"'))
    make_guide(
        "second",
        toml=lambda text: text.replace('series = "second"', 'series = "pr"').replace(
            "effective_from = 1990-04-01", "effective_from = 2010-01-01"
        ),
    )
    result = invoke("guides", "validate", first.parent)
    assert result.exit_code == 1
    assert "series 'pr': period of 'second' (from 2010-01-01) overlaps 'first'" in result.stderr


def test_guides_validate_states_every_overlap_beside_every_other_problem(make_guide):
    # A factor of 1.2 in 'first' hid the overlap of 'second' with it; of two series that
    # overlapped, only the first was named.
    def series(name, start="1990-04-01", title=None):
        def edit(text):
            text = text.replace(f'series = "{name}"', f'series = "{name[0]}"')
            text = text.replace("effective_from = 1990-04-01", f"effective_from = {start}")
            return text if title is None else re.sub(r"(?m)^title = .*$", title, text)

        return edit

    first = make_guide("p1", toml=series("p1"), csv=lambda text: text.replace("0.400000", "1.2", 1))
    second = make_guide("p2", toml=series("p2", "2010-01-01", title="title = 5"))
    make_guide("q1", toml=series("q1"))
    third = make_guide("q2", toml=series("q2", "2000-01-01"))
    result = invoke("guides", "validate", first.parent)
    assert result.exit_code == 1
    problems = result.stderr.splitlines()
    assert f"{second}: series 'p': period of 'p2' (from 2010-01-01) overlaps 'p1' " in (
        "\n".join(problems)
    )
    assert (
        f"{third}: series 'q': period of 'q2' (from 2000-01-01) overlaps 'q1' (1990-04-01 to "
        "open end)" in problems
    )
    assert any("'factor' must be in (0, 1] (got 1.2)" in line for line in problems)
    assert any("'title' must be a non-empty string (got 5)" in line for line in problems)
    assert problems[0] == f"error: {len(problems) - 1} problem(s) in the Actuarial Guides:"


@pytest.mark.parametrize(
    "command",
    [["show"], ["compare", "sult-5pct-monthly"], ["fit", "--mortality", "sult"]],
    ids=["show", "compare", "fit"],
)
def test_a_folder_of_guides_given_for_one_guide_is_named_as_such(tmp_path, command):
    # `guides show good` said "guide 'good' not found in .../guides" and compare and fit
    # "no guide folder here": good/ was there, holding guides.
    folder = tmp_path / "good"
    for guide_id in ("jcs-1990", "jcs-2013"):
        shutil.copytree(SHIPPED_GUIDES / HALF_PERCENT_SERIES, folder / guide_id)
    result = invoke("guides", command[0], folder, *command[1:])
    assert result.exit_code == 1
    said = (
        f"error: {folder}: a folder of guides (jcs-1990, jcs-2013), not one guide's folder: "
        f"give one of them, such as {folder / 'jcs-1990'}"
    )
    assert result.stderr.splitlines()[-1].startswith(said)


def test_guides_list_marks_the_default_series_among_the_shipped_guides_only(tmp_path):
    shipped = invoke("guides", "list")
    assert shipped.exit_code == 0, shipped.output
    assert f"{DEFAULT_SERIES} (default)" in shipped.stdout
    # A folder of one's own has no default series: a command given it without --series
    # takes its only series, or asks for one.
    shutil.copytree(SHIPPED_GUIDES / DEFAULT_SERIES, tmp_path / DEFAULT_SERIES)
    shutil.copytree(SHIPPED_GUIDES / HALF_PERCENT_SERIES, tmp_path / HALF_PERCENT_SERIES)
    own = invoke("guides", "list", "--guides", tmp_path)
    assert own.exit_code == 0, own.output
    assert DEFAULT_SERIES in own.stdout and "(default)" not in own.stdout


def test_guides_show_prints_the_metadata_and_the_table():
    result = invoke("guides", "show", HALF_PERCENT_SERIES)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert f"id: {HALF_PERCENT_SERIES}" in lines
    assert "interpolation: monthly-linear" in lines
    assert "basis.reduction_per_month: 0.005" in lines
    assert lines[-1].split() == ["65", "0", "1.000000"]
    assert lines[-11].split() == ["55", "0", "0.400000"]


def test_guides_show_prints_the_basis_as_guide_toml_writes_it(make_guide):
    # Python's forms were shown: True, datetime.date(2020, 1, 2), {'a': 1}, 2020-01-01 10:00:00.
    basis = (
        'flag = true\nstamp = 2020-01-01T10:00:00\nlist = [1, "a", 2020-01-02]\n'
        'nested = {a = 1, b = "x"}\nnote = "as written"\n'
    )
    folder = make_guide(toml=lambda text: text + basis)
    result = invoke("guides", "show", folder.name, "--guides", folder.parent)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert "basis.flag: true" in lines
    assert "basis.stamp: 2020-01-01T10:00:00" in lines
    assert 'basis.list: [1, "a", 2020-01-02]' in lines
    assert 'basis.nested: {a = 1, b = "x"}' in lines
    assert "basis.note: as written" in lines


def test_guides_show_prints_every_digit_of_a_factor_given_with_more_than_six_decimals(
    make_guide,
):
    folder = make_guide(csv=lambda text: text.replace("55,0,0.400000", "55,0,0.4123456789"))
    result = invoke("guides", "show", folder.name, "--guides", folder.parent)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[-11].split() == ["55", "0", "0.4123456789"]  # as the engine reads it
    assert lines[-1].split() == ["65", "0", "1.0000000000"]  # one column, one precision


def test_guides_show_prints_a_factor_too_small_for_fixed_decimals_exactly(make_guide):
    folder = make_guide(csv=lambda text: text.replace("55,0,0.400000", "55,0,1.5e-300"))
    result = invoke("guides", "show", folder.name, "--guides", folder.parent)
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-11].split() == ["55", "0", "1.5e-300"]


@pytest.mark.parametrize(
    "command",
    [
        ["validate", "{guides}"],
        ["list", "--guides", "{guides}"],
        ["show", "guide-b", "--guides", "{guides}"],
        ["show", "{locked}"],
        ["compare", "{locked}", "guide-a"],
        ["fit", "{locked}", "--mortality", "sult"],
    ],
    ids=["validate", "list", "show", "show-folder", "compare", "fit"],
)
def test_guide_commands_on_a_folder_that_cannot_be_searched_fail_with_the_reason(
    make_guide, monkeypatch, command
):
    # A guide folder of mode 000 (another user's): even asking whether its guide.toml exists
    # raises PermissionError.
    from pathlib import Path

    make_guide("guide-a")
    locked = make_guide("guide-b")
    stat = Path.stat

    def refuse_inside(self, *args, **kwargs):
        if self.parent.name == locked.name:
            raise PermissionError(13, "Permission denied", str(self))
        return stat(self, *args, **kwargs)

    monkeypatch.setattr(Path, "stat", refuse_inside)
    arguments = [a.format(guides=locked.parent, locked=locked) for a in command]
    result = invoke("guides", *arguments)
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert result.stderr.startswith("error: ") and "cannot read (Permission denied)" in (
        result.stderr
    )


def test_guides_derive_refuses_a_guide_that_overlaps_a_sibling_and_writes_nothing(tmp_path):
    # Before, my/g2 was written beside my/g1 of the same series and period: every command
    # on my/ then failed.
    common = ("guides", "derive", "--mortality", "sult", "--series", "s", "--interest")
    assert invoke(*common, "0.045", "--out", tmp_path / "my" / "g1").exit_code == 0
    result = invoke(*common, "0.05", "--out", tmp_path / "my" / "g2")
    assert result.exit_code == 1, result.output
    out = tmp_path / "my" / "g2"
    assert result.stderr == (
        f"error: {out}: series 's': period of 'g2' (from 1990-04-01) overlaps 'g1' "
        f"(1990-04-01 to open end)\n{out}: not written: {tmp_path / 'my'} would no longer "
        "load; give the guide a period apart from the other guides of series 's', another "
        "series or another folder\n"
    )
    assert [path.name for path in (tmp_path / "my").iterdir()] == ["g1"]


DERIVE = ("guides", "derive", "--mortality", "sult", "--interest", "0.05", "--out")


def derive_refused(out) -> str:
    """What `guides derive ... --out OUT` says on stderr, refused (exit status 1)."""
    result = invoke(*DERIVE, out)
    assert result.exit_code == 1, result.output
    return result.stderr


def _holds(folder, what: str) -> str:
    return (
        f"error: {folder}: holds {what}: not replaced; use --force (in Python, replace=True) "
        "to replace it, or write the new guide into another folder\n"
    )


def test_guides_derive_replaces_a_guide_only_with_force(tmp_path):
    # `guides derive --out good/jcs-1990` replaced the Board's adopted guide without a word:
    # its series then had no guide before 2013.
    adopted = tmp_path / "good" / "jcs-1990"
    shutil.copytree(SHIPPED_GUIDES / HALF_PERCENT_SERIES, adopted)
    toml = adopted / "guide.toml"
    toml.write_text(
        toml.read_text(encoding="utf-8").replace(f'"{HALF_PERCENT_SERIES}"', '"jcs-1990"'),
        encoding="utf-8",
    )
    (adopted / "minutes.txt").write_text("adopted 1990", encoding="utf-8")
    before = {path.name: path.read_bytes() for path in adopted.iterdir()}
    held = f"a guide already ({toml}, {adopted / 'reduction.csv'})"
    assert derive_refused(adopted) == _holds(adopted, held)
    assert {path.name: path.read_bytes() for path in adopted.iterdir()} == before
    result = invoke(*DERIVE, adopted, "--force")
    assert result.exit_code == 0, result.output
    assert load_guide(adopted).basis["interest_rate"] == 0.05
    assert (adopted / "minutes.txt").read_text(encoding="utf-8") == "adopted 1990"


@pytest.mark.parametrize("name", ["reduction.csv", "guide.toml"])
def test_guides_derive_replaces_no_file_of_a_guide_without_force(tmp_path, name):
    # A folder holding the Board's reduction.csv, its guide.toml not yet written: derive
    # wrote its own table over the Board's without a word.
    board = tmp_path / "board"
    board.mkdir()
    (board / name).write_text("age_years,age_months,factor\n55,0,0.61\n65,0,1\n")
    assert derive_refused(board) == _holds(board, f"a guide's file already ({board / name})")
    assert [path.name for path in board.iterdir()] == [name]
    assert (board / name).read_text() == "age_years,age_months,factor\n55,0,0.61\n65,0,1\n"
    assert invoke(*DERIVE, board, "--force").exit_code == 0


@pytest.mark.parametrize("name", [".hidden", " space", "space ", "..x"])
def test_guides_derive_refuses_an_id_the_guides_folder_would_hide_or_pad(tmp_path, name):
    # --out d/.hidden was written, then never listed nor loaded (hidden folders are skipped);
    # --out "d/ space" made the id " space".
    out = tmp_path / "d" / name
    result = invoke("guides", "derive", "--mortality", "sult", "--interest", "0.05", "--out", out)
    assert result.exit_code == 1, result.output
    assert result.stderr == (
        f"error: {out}: 'id' must not begin or end with white space, nor "
        f"begin with '.' (got '{name}')\n"
    )
    assert not out.exists() or list(out.iterdir()) == []


def test_guides_derive_refuses_a_link_to_a_folder_of_another_name(tmp_path):
    # --out guides/current (a link to guides/jcs-2027) wrote id = "current" into jcs-2027:
    # a guide its folder's name contradicts, which made every run on guides/ fail.
    (tmp_path / "guides" / "jcs-2027").mkdir(parents=True)
    (tmp_path / "guides" / "current").symlink_to("jcs-2027")
    out = tmp_path / "guides" / "current"
    result = invoke("guides", "derive", "--mortality", "sult", "--interest", "0.05", "--out", out)
    assert result.exit_code == 1, result.output
    target = (tmp_path / "guides" / "jcs-2027").resolve()
    assert result.stderr == (
        f"error: {out}: a link to {target}: a guide's id is its folder's name, there "
        f"'jcs-2027', not 'current': give {target} as the folder\n"
    )
    assert list((tmp_path / "guides" / "jcs-2027").iterdir()) == []


def test_guides_show_takes_a_guide_folder_as_compare_does(tmp_path, monkeypatch):
    shutil.copytree(SHIPPED_GUIDES / HALF_PERCENT_SERIES, tmp_path / "mine" / "jcs")
    (tmp_path / "mine" / "jcs" / "guide.toml").write_text(
        (tmp_path / "mine" / "jcs" / "guide.toml")
        .read_text(encoding="utf-8")
        .replace(f'id = "{HALF_PERCENT_SERIES}"', 'id = "jcs"'),
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    result = invoke("guides", "show", "mine/jcs")
    assert result.exit_code == 0, result.output
    assert "id: jcs" in result.stdout.splitlines()


def test_guides_show_reads_a_guide_folder_given_as_guides_as_list_and_validate_do(make_guide):
    # list and validate read --guides jcs as the guide jcs; show said "guide 'jcs' not found
    # in .../jcs (guides: [])".
    folder = make_guide("jcs")
    assert invoke("guides", "list", "--guides", folder).stdout.splitlines()[1].startswith("jcs ")
    result = invoke("guides", "show", "jcs", "--guides", folder)
    assert result.exit_code == 0, result.output
    assert "id: jcs" in result.stdout.splitlines()
    other = invoke("guides", "show", "adopted-2015", "--guides", folder)
    assert other.exit_code == 1
    assert other.stderr == f"error: guide 'adopted-2015' not found in {folder} (guides: ['jcs'])\n"


def test_guides_show_an_unknown_id_lists_the_available_ids(tmp_path):
    shutil.copytree(SHIPPED_GUIDES / HALF_PERCENT_SERIES, tmp_path / HALF_PERCENT_SERIES)
    result = invoke("guides", "show", "adopted-2015", "--guides", tmp_path)
    assert result.exit_code == 1
    assert result.stderr == (
        f"error: guide 'adopted-2015' not found in {tmp_path} (guides: ['{HALF_PERCENT_SERIES}'])\n"
    )


def test_a_guide_whose_guide_toml_is_a_folder_is_named_as_guides_validate_names_it(tmp_path):
    """guides show and compare asked whether guide.toml is a file, guides validate whether
    it is there (guides._is_there): such a guide was 'not found (guides: [])' by the first
    two. Now one question, and the loader says why it cannot be read."""
    folder = tmp_path / "jcs"
    shutil.copytree(SHIPPED_GUIDES / HALF_PERCENT_SERIES, folder)
    (folder / "guide.toml").unlink()
    (folder / "guide.toml").mkdir()
    reason = f"error: {folder / 'guide.toml'}: cannot read (Is a directory)\n"
    assert invoke("guides", "validate", folder).stderr == reason
    for args in (["show", "jcs", "--guides", tmp_path], ["show", folder],
                 ["compare", folder, HALF_PERCENT_SERIES]):  # fmt: skip
        result = invoke("guides", *args)
        assert (result.exit_code, result.stderr) == (1, reason), args


def test_guides_show_in_a_folder_that_does_not_exist_fails_with_the_reason(tmp_path):
    result = invoke("guides", "show", HALF_PERCENT_SERIES, "--guides", tmp_path / "nope")
    assert result.exit_code == 1
    assert result.stderr == f"error: {tmp_path / 'nope'}: not a folder of Actuarial Guides\n"


# ------------------------------------------------------------- review of a guide
def test_guides_derive_writes_a_guide_that_loads_and_fits_back_to_its_interest(tmp_path):
    out = tmp_path / "sult-6.25"
    derived = invoke(
        "guides",
        "derive",
        "--mortality",
        "sult",
        "--interest",
        "0.0625",
        "--out",
        out,
        "--effective-from",
        "2000-01-01",
    )
    assert derived.exit_code == 0, derived.output
    assert "written:" in derived.output and "121 rows" in derived.output
    validated = invoke("guides", "validate", out)
    assert validated.exit_code == 0 and "ok: sult-6.25" in validated.output
    fitted = invoke("guides", "fit", out, "--mortality", "sult")
    assert fitted.exit_code == 0, fitted.output
    assert (
        "implied interest rate on the guide file's 120 rows below 65y0m: 6.2500%" in fitted.output
    )
    assert "on every month the engine reads (120 below 65y0m, exact): 6.2500%" in fitted.output


@pytest.mark.parametrize(("interest", "shown"), [("0.0123456789", "1.23456789"), ("-0.0", "0")])
def test_guides_derive_titles_the_guide_with_every_digit_of_its_interest(tmp_path, interest, shown):
    out = tmp_path / "g"
    result = invoke(
        "guides", "derive", "--mortality", "sult", f"--interest={interest}", "--out", out
    )
    assert result.exit_code == 0, result.output
    assert load_guide(out).title == (
        f"Reduction factors by actuarial equivalence: mortality sult, {shown}%, m = 12"
    )


def test_guides_derive_records_the_blend_in_the_basis(tmp_path):
    out = tmp_path / "pub"
    result = invoke(
        "guides",
        "derive",
        "--mortality",
        "soa:3400,soa:3399:0.5",
        "--interest",
        "0.045",
        "--out",
        out,
    )
    assert result.exit_code == 0, result.output
    toml = (out / "guide.toml").read_text()
    assert 'mortality = "50% PubG-2010 Male Retiree + 50% PubG-2010 Female Retiree"' in toml
    assert "interest_rate = 0.045" in toml


@pytest.mark.parametrize("option", ["--series", "--title"])
def test_guides_derive_refuses_an_empty_series_or_title_rather_than_replace_it(tmp_path, option):
    out = tmp_path / "g"
    result = invoke(
        "guides", "derive", "--mortality", "sult", "--interest", "0.05", "--out", out, option, ""
    )
    assert result.exit_code == 1, result.output
    name = option[2:]
    assert result.stderr == (
        f"error: {out}: '{name}' must be a non-empty string (got '')\n"  # no file is written
    )
    assert not out.exists()


def test_guides_derive_refuses_a_bad_mortality_spec_with_the_rule(tmp_path):
    result = invoke(
        "guides", "derive", "--mortality", "sult,ilt", "--interest", "0.05", "--out", tmp_path / "x"
    )
    assert result.exit_code == 2
    assert "'mortality' blend must state a weight" in result.output
    assert not (tmp_path / "x").exists()


def test_guides_fit_of_the_half_percent_guide_reports_where_it_departs_most():
    result = invoke("guides", "fit", HALF_PERCENT_SERIES, "--mortality", "sult", "--top", "1")
    assert result.exit_code == 0, result.output
    # The 0.5%-a-month line fits SULT best near 6.08% on its 11 rows, but 5.91% on the
    # 121 months the engine reads (linear between the rows); it departs most at 55y0m.
    assert "on the guide file's 10 rows below 65y0m: 6.0758%; rmse 0.032846" in result.output
    assert (
        "on every month the engine reads (120 below 65y0m, monthly-linear): 5.9089%"
        in result.output
    )
    assert result.output.splitlines()[-1].split()[:4] == ["55", "0", "0.400000", "0.465491"]


def test_guides_fit_says_when_the_best_rate_lies_below_the_rates_searched(tmp_path):
    # Factors of 1 from 55 on: on SULT only a rate below 0% comes near them, never 0% itself.
    folder = tmp_path / "no-reduction"
    shutil.copytree(SHIPPED_GUIDES / HALF_PERCENT_SERIES, folder)
    toml = folder / "guide.toml"
    toml.write_text(
        toml.read_text().replace(f'id = "{HALF_PERCENT_SERIES}"', 'id = "no-reduction"')
    )
    (folder / "reduction.csv").write_text("age_years,age_months,factor\n55,0,1\n65,0,1\n")
    result = invoke("guides", "fit", folder, "--mortality", "sult")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[1].startswith(
        "implied interest rate on the guide file's 1 row below 65y0m: below 0.0000%, the lowest "
        "rate "
        "searched (0.0000% to 20.0000%): the guide fits no rate searched; at 0.0000%: rmse "
    )
    assert lines[2].startswith(
        "implied interest rate on every month the engine reads (120 below 65y0m, "
        "monthly-linear): below "
        "0.0000%, the lowest rate searched"
    )


@pytest.mark.parametrize(
    "command",
    [
        ["value", SAMPLE, "--mortality", "sult", "--no-sensitivities", "--out", "OUT.csv"],
        ["guides", "derive", "--mortality", "sult", "--out", "OUT"],
        ["guides", "subsidy", DEFAULT_SERIES, "--mortality", "sult"],
    ],
    ids=["value", "derive", "subsidy"],
)
@pytest.mark.parametrize(
    ("interest", "warned"),
    [("4.5", "4.5 is read as a rate: 450% a year"), ("1", "1 is read as a rate: 100% a year"),
     ("0.999", None), ("0.045", None)],
)  # fmt: skip
def test_an_interest_of_100_percent_or_more_is_read_as_a_rate_with_a_warning(
    command, interest, warned, tmp_path
):
    # Before: --interest 4.5 (4.5% meant) ran at 450% a year without a word.
    args = [str(tmp_path / arg) if arg.startswith("OUT") else arg for arg in command]
    result = invoke(*args, "--interest", interest)
    first = result.stderr.splitlines()[:1]
    if warned is None:
        assert not any(line.startswith("warning: --interest") for line in first)
    else:
        assert first == [f"warning: --interest {warned} (0.045 = 4.5%)"]


NOT_RUN_OUT = (
    "error: table 'PubG-2010 Male Employee' does not run out: its last age is 80 with "
    "q = 0.0173 (below 1), so survival beyond 81 is unknown; use a table that runs out, "
    "join one from a later age, or close this one explicitly (--close-at AGE, Python: "
    "table.close_at(AGE))\n"
)


@pytest.mark.parametrize(
    "command",
    [
        ["derive", "--interest", "0.05", "--out", "OUT"],
        ["fit", DEFAULT_SERIES],
        ["subsidy", DEFAULT_SERIES, "--interest", "0.05"],
    ],
    ids=["derive", "fit", "subsidy"],
)
def test_guides_review_refuses_a_table_that_does_not_run_out_in_one_line(command, tmp_path):
    args = [tmp_path / "g" if arg == "OUT" else arg for arg in command]
    result = invoke("guides", *args, "--mortality", "soa:3398")
    assert result.exit_code == 1
    assert result.stderr == NOT_RUN_OUT
    assert not (tmp_path / "g").exists()
    closed = invoke("guides", *args, "--mortality", "soa:3398", "--close-at", "81")
    assert closed.exit_code == 0, closed.output


@pytest.mark.parametrize("command", ["derive", "fit", "subsidy"])
def test_guides_review_refuses_a_table_without_the_ages_in_one_line(command, tmp_path):
    table = tmp_path / "old.csv"
    table.write_text(
        "age,qx\n" + "".join(f"{a},{min(1, 0.01 * (a - 59))}\n" for a in range(60, 160))
    )
    args = {
        "derive": ["derive", "--interest", "0.05", "--out", tmp_path / "g"],
        "fit": ["fit", DEFAULT_SERIES],
        "subsidy": ["subsidy", DEFAULT_SERIES, "--interest", "0.05"],
    }[command]
    result = invoke("guides", *args, "--mortality", f"csv:{table}")
    assert result.exit_code == 1
    assert result.stderr == "error: 'age' must be in [60, 160) for table 'old' (got 55)\n"


@pytest.mark.parametrize(
    ("options", "kind", "hint"),
    [
        (["--mortality", "csv:{folder}"], "life table", "'--mortality'"),
        (["--mortality", "sult", "--improvement", "csv:{folder}"], "improvement scale",
         "'--mortality' / '--improvement'"),
    ],
)  # fmt: skip
def test_a_table_or_scale_file_that_cannot_be_read_is_one_line_naming_it(
    options, kind, hint, tmp_path
):
    folder = tmp_path / "rates.csv"
    folder.mkdir()  # a folder where a CSV file of rates is expected: no traceback
    out = tmp_path / "values.csv"
    options = [option.format(folder=folder) for option in options]
    result = invoke("value", SAMPLE, "--out", out, "--interest", "0.05", *options)
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1] == (
        f"Error: Invalid value for {hint}: {folder}: {kind}: cannot read (Is a directory)"
    )
    assert "Traceback" not in result.output
    assert not out.exists()


@pytest.mark.parametrize(
    ("options", "hint"),
    [
        (["--female-weight", "0.9"], "'--mortality' / '--female-weight'"),
        (["--base-year", "2010"], "'--mortality' / '--base-year'"),
    ],
)
def test_a_basis_option_that_does_not_fit_the_table_is_named_in_the_error(options, hint):
    # Both were "Invalid value for '--mortality'": the table given was right.
    result = invoke("value", SAMPLE, "--out", "unused.csv", "--interest", "0.05", *options,
                    "--mortality", "sult")  # fmt: skip
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1].startswith(f"Error: Invalid value for {hint}: '")


def test_guides_compare_puts_the_largest_difference_first():
    result = invoke("guides", "compare", HALF_PERCENT_SERIES, "sult-5pct-monthly", "--top", "2")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == f"difference = {HALF_PERCENT_SERIES} - sult-5pct-monthly"
    # 55y0m: 0.400000 (0.5% a month for 120 months) against 0.497896 (SULT 5%).
    assert lines[2].split() == ["55", "0", "0.400000", "0.497896", "-0.097896"]


def test_guides_compare_shows_a_difference_beyond_six_decimals_as_show_shows_the_factors(
    make_guide,
):
    # Two guides apart by 1e-7 at 56y0m were printed alike with a difference of 0.000000.
    first = make_guide("guide-a")
    second = make_guide("guide-b", csv=lambda text: text.replace("56,0,0.46", "56,0,0.4600001"))
    result = invoke("guides", "compare", first, second)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[2].split() == ["56", "0", "0.4600000", "0.4600001", "-0.0000001"]
    assert lines[-1].split() == ["65", "0", "1.0000000", "1.0000000", "0.0000000"]


def test_guides_compare_names_two_guides_of_one_id_by_their_folders(make_guide):
    # A changed copy of a guide against the guide: "difference = guide-a - guide-a", and two
    # columns both headed guide-a.
    first = make_guide("guide-a")
    second = make_guide("guide-a", root=first.parent.parent / "copy",
                        csv=lambda text: text.replace("56,0,0.46", "56,0,0.45"))  # fmt: skip
    result = invoke("guides", "compare", first, second, "--top", "1")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == f"difference = {first} - {second}"
    assert lines[1].split() == ["age_years", "age_months", str(first), str(second), "difference"]
    assert lines[2].split() == ["56", "0", "0.460000", "0.450000", "0.010000"]


@pytest.mark.parametrize(
    "command",
    [
        ["fit", "sult-5pct-monthly", "--mortality", "sult", "--top", "121"],
        ["subsidy", "sult-5pct-monthly", "--mortality", "sult", "--interest", "0.05"],
        ["compare", "sult-5pct-monthly", "pub2010-general-unisex-4.5pct"],
    ],
    ids=["fit", "subsidy", "compare"],
)
def test_guides_review_tables_never_print_a_minus_zero(command):
    # A deviation of -3e-7 (the rounding of a derived guide) printed as -0.000000.
    result = invoke("guides", *command)
    assert result.exit_code == 0, result.output
    assert re.search(r"\s0\.000000(\s|$)", result.output)
    assert "-0.000000" not in result.output


def test_guides_subsidy_gives_ratio_and_present_value_by_age():
    result = invoke(
        "guides", "subsidy", HALF_PERCENT_SERIES, "--mortality", "sult", "--interest", "0.05"
    )
    assert result.exit_code == 0, result.output
    rows = {line.split()[0]: line.split() for line in result.output.splitlines()[2:]}
    assert rows["55"][2:5] == ["0.400000", "0.497896", "0.803381"]
    # The basis the equivalent factors are on, as fit states it.
    assert result.output.splitlines()[0] == (
        f"guide: {HALF_PERCENT_SERIES}; mortality sult; interest 5%; payments per year: 12; "
        "method udd; "
        "per $1 a year of normal-retirement annuity, present value at the retirement age"
    )
    assert rows["65"][5] in ("0.000000", "-0.000000")


@pytest.mark.parametrize("command", ["fit", "subsidy", "compare"])
def test_a_guide_folder_here_named_as_a_shipped_guide_is_read_with_a_warning(
    tmp_path, monkeypatch, command
):
    # A folder here named as a shipped guide was read instead of it, without a word.
    shutil.copytree(SHIPPED_GUIDES / DEFAULT_SERIES, tmp_path / DEFAULT_SERIES)
    monkeypatch.chdir(tmp_path)
    basis = {
        "fit": ["--mortality", "sult"],
        "subsidy": ["--mortality", "sult", "--interest", "0.05"],
        "compare": ["sult-5pct-monthly"],
    }[command]
    result = invoke("guides", command, DEFAULT_SERIES, *basis)
    assert result.exit_code == 0, result.output
    assert result.stderr == (
        f"warning: {DEFAULT_SERIES}: the guide folder here is read, not the shipped guide of "
        "that id\n"
    )
    shipped = invoke("guides", command, str(SHIPPED_GUIDES / DEFAULT_SERIES), *basis)
    assert shipped.stderr == "" and shipped.stdout == result.stdout  # an unchanged copy


@pytest.mark.parametrize("method", ["constant-force", "woolhouse3"])
def test_fit_and_subsidy_take_the_method_derive_took_and_give_back_its_basis(tmp_path, method):
    # A guide derived with --method could only be reviewed under UDD: fit found 4.9982% and
    # subsidy a subsidy for a guide equivalent at 5% by construction.
    out = tmp_path / "g"
    basis = ["--mortality", "sult", "--payments-per-year", "4", "--method", method]
    derived = invoke("guides", "derive", *basis, "--interest", "0.05", "--out", out)
    assert derived.exit_code == 0, derived.output
    fit = invoke("guides", "fit", out, *basis)
    assert fit.exit_code == 0, fit.output
    lines = fit.stdout.splitlines()
    assert lines[0] == f"guide: g; mortality sult; payments per year: 4; method {method}"
    assert lines[1].startswith(
        "implied interest rate on the guide file's 120 rows below 65y0m: 5.0000%; "
    )
    subsidy = invoke("guides", "subsidy", out, *basis, "--interest", "0.05")
    assert subsidy.exit_code == 0, subsidy.output
    lines = subsidy.stdout.splitlines()
    assert "; payments per year: 4; method " + method + "; per $1" in lines[0]
    ratios = [float(line.split()[4]) for line in lines[2:]]
    assert ratios == pytest.approx([1.0] * 121, abs=2e-6)  # the guide's 6 decimals


INTEREST_COMMANDS = {
    "derive": ["guides", "derive", "--mortality", "sult", "--out", "{tmp}/derived"],
    "subsidy": ["guides", "subsidy", HALF_PERCENT_SERIES, "--mortality", "sult"],
    "value": ["value", SAMPLE, "--mortality", "sult", "--out", "{tmp}/values.csv"],
}


@pytest.mark.parametrize("command", INTEREST_COMMANDS)
@pytest.mark.parametrize("rate", ["nan", "inf", "-inf", "-1", "-2"])
def test_every_interest_option_refuses_a_rate_that_is_not_finite_or_above_minus_one(
    command, rate, tmp_path
):
    arguments = [arg.format(tmp=tmp_path) for arg in map(str, INTEREST_COMMANDS[command])]
    result = invoke(*arguments, "--interest", rate)
    assert result.exit_code == 2, result.output
    rule = (
        f"'interest' must be a finite rate > -1 (got {rate})"
        if rate in ("-1", "-2")
        else f"{rate!r} is not a decimal number."  # nan, inf: no decimal number, as in files
    )
    assert result.output.endswith(f"Error: Invalid value for '--interest': {rule}\n")
    assert list(tmp_path.iterdir()) == []  # refused before anything ran


@pytest.mark.parametrize("command", ["derive", "fit", "subsidy"])
@pytest.mark.parametrize("m", ["0", "366", "100000000"])
def test_payments_per_year_are_one_to_daily_before_anything_runs(command, m, tmp_path):
    arguments = {
        "derive": ["guides", "derive", "--mortality", "sult", "--interest", "0.05",
                   "--out", tmp_path / "derived"],
        "fit": ["guides", "fit", HALF_PERCENT_SERIES, "--mortality", "sult"],
        "subsidy": ["guides", "subsidy", HALF_PERCENT_SERIES, "--mortality", "sult",
                    "--interest", "0.05"],
    }[command]  # fmt: skip
    result = invoke(*arguments, "--payments-per-year", m)
    assert result.exit_code == 2, result.output
    assert result.output.endswith(
        f"Error: Invalid value for '--payments-per-year': {m} is not in the range 1<=x<=365.\n"
    )
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command", ["derive", "fit", "subsidy"])
@pytest.mark.parametrize("option", ["--cohort", "--base-year"])
@pytest.mark.parametrize("year", ["1899", "2101", "201", "10000000000000000000000"])
def test_a_cohort_or_base_year_is_a_year_from_1900_to_2100_before_anything_runs(
    command, option, year, tmp_path
):
    arguments = {
        "derive": ["guides", "derive", "--interest", "0.05", "--out", tmp_path / "derived"],
        "fit": ["guides", "fit", HALF_PERCENT_SERIES],
        "subsidy": ["guides", "subsidy", HALF_PERCENT_SERIES, "--interest", "0.05"],
    }[command]
    result = invoke(*arguments, "--mortality", "soa:3399", "--improvement", "mp-2020", option, year)
    assert result.exit_code == 2, result.output
    assert result.output.endswith(
        f"Error: Invalid value for '{option}': {year} is not in the range 1900<=x<=2100.\n"
    )
    assert list(tmp_path.iterdir()) == []


def test_guides_derive_of_a_guide_the_loader_would_refuse_writes_nothing(tmp_path):
    result = invoke(
        "guides", "derive", "--mortality", "sult", "--interest", "0.05",
        "--out", tmp_path / "x", "--effective-from", "2030-01-01",
        "--effective-until", "2020-01-01",
    )  # fmt: skip
    assert result.exit_code == 1
    assert result.output == (
        f"error: {tmp_path / 'x'}: 'effective_until' must be on or after "
        "'effective_from' 2030-01-01 (got 2020-01-01)\n"
    )
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "arguments",
    [
        ["evaluate", "--birth-date", "1960-01-01", "--entry-date", "1995-01-01",
         "--separation-date", "2020-01-01", "--service", "25", "--compensation", "40000"],
        ["batch", SAMPLE, "--out", "{tmp}/out.csv"],
        ["value", SAMPLE, "--mortality", "sult", "--interest", "0.05", "--out", "{tmp}/v.csv"],
        ["report", "--out", "{tmp}/report"],
    ],
    ids=["evaluate", "batch", "value", "report"],
)  # fmt: skip
@pytest.mark.parametrize("nan", ["nan", "NaN", "-nan"])
def test_a_numeric_reading_switch_refuses_nan_before_anything_runs(arguments, nan, tmp_path):
    result = invoke(
        *[arg.format(tmp=tmp_path) for arg in map(str, arguments)],
        "--deferred-minimum-service", nan,
    )  # fmt: skip
    assert result.exit_code == 2, result.output
    assert result.output.endswith(
        f"Error: Invalid value for '--deferred-minimum-service': {nan!r} is not a decimal "
        "number in the range 0<=x<=120.\n"
    )
    assert list(tmp_path.iterdir()) == []


def test_the_female_weight_refuses_nan():
    result = invoke(
        "guides", "subsidy", HALF_PERCENT_SERIES, "--mortality", "soa:3399/soa:3400",
        "--interest", "0.05", "--female-weight", "nan",
    )  # fmt: skip
    assert result.exit_code == 2
    assert result.output.endswith(
        "Error: Invalid value for '--female-weight': 'nan' is not a decimal number in the range "
        "0<=x<=1.\n"
    )


@pytest.mark.parametrize(
    "number", ["0.5_0", "\u0660.\u0665", "inf", "-Infinity", "1e5_0", "0x1", "1e400", "-1e400"]
)
@pytest.mark.parametrize(
    "option, arguments, bounds",
    [
        ("--interest", ["value", SAMPLE, "--mortality", "sult", "--out", "{tmp}/v.csv"], ""),
        ("--deferred-minimum-service", ["batch", SAMPLE, "--out", "{tmp}/b.csv"], "0<=x<=120"),
        ("--female-weight", ["guides", "subsidy", HALF_PERCENT_SERIES, "--mortality",
                             "soa:3399/soa:3400", "--interest", "0.05"], "0<=x<=1"),
    ],
)  # fmt: skip
def test_number_options_are_plain_decimal_numbers_as_in_files(
    number, option, arguments, bounds, tmp_path
):
    """Python's float() read 0.5_0 as 0.5, Arabic-Indic digits as digits, inf as a number;
    a number beyond a float was quoted as the inf it became (got inf), not as written."""
    result = invoke(*[arg.format(tmp=tmp_path) for arg in arguments], option, number)
    assert result.exit_code == 2, result.output
    where = f" in the range {bounds}" if bounds else ""
    if number.endswith("1e400"):
        rule = f"is not{where}" if bounds else "is beyond a float's range"
    else:
        rule = f"is not a decimal number{where}"
    assert result.output.endswith(f"Error: Invalid value for '{option}': {number!r} {rule}.\n")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("number", ["1_2", "\u0661\u0662", "\u00b9\u00b2", "12.0"])
@pytest.mark.parametrize(
    "option, arguments, bounds",
    [
        ("--payments-per-year", ["guides", "fit", HALF_PERCENT_SERIES, "--mortality", "sult"],
         " in the range 1<=x<=365"),
        ("--top", ["guides", "fit", HALF_PERCENT_SERIES, "--mortality", "sult"],
         " in the range x>=1"),
        ("--close-at", ["guides", "fit", HALF_PERCENT_SERIES, "--mortality", "sult"], ""),
        ("--cohort", ["guides", "fit", HALF_PERCENT_SERIES, "--mortality", "soa:3400",
                      "--improvement", "mp-2020"], " in the range 1900<=x<=2100"),
        ("--chunk-rows", ["batch", SAMPLE, "--out", "{tmp}/b.csv"], " in the range x>=1"),
    ],
)  # fmt: skip
def test_whole_number_options_are_ascii_digits_as_in_files(
    number, option, arguments, bounds, tmp_path
):
    """int() read 1_2 as 12 and Arabic-Indic digits as digits (README: ASCII digits, no _)."""
    result = invoke(*[arg.format(tmp=tmp_path) for arg in arguments], option, number)
    assert result.exit_code == 2, result.output
    assert result.output.endswith(
        f"Error: Invalid value for '{option}': {number!r} is not a whole number{bounds}.\n"
    )
    assert list(tmp_path.iterdir()) == []


def test_minus_zero_in_a_number_option_is_zero_in_what_is_shown_and_written(tmp_path):
    """'-0' was written as deferred_minimum_service=-0.0 in every row, and shown as -0%."""
    out = tmp_path / "b.csv"
    result = invoke("batch", SAMPLE, "--out", out, "--deferred-minimum-service", "-0")
    assert result.exit_code == 0, result.output
    assert "readings: deferred_minimum_service=0" in result.stdout.splitlines()
    assert set(pd.read_csv(out)["readings"]) == {"deferred_minimum_service=0"}
    weights = invoke(
        "guides", "subsidy", HALF_PERCENT_SERIES, "--mortality", "soa:3399/soa:3400",
        "--interest", "-0", "--female-weight", "-0",
    )  # fmt: skip
    assert weights.exit_code == 0, weights.output
    assert "members of unstated sex: 0% female + 100% male; interest 0%;" in weights.stdout


def test_an_option_of_any_decimal_number_states_no_range_in_its_help():
    """--interest's help said [x<=None; required]."""
    result = invoke("value", "--help")
    assert result.exit_code == 0, result.output
    assert "None" not in result.stdout
    assert (
        "Annual effective rate, e.g. 0.045 for 4.5% (1 or more, 100% a year or more, runs with "
        "a warning). [required]"
    ) in " ".join(result.stdout.split())


LONG = "x" * 200


@pytest.mark.parametrize(
    "arguments",
    [
        ["batch", SAMPLE, "--out", "never.csv", "--as-of", LONG],
        [
            "guides",
            "derive",
            "--mortality",
            "sult",
            "--interest",
            "0.05",
            "--out",
            "never",
            "--effective-from",
            LONG,
        ],
        ["guides", "derive", "--mortality", LONG, "--interest", "0.05", "--out", "never"],
        [
            "guides",
            "subsidy",
            HALF_PERCENT_SERIES,
            "--mortality",
            "sult",
            "--interest",
            "0.05",
            "--improvement",
            LONG,
        ],
        ["guides", "show", LONG],
    ],  # fmt: skip
    ids=["as-of", "effective-from", "mortality", "improvement", "show"],
)
def test_a_long_option_value_is_quoted_at_most_80_characters(arguments):
    # --as-of, --effective-from, --mortality and guides show echoed all 200 characters,
    # where values from member files and --series are cut to 80.
    result = invoke(*arguments)
    assert result.exit_code in (1, 2), result.output
    assert f"{'x' * 80}…" in result.output and "x" * 81 not in result.output


def test_the_report_help_names_the_member_file_it_reads_by_default():
    """It said 'default: examples/members.csv', a file of the working folder, which the
    report never reads: without --members it reads the sample shipped in the package."""
    result = invoke("report", "--help")
    assert result.exit_code == 0, result.output
    assert (
        "Member file, CSV or Parquet (default: the sample shipped in the package, which "
        "`actuarial examples members` writes out)."
    ) in " ".join(result.stdout.split())


@pytest.mark.parametrize("weight", ["0.5_0", "\u0660.\u0665", "nan"])
def test_a_mortality_weight_is_a_plain_decimal_number(weight):
    result = invoke(
        "guides", "subsidy", HALF_PERCENT_SERIES, "--mortality", f"sult:{weight}+ilt",
        "--interest", "0.05",
    )  # fmt: skip
    assert result.exit_code == 2, result.output
    assert result.output.endswith(
        f"Error: Invalid value for '--mortality': 'mortality' weight must be a number (got "
        f"{weight!r} in {f'sult:{weight}'!r})\n"
    )


def test_guides_subsidy_at_daily_payments_gives_its_table():
    result = invoke(
        "guides", "subsidy", HALF_PERCENT_SERIES, "--mortality", "sult", "--interest", "0.05",
        "--payments-per-year", "365",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert len(result.output.splitlines()) == 2 + 11  # the title, the header, 55 to 65


def test_guides_subsidy_with_an_interest_that_leaves_no_equivalent_factor_says_so():
    result = invoke(
        "guides", "subsidy", HALF_PERCENT_SERIES, "--mortality", "sult", "--interest", "1e300"
    )
    assert result.exit_code == 1
    assert result.output == (
        "warning: --interest 1e+300 is read as a rate: 1e+302% a year (0.045 = 4.5%)\n"
        "error: the equivalent factor is 0 at 55y0m (interest 1e+300 discounts the annuity "
        "deferred to the normal retirement age to nothing): no ratio to it\n"
    )


def test_guides_review_commands_name_an_unknown_guide_and_the_shipped_ones():
    result = invoke("guides", "fit", "no-such-guide", "--mortality", "sult")
    assert result.exit_code == 1
    assert "no-such-guide: no guide folder here and no shipped guide of that id" in result.output
    assert "sult-5pct-monthly" in result.output


# ------------------------------------------------------------- hostile or careless input
@pytest.mark.parametrize(
    "value",
    ["20260101", "2026-1-1", "2026-W01-1", "2026-001", "26-01-01", "2026-01-01T00:00",
     " 2026-01-01", "2026-01-01 ", "2026-02-30", "", "today", "\uff12026-01-01"],
)  # fmt: skip
@pytest.mark.parametrize("command", ["evaluate", "derive"])
def test_every_date_option_takes_yyyy_mm_dd_only(tmp_path, value, command):
    if command == "evaluate":
        result = invoke("evaluate", *EARLY_RETIREE, "--as-of", value)
    else:
        result = invoke(
            "guides", "derive", "--mortality", "sult", "--interest", "0.05",
            "--out", tmp_path / "g", "--effective-from", value,
        )  # fmt: skip
    assert result.exit_code == 2
    assert f"must be a date YYYY-MM-DD (got {value!r})" in result.stderr
    assert not (tmp_path / "g").exists()


@pytest.mark.parametrize("value", ["1899-12-31", "2101-01-01", "0001-01-01", "9999-12-31"])
def test_a_date_option_outside_1900_to_2100_is_a_usage_error(value):
    result = invoke("evaluate", *EARLY_RETIREE, "--as-of", value)
    assert result.exit_code == 2
    assert f"must be from 1900-01-01 to 2100-12-31 (got {value!r})" in result.stderr


@pytest.mark.parametrize(
    ("option", "value", "problem"),
    [
        ("--compensation", "1e308", "'average_compensation' (--compensation) must be at most "
         "10,000,000 a year (a plausibility bound) (got 1e+308)"),
        ("--compensation", "inf", "'average_compensation' (--compensation) must be finite "
         "(got 'inf')"),
        ("--compensation", "nan", "'average_compensation' (--compensation) must be a number "
         "(got 'nan')"),
        ("--service", "Infinity", "'credited_service' (--service) must be finite "
         "(got 'Infinity')"),
        ("--birth-date", "0000-01-01", "'birth_date' (--birth-date) must be from 1900-01-01 to "
         "2100-12-31 (got 0000-01-01)"),
    ],
)  # fmt: skip
def test_impossible_amounts_and_dates_are_refused_not_paid(option, value, problem):
    args = list(EARLY_RETIREE)
    args[args.index(option) + 1] = value
    result = invoke("evaluate", *args, "--json")
    assert result.exit_code == 1
    assert result.stderr == f"error: member row 1 (member 'C-1'): {problem}\n"


def test_json_output_is_standard_json():
    result = invoke("evaluate", *EARLY_RETIREE, "--json")

    def refuse(constant):
        raise ValueError(f"not standard JSON: {constant}")

    parsed = json.loads(result.stdout, parse_constant=refuse)
    assert parsed["warnings"] == []


def test_evaluate_prints_data_quality_warnings_after_the_explanation():
    args = member_args(entry_date="1970-06-15")  # at age 10, born 1960-06-15
    result = invoke("evaluate", *args)
    assert result.exit_code == 0
    assert result.stdout.splitlines()[-1] == (
        "warning: 'entry_date' is before age 16 (got 1970-06-15, at age 10y0m)"
    )


def test_batch_summary_counts_members_with_warnings(tmp_path):
    source = tmp_path / "m.csv"
    frame = pd.read_csv(SAMPLE, dtype=str, keep_default_na=False)
    frame.loc[0, "average_compensation"] = "500"
    frame.loc[1, "average_compensation"] = "2000000"
    frame.to_csv(source, index=False)
    result = invoke("batch", source, "--out", tmp_path / "out.csv")
    assert "members with data-quality warnings: 2" in result.stdout


@pytest.mark.parametrize(
    "hostile", ["\x1b[2J\x1b[31m", "\x07", "\x9b31m", "\u202eevil", "a\rb", "\x00"]
)
def test_text_from_guide_files_reaches_the_terminal_without_control_characters(make_guide, hostile):
    escaped = json.dumps(hostile)[1:-1]  # a TOML basic string holds it escaped
    folder = make_guide(toml=lambda t: t.replace('title = "', f'title = "{escaped}', 1))
    result = invoke("guides", "show", folder.name, "--guides", folder.parent)
    assert result.exit_code == 0
    title = next(line for line in result.stdout.splitlines() if line.startswith("title: "))
    expected = "".join("\ufffd" if ch in "\x1b\x07\x9b\u202e\r\x00" else ch for ch in hostile)
    assert title.startswith("title: " + expected + "Illustrative")
    assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202e]", result.stdout)


def test_a_guide_problem_naming_a_hostile_folder_is_printed_without_control_characters(
    make_guide, tmp_path
):
    folder = make_guide(
        "bad\x1b]0;owned\x07", toml=lambda t: t.replace('status = "', 'status = "x')
    )
    result = invoke("guides", "validate", folder.parent)
    assert result.exit_code == 1
    assert "\x1b" not in result.stderr and "\x07" not in result.stderr
    assert "bad\ufffd]0;owned\ufffd" in result.stderr


def test_guides_derive_refuses_to_replace_the_life_table_it_reads(tmp_path):
    from actuarial.mortality import sult

    folder = tmp_path / "g"
    folder.mkdir()
    table = folder / "reduction.csv"  # the life table, where the guide would write its table
    ages = range(20, 121)
    pd.DataFrame({"age": ages, "qx": [float(sult().q(a)) for a in ages]}).to_csv(table, index=False)
    before = table.read_bytes()
    result = invoke(
        "guides", "derive", "--mortality", f"csv:{table}", "--interest", "0.05", "--out", folder
    )
    assert result.exit_code == 1
    assert "the output is the input" in result.stderr
    assert table.read_bytes() == before


@pytest.mark.parametrize("name", ["reduction.csv", "guide.toml"])
@pytest.mark.parametrize(
    ("spec", "improvement"),
    [
        ("csv:{other}/csv:{inside}", None),  # female/male: the male side's table
        ("csv:{inside}/csv:{other}", None),  # ... and the female side's
        ("csv:{other}+csv:{inside}@65", None),  # a join: the table from 65
        ("soa:3399/csv:{other},csv:{inside}:0.5", None),  # a blend on a side
        ("soa:3399/soa:3400", "csv:{inside}"),  # the improvement scale
    ],
)
def test_guides_derive_refuses_to_replace_any_file_its_mortality_read(
    tmp_path, name, spec, improvement
):
    out = tmp_path / "g"
    out.mkdir()
    inside = out / name  # a file read, where the guide would write one of its files
    if improvement:
        inside.write_text(SMALL_SCALE_CSV, encoding="utf-8")
    else:
        write_sult_csv(inside)
    other = write_sult_csv(tmp_path / "other.csv")
    before = inside.read_bytes()
    args = ["--mortality", spec.format(inside=inside, other=other)]
    if improvement:
        args += ["--improvement", improvement.format(inside=inside), "--cohort", "1965"]
    result = invoke("guides", "derive", *args, "--interest", "0.05", "--out", out)
    assert result.exit_code == 1, result.output
    assert result.stderr == refused_as_input(inside)
    assert inside.read_bytes() == before
    assert sorted(path.name for path in out.iterdir()) == [name]  # nothing else written


def test_guides_derive_writes_beside_a_table_it_read_under_another_name(tmp_path):
    out = tmp_path / "g"
    out.mkdir()
    table = write_sult_csv(out / "sult.csv")
    before = table.read_bytes()
    result = invoke(
        "guides", "derive", "--mortality", f"sult/csv:{table}", "--interest", "0.05", "--out", out
    )
    assert result.exit_code == 0, result.output
    assert table.read_bytes() == before
    written = sorted(path.name for path in out.iterdir())
    assert written == ["guide.toml", "reduction.csv", "sult.csv"]


def test_guides_derive_refuses_an_output_that_is_a_file(tmp_path):
    out = tmp_path / "g"
    out.write_text("not a folder")
    result = invoke("guides", "derive", "--mortality", "sult", "--interest", "0.05", "--out", out)
    assert result.exit_code == 1
    assert result.stderr == f"error: {out}: the output is a file; a folder is expected\n"


def test_guides_derive_on_a_generational_basis_records_scale_and_cohort(tmp_path):
    out = tmp_path / "pub-1965"
    args = ["--mortality", "soa:3399/soa:3400", "--improvement", "mp-2020"]
    result = invoke(
        "guides", "derive", *args, "--cohort", "1965", "--interest", "0.045", "--out", out
    )
    assert result.exit_code == 0, result.output
    toml = (out / "guide.toml").read_text()
    for line in (
        'mortality_spec = "soa:3399/soa:3400"',
        'mortality_improvement = "mp-2020"',
        "mortality_female_weight = 0.5",
        "cohort = 1965",
    ):
        assert line in toml
    assert "projected from 2010 by [mort.soa.org table 3609 (mp-2020)" in toml
    later = invoke(
        "guides",
        "derive",
        *args,
        "--cohort",
        "1980",
        "--interest",
        "0.045",
        "--out",
        tmp_path / "b",
    )
    assert later.exit_code == 0
    # later cohorts live longer: deferring to 65 costs less, the equivalent factor is higher
    assert load_guide(tmp_path / "b").factors[0] > load_guide(out).factors[0]
    missing = invoke("guides", "derive", *args, "--interest", "0.045", "--out", tmp_path / "c")
    assert missing.exit_code == 2
    assert "--improvement needs --cohort (the year of birth) here" in missing.output


@pytest.mark.parametrize(
    "command",
    [
        ["derive", "--interest", "0.05", "--out", "{tmp}/g"],
        ["fit", "sult-5pct-monthly"],
        ["subsidy", "sult-5pct-monthly", "--interest", "0.05"],
    ],
    ids=["derive", "fit", "subsidy"],
)
def test_a_cohort_without_improvement_is_refused_rather_than_ignored(tmp_path, command):
    # --cohort 1965 on a static table changed nothing, and derive wrote a guide that does
    # not say so: the guide for the members born in 1965 was not one.
    arguments = [a.format(tmp=tmp_path) for a in command]
    result = invoke("guides", *arguments, "--mortality", "sult", "--cohort", "1965")
    assert result.exit_code == 2, result.output
    assert result.output.endswith(
        "Error: --cohort is the year of birth on a generational basis: it needs --improvement\n"
    )
    assert not (tmp_path / "g").exists()


FIRST_PASS_WITHOUT_PANDAS = """
import sys
from pathlib import Path
from actuarial.member_files import duplicated_in_file

found = duplicated_in_file(Path(sys.argv[1]), sys.argv[2])
print(int(found.mask.sum()), "pandas" in sys.modules)
"""


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_the_first_pass_never_waits_for_pandas(tmp_path, fmt):
    """It reads the ids while the main thread imports pandas: needing pandas too, it would
    wait for that import (Arrow imports pandas for a Python value given to a compute
    function, or a nullable array made into numpy)."""
    import subprocess
    import sys

    frame = pd.read_csv(SAMPLE, dtype=str, keep_default_na=False)
    frame.loc[3, "member_id"] = frame.loc[2, "member_id"]  # a repeated id
    frame.loc[5, "member_id"] = None  # a missing one
    path = tmp_path / f"members.{fmt}"
    frame.to_csv(path, index=False) if fmt == "csv" else frame.to_parquet(path)
    command = [sys.executable, "-c", FIRST_PASS_WITHOUT_PANDAS, str(path), fmt]
    printed = subprocess.run(command, capture_output=True, check=True, text=True).stdout
    assert printed.split() == ["2", "False"]


def _path_parameters(command, names=()):
    """Every parameter of every command that takes a path: (the command's names, it)."""
    if isinstance(command, click.Group):
        for name, sub in sorted(command.commands.items()):
            yield from _path_parameters(sub, (*names, name))
        return
    for parameter in command.params:
        if isinstance(parameter.type, click.Path):
            yield names, parameter


PATH_PARAMETERS = list(_path_parameters(cli))


def test_the_commands_take_paths_in_many_places():
    assert len(PATH_PARAMETERS) >= 10  # the test below reaches every one of them


@pytest.mark.parametrize(
    ("command", "parameter"),
    PATH_PARAMETERS,
    ids=[" ".join(names) + " " + parameter.name for names, parameter in PATH_PARAMETERS],
)
def test_an_empty_path_is_refused_not_read_as_the_current_folder(
    command, parameter, tmp_path, monkeypatch
):
    # Path("") is ".": `report --out ""` replaced the current folder, `--guides ""` read it.
    monkeypatch.chdir(tmp_path)
    given = [""] if isinstance(parameter, click.Argument) else [parameter.opts[0], ""]
    result = invoke(*command, *given)
    assert result.exit_code == 2, result.output
    shown = (
        parameter.human_readable_name
        if isinstance(parameter, click.Argument)
        else (parameter.opts[0])
    )
    assert result.output.endswith(
        f"Error: Invalid value for '{shown}': an empty path: give a file or folder ('.' for "
        "the current one).\n"
    )
    assert list(tmp_path.iterdir()) == []


# --------------------------------------------------- one-line fields of a guide, shown
@pytest.fixture
def guide_with_line_breaks(make_guide):
    """A guide 'g' whose series ends in a line break and a line reading as a guide validated,
    whose title holds controls and a line break, whose source holds a line reading as a
    field, and whose [basis] holds a value of two lines."""

    def edit(text):
        text = text.replace('series = "g"', 'series = "g\\nok: fake"', 1)
        text = text.replace('title = "', 'title = "\\u001b[31mRED\\u001b[0m\\r\\nfake ', 1)
        text = text.replace('source = "', 'source = "first\\nstatus: adopted\\n', 1)
        return text + 'note = "one\\nid: fake"\n'  # the last table is [basis]

    return make_guide("g", toml=edit)


SHOWN_TITLE = (  # the title of guide_with_line_breaks, shown
    "\ufffd[31mRED\ufffd[0m\ufffd\ufffdfake Illustrative early-retirement reduction: 0.5% per "
    "month before age 65"
)


def test_guides_list_prints_each_guide_on_one_line_without_control_characters(
    guide_with_line_breaks,
):
    folder = guide_with_line_breaks
    # color=True: click would strip "\x1b[31m" from text piped, not from a terminal.
    result = CliRunner().invoke(cli, ["guides", "list", "--guides", str(folder.parent)], color=True)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert len(lines) == 2  # the header and the guide
    assert lines[1].startswith("g   g\ufffdok: fake  illustrative  1990-04-01")
    assert lines[1].endswith("  " + SHOWN_TITLE)
    assert not re.search("[\x00-\x09\x0b-\x1f\x7f-\x9f]", result.stdout)


@pytest.mark.parametrize(
    "command",
    [["batch"], ["value", "--mortality", "sult", "--interest", "0.05"]],
    ids=["batch", "value"],
)
def test_the_series_used_is_shown_on_one_line(guide_with_line_breaks, command, tmp_path):
    # "guides: series 'g" then "ok: fake' (g)": the series' line break split the line.
    folder = guide_with_line_breaks
    result = CliRunner().invoke(
        cli,
        [command[0], SAMPLE, "--guides", str(folder.parent), "--series", "g\nok: fake",
         *command[1:], "--out", str(tmp_path / "out.csv"), "--as-of", "2026-06-01"],
        color=True,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "guides: series 'g\ufffdok: fake' (g)" in result.stdout.splitlines()
    assert not any(line.startswith("ok: fake") for line in result.stdout.splitlines())


def test_guides_show_prints_one_line_fields_on_one_line_and_indents_free_text(
    guide_with_line_breaks,
):
    folder = guide_with_line_breaks
    result = CliRunner().invoke(
        cli, ["guides", "show", folder.name, "--guides", str(folder.parent)], color=True
    )
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[:3] == ["id: g", "series: g\ufffdok: fake", "title: " + SHOWN_TITLE]
    source = lines.index("source: first")
    assert lines[source + 1] == "  status: adopted"  # indented: not read as the guide's status
    assert lines[source + 2].startswith("  Illustrative, not adopted by the Junta")
    assert lines[lines.index("basis.note: one") + 1] == "  id: fake"
    assert [line for line in lines if line.startswith(("ok:", "id:", "status:", "fake"))] == [
        "id: g",
        "status: illustrative",
    ]
    assert not re.search("[\x00-\x09\x0b-\x1f\x7f-\x9f]", result.stdout)


def test_guides_validate_prints_each_guide_on_one_line(guide_with_line_breaks):
    result = invoke("guides", "validate", guide_with_line_breaks.parent)
    assert result.exit_code == 0, result.output
    assert result.stdout == (
        "ok: g (series 'g\ufffdok: fake', illustrative, from 1990-04-01 to open end, 11 rows, "
        "monthly-linear)\n"
    )


@pytest.mark.parametrize(("out", "inside"), [(".", "my-guide"), ("..", "my-guide/sub")])
def test_guides_derive_out_dot_writes_the_guide_named_as_the_folder_it_leads_to(
    tmp_path, monkeypatch, out, inside
):
    # Path(".").name is "": the guide had no id, and the error named a temporary folder.
    folder = tmp_path / "my-guide"
    (tmp_path / inside).mkdir(parents=True)
    monkeypatch.chdir(tmp_path / inside)
    result = invoke("guides", "derive", "--mortality", "sult", "--interest", "0.05", "--out", out)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"written: {folder.resolve()} (121 rows;")
    assert load_guide(folder).id == "my-guide"


def test_guides_derive_refuses_the_root_folder_which_has_no_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = invoke("guides", "derive", "--mortality", "sult", "--interest", "0.05", "--out", "/")
    assert result.exit_code == 1
    assert result.stderr == (
        "error: /: a guide's id is the name of its folder, and this folder has none\n"
    )


VALUE = ["value", SAMPLE, "--interest", "0.05", "--out", "{out}"]


@pytest.mark.parametrize(
    ("args", "path", "error"),
    [
        (["batch", SAMPLE, "--law", "{path}", "--out", "{out}"], "{pipe}",
         "error: {path}: cannot read the law file (a named pipe, not a file)"),
        ([*VALUE, "--mortality", "csv:{path}"], "{pipe}",
         "Error: Invalid value for '--mortality': {path}: life table: cannot read (a named "
         "pipe, not a file)"),
        ([*VALUE, "--mortality", "sult", "--improvement", "csv:{path}"], "{pipe}",
         "Error: Invalid value for '--mortality' / '--improvement': {path}: improvement "
         "scale: cannot read (a named pipe, not a file)"),
        (["batch", SAMPLE, "--law", "{path}", "--out", "{out}"], "/dev/zero",
         "error: {path}: cannot read the law file (a character device, not a file)"),
        ([*VALUE, "--mortality", "csv:{path}"], "/dev/stdin",  # a pipe kept open, unwritten
         "Error: Invalid value for '--mortality': {path}: life table: cannot read (not a "
         "regular file)"),
    ],
)  # fmt: skip
def test_a_law_table_or_scale_that_is_no_file_is_refused_without_waiting_on_it(
    args, path, error, tmp_path
):
    import os
    import subprocess
    import sys

    os.mkfifo(tmp_path / "pipe")  # opened to read, it would wait for a writer for ever
    path = path.format(pipe=tmp_path / "pipe")
    out = tmp_path / "out.csv"
    command = [str(Path(sys.executable).parent / "actuarial")]
    command += [arg.format(path=path, out=out) for arg in args]
    unwritten, writer = os.pipe()
    try:
        ended = subprocess.run(command, stdin=unwritten, capture_output=True, text=True, timeout=30)
    finally:
        os.close(unwritten)
        os.close(writer)
    assert ended.stderr.splitlines()[-1] == error.format(path=path)
    assert ended.returncode in (1, 2)
    assert not out.exists()


@pytest.mark.parametrize("command", [["batch", SAMPLE], ["guides", "show", DEFAULT_SERIES]])
def test_a_reader_that_stops_reading_ends_the_command_quietly_its_files_written(tmp_path, command):
    """`actuarial batch ... | head -1` said "error: file system: cannot write (Broken pipe)"
    once its results were written; every command now ends as click ends the others."""
    import subprocess
    import sys

    out = tmp_path / "out.csv"
    args = [*command, "--out", str(out)] if command[0] == "batch" else command
    run = subprocess.Popen(
        [sys.executable, "-m", "actuarial", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    run.stdout.close()  # the reader is gone before anything is printed
    assert run.wait() == 1
    assert run.stderr.read() == b""
    if command[0] == "batch":
        assert len(pd.read_csv(out)) == 4 * 307 + 6


EVALUATED = ["evaluate", "--birth-date", "1958-06-15", "--entry-date", "1991-01-02",
             "--separation-date", "2016-03-01", "--service", "25", "--compensation", "24000",
             "--as-of", "2026-06-01"]  # fmt: skip


@pytest.mark.parametrize(
    "command",
    [
        EVALUATED,
        [*EVALUATED, "--json"],
        ["guides", "list"],
        ["--help"],
        ["--version"],
        ["batch", SAMPLE, "--out", "out.csv"],
    ],  # fmt: skip
    ids=["evaluate", "json", "guides-list", "help", "version", "batch"],
)
def test_output_that_cannot_be_written_is_one_error_line(tmp_path, command):
    """`actuarial evaluate ... > /dev/full` (a full disk) ended with an OSError traceback; a
    batch said "file system: cannot write", no path named, its file written."""
    import subprocess
    import sys

    if command[0] == "batch":
        command = [*command, "--out", str(tmp_path / "out.csv")]
    with open("/dev/full", "w") as full:
        ended = subprocess.run(
            [sys.executable, "-m", "actuarial", *command],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
        )
    assert (ended.returncode, ended.stderr) == (
        1,
        "error: standard output: cannot write (No space left on device)\n",
    )
    if command[0] == "batch":  # written whole before its summary failed to print
        assert len(pd.read_csv(tmp_path / "out.csv")) == 4 * 307 + 6


@pytest.mark.parametrize("encoding", ["cp1252", "latin-1", "cp437"])  # ASCII: click writes UTF-8
def test_output_in_an_encoding_other_than_utf8_escapes_what_it_lacks(encoding):
    """With a cp1252 or latin-1 standard output (Windows, a redirection), `evaluate` ended
    with a UnicodeEncodeError traceback on its check marks; --json --lang es too."""
    import os
    import subprocess
    import sys

    run = [sys.executable, "-m", "actuarial", *EVALUATED]
    environment = {**os.environ, "PYTHONIOENCODING": encoding}
    text = subprocess.run(run, capture_output=True, env=environment)
    assert (text.returncode, text.stderr) == (0, b"")
    assert "\\u2713 no refund of contributions" in text.stdout.decode(encoding)
    shown = subprocess.run([*run, "--json", "--lang", "es"], capture_output=True, env=environment)
    assert (shown.returncode, shown.stderr) == (0, b"")
    escaped = json.loads(shown.stdout.decode(encoding))  # the escapes are JSON's own
    utf8 = subprocess.run([*run, "--json", "--lang", "es"], capture_output=True)
    assert escaped == json.loads(utf8.stdout.decode("utf-8"))


def test_ctrl_c_while_the_command_line_loads_ends_as_during_a_command():
    """Ctrl-C in the fraction of a second the command line takes to import printed a
    KeyboardInterrupt traceback; it now ends as Ctrl-C during a command does."""
    import signal
    import subprocess
    import sys

    # SIGINT is sent to the process as the import of actuarial.cli begins.
    script = """
import os, signal, sys
class Interrupt:
    def find_spec(self, name, path=None, target=None):
        if name == "actuarial.cli":
            os.kill(os.getpid(), signal.SIGINT)
sys.meta_path.insert(0, Interrupt())
sys.argv = ["actuarial", "--version"]
from actuarial.__main__ import main
main()
"""
    # Ctrl-C's default action in the run, as in a terminal: a parent that ignores it (a
    # shell's background job, a CI runner) passes that on, and Python then never raises
    # KeyboardInterrupt.
    ended = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert (ended.returncode, ended.stdout, ended.stderr) == (130, "", "error: interrupted\n")
    # As `python -m actuarial`, the same entry point runs the command line itself.
    shown = subprocess.run(
        [sys.executable, "-m", "actuarial", "--version"], capture_output=True, text=True
    )
    assert shown.returncode == 0 and shown.stdout.startswith("actuarial, version ")


def test_guides_compare_of_guides_of_different_spans_says_which_months_it_compares(
    tmp_path, law_toml_changed
):
    """With the ages of (c) and (a) changed from 2030 (50 and 67), a guide of 2030 against one
    of 1990 was compared on 55y0m-65y0m without a word, two guides of no common month
    printed pandas' 'Empty DataFrame' and exit 0, and derive said 'at 60y0m nan'."""
    law_toml_changed(
        law_entry("early_retirement.age", "2030-01-01", 50, "years"),
        law_entry("service_annuity.age", "2030-01-01", 67, "years"),
        law_entry("early_retirement.age", "2040-01-01", 66, "years"),
        law_entry("service_annuity.age", "2040-01-01", 70, "years"),
    )
    derived = {}
    for year in (2030, 2040):
        derived[year] = tmp_path / f"g{year}"
        result = invoke(
            "guides", "derive", "--mortality", "sult", "--interest", "0.05",
            "--effective-from", f"{year}-01-01", "--out", derived[year],
        )  # fmt: skip
        assert result.exit_code == 0, result.output
        assert "nan" not in result.output
    result = invoke("guides", "compare", derived[2030], "sult-5pct-monthly")
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[:2] == [
        "difference = g2030 - sult-5pct-monthly",
        "compared from 55y0m to 65y0m, the months both guides cover (g2030: 50y0m to 67y0m; "
        "sult-5pct-monthly: 55y0m to 65y0m)",
    ]
    result = invoke("guides", "compare", derived[2040], "sult-5pct-monthly")
    assert result.exit_code == 1
    assert result.output == (
        "error: no month is in both guides: g2040 covers 66y0m to 70y0m, sult-5pct-monthly "
        "55y0m to 65y0m\n"
    )


@pytest.mark.parametrize("given", [".", ".."])
def test_guides_show_takes_the_current_or_parent_folder_as_a_guide(tmp_path, monkeypatch, given):
    # `guides show .` said "guide '' not found in ." (compare, fit and validate took it).
    guide = tmp_path / "mine"
    shutil.copytree(SHIPPED_GUIDES / HALF_PERCENT_SERIES, guide)
    toml = guide / "guide.toml"
    toml.write_text(
        toml.read_text(encoding="utf-8").replace(f'id = "{HALF_PERCENT_SERIES}"', 'id = "mine"'),
        encoding="utf-8",
    )
    inside = guide if given == "." else guide / "notes"  # ..: the guide from a subfolder
    inside.mkdir(exist_ok=True)
    monkeypatch.chdir(inside)
    result = invoke("guides", "show", given)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("id: mine\n")


def test_guides_derive_refuses_a_period_over_a_sibling_whose_table_is_broken(tmp_path):
    # A sibling of the series whose reduction.csv was broken was skipped: derive wrote a
    # guide over its period, an overlap left to find once the table was fixed.
    old = tmp_path / "d" / "old"
    shutil.copytree(SHIPPED_GUIDES / HALF_PERCENT_SERIES, old)
    toml = old / "guide.toml"
    toml.write_text(
        toml.read_text(encoding="utf-8")
        .replace(f'id = "{HALF_PERCENT_SERIES}"', 'id = "old"')
        .replace(f'series = "{HALF_PERCENT_SERIES}"', 'series = "s"'),
        encoding="utf-8",
    )
    (old / "reduction.csv").write_text("age_years,age_months,factor\n55,0,0.4\n65,0,0.9\n")
    out = tmp_path / "d" / "new"
    result = invoke(
        "guides", "derive", "--mortality", "sult", "--interest", "0.05", "--out", out,
        "--series", "s", "--effective-from", "2000-01-01",
    )  # fmt: skip
    assert result.exit_code == 1, result.output
    assert f"{out}: series 's': period of 'new' (from 2000-01-01) overlaps 'old'" in result.stderr
    assert f"{out}: not written" in result.stderr
    assert not out.exists()


@pytest.mark.parametrize("name", ["difference", "age_years", "age_months"])
def test_guides_compare_names_a_guide_apart_from_the_columns_it_shares_a_name_with(tmp_path, name):
    # A guide whose id is difference printed two columns 'difference'.
    guide = tmp_path / name
    shutil.copytree(SHIPPED_GUIDES / HALF_PERCENT_SERIES, guide)
    toml = guide / "guide.toml"
    toml.write_text(
        toml.read_text(encoding="utf-8").replace(f'id = "{HALF_PERCENT_SERIES}"', f'id = "{name}"'),
        encoding="utf-8",
    )
    result = invoke("guides", "compare", guide, "sult-5pct-monthly", "--top", "1")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == f"difference = guide {name} - sult-5pct-monthly"
    assert lines[1].count(f"guide {name}") == 1
    others = lines[1].replace(f"guide {name}", "").split()  # the other columns, once each
    assert sorted(others) == sorted(["age_years", "age_months", "sult-5pct-monthly", "difference"])
