"""Actuarial Guides: every rule of guide.toml and reduction.csv, one guide per rule; all
problems at once with file and line; series and the guide in force on a date.

Each broken guide is the shipped half-percent guide copied into tmp_path with one change.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import decimal
import fractions
import os
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import exactly, law_entry
from hypothesis import given, settings
from hypothesis import strategies as st

from actuarial.engine import evaluate, evaluate_frame
from actuarial.guides import (
    SHIPPED_GUIDES,
    Guide,
    GuideError,
    GuideSet,
    load_guide,
    load_guides,
)
from actuarial.shown_text import quoted
from actuarial.text_files import PROBLEMS_SHOWN

FIELDS = (
    "['adopted_by', 'adopted_on', 'basis', 'effective_from', 'effective_until', 'id', "
    "'interpolation', 'normal_retirement_age', 'series', 'source', 'status', 'title']"
)


def with_keys(**values):
    """A guide.toml edit: set each top-level key to a TOML literal (added on top if absent)."""

    def edit(text: str) -> str:
        for key, literal in values.items():
            line = f"{key} = {literal}"
            pattern = rf"^{key} = .*$"
            if re.search(pattern, text, flags=re.MULTILINE):
                text = re.sub(pattern, lambda _, line=line: line, text, count=1, flags=re.MULTILINE)
            else:
                text = f"{line}\n{text}"
        return text

    return edit


def replacing(old: str, new: str):
    def edit(text: str) -> str:
        assert old in text, old
        return text.replace(old, new)

    return edit


def monthly_table(skip=()) -> str:
    """A full monthly table of the half-percent rule, f = 1 - 0.005 x (780 - age in months)."""
    lines = ["age_years,age_months,factor"]
    for age in range(660, 781):
        if age not in skip:
            lines.append(f"{age // 12},{age % 12},{1 - 0.005 * (780 - age):.6f}")
    return "\n".join(lines) + "\n"


def problems_of(folder) -> list[str]:
    with pytest.raises(GuideError) as raised:
        load_guide(folder)
    return [str(problem) for problem in raised.value.problems]


# ------------------------------------------------------------------- the shipped guides
def test_shipped_guides_all_load_and_each_is_one_at_65():
    for folder in sorted(path for path in SHIPPED_GUIDES.iterdir() if path.is_dir()):
        guide = load_guide(folder)
        assert guide.id == folder.name
        assert guide.factor(780) == 1.0  # 65y0m


def test_load_guides_without_a_folder_loads_the_shipped_guides_as_commands_do():
    from actuarial.guides import DEFAULT_SERIES

    assert load_guides().series == DEFAULT_SERIES
    assert load_guides(None).guides == load_guides(SHIPPED_GUIDES, DEFAULT_SERIES).guides
    half = load_guides(series="illustrative-half-percent-per-month")
    assert half.guides == load_guides(SHIPPED_GUIDES, "illustrative-half-percent-per-month").guides


def _rows(first_years: int, last_years: int) -> str:
    """A monthly-linear guide table from first_years to last_years, 1 at the last."""
    span = last_years - first_years
    lines = [f"{first_years + k},0,{0.4 + 0.6 * k / span:.6f}" for k in range(span + 1)]
    return "age_years,age_months,factor\n" + "\n".join(lines) + "\n"


def test_a_later_change_of_the_ages_in_law_toml_binds_only_guides_from_its_date(
    law_toml_changed, make_guide
):
    """A guide's table spans the ages of incisos (c) and (a) in force on its first day:
    an entry of law.toml dated 2030 made every guide since 1990 need a row for 50y0m, and
    nothing could be evaluated, for any date."""
    law_toml_changed(
        law_entry("early_retirement.age", "2030-01-01", 50, "years"),
        law_entry("service_annuity.age", "2030-01-01", 67, "years"),
    )
    assert load_guides(SHIPPED_GUIDES, "illustrative-half-percent-per-month").guides
    old_span = make_guide("old-span", toml=lambda t: t.replace("1990-04-01", "2030-01-01"))
    assert problems_of(old_span) == [
        f"{old_span / 'guide.toml'}:6: 'normal_retirement_age' must be 67, the age of inciso "
        "(a) (got 65)",
        f"{old_span / 'reduction.csv'}: the table must have a row for 50y0m",
        f"{old_span / 'reduction.csv'}: the table must have a row for 67y0m",
    ]
    new_span = make_guide(
        "new-span",
        toml=lambda t: t.replace("1990-04-01", "2030-01-01").replace(
            "normal_retirement_age = 65", "normal_retirement_age = 67"
        ),
        csv=_rows(50, 67),
    )
    assert load_guide(new_span).normal_retirement_age == 67
    day_before = make_guide(
        "day-before",
        toml=lambda t: t.replace("1990-04-01", "2029-12-31").replace(
            "normal_retirement_age = 65", "normal_retirement_age = 67"
        ),
        csv=_rows(50, 67),
    )
    assert problems_of(day_before) == [
        f"{day_before / 'guide.toml'}:6: 'normal_retirement_age' must be 65, the age of inciso "
        "(a) (got 67)",
        f"{day_before / 'reduction.csv'}:2: age must be in [55y0m, 65y0m] (got 50y0m)",
    ] + [
        f"{day_before / 'reduction.csv'}:{line}: age must be in [55y0m, 65y0m] (got {age}y0m)"
        for line, age in ((3, 51), (4, 52), (5, 53), (6, 54), (18, 66), (19, 67))
    ] + [f"{day_before / 'reduction.csv'}:17: 'factor' must be 1 at 65y0m (got 0.929412)"]


def test_a_guide_in_python_spans_the_ages_in_force_on_its_first_day(law_toml_changed):
    law_toml_changed(law_entry("early_retirement.age", "2030-01-01", 50, "years"))
    shipped = load_guides(SHIPPED_GUIDES, "illustrative-half-percent-per-month").guides[0]
    with pytest.raises(GuideError, match=r"the table must have a row for 50y0m$"):
        dataclasses.replace(shipped, path=None, effective_from=dt.date(2030, 1, 1))
    assert dataclasses.replace(shipped, path=None, effective_from=dt.date(2029, 12, 31))


def test_shipped_half_percent_guide_is_illustrative_and_monthly_linear(half_percent_guides):
    assert half_percent_guides.series == "illustrative-half-percent-per-month"
    (guide,) = half_percent_guides.guides
    assert (guide.status, guide.interpolation) == ("illustrative", "monthly-linear")
    assert guide.effective_from == dt.date(1990, 4, 1) and guide.effective_until is None
    assert guide.basis["reduction_per_month"] == 0.005
    assert set(guide.sha256()) == {"guide.toml", "reduction.csv"}


def test_inciso_c_factor_is_one_at_normal_retirement_age(half_percent_guides):
    assert half_percent_guides.guides[0].factor(65 * 12) == 1.0


def test_monthly_linear_interpolation_reproduces_half_a_percent_per_month(half_percent_guides):
    # Source: guide.toml basis, f = 1 - 0.005 x (780 - age in months), e.g. 57y5m -> 0.545.
    guide = half_percent_guides.guides[0]
    ages = np.arange(660, 781)
    np.testing.assert_allclose(guide.factor(ages), 1 - 0.005 * (780 - ages), atol=1e-12)
    assert guide.factor(57 * 12 + 5) == pytest.approx(0.545, abs=1e-12)
    # Each the float nearest the decimal: 0.425 at 56y5m, written 0.42500000000000004 before
    exact = [float(1 - decimal.Decimal("0.005") * (780 - age)) for age in ages.tolist()]
    assert guide.factor(ages).tolist() == exact


@settings(max_examples=200, deadline=None)
@given(
    st.integers(0, 8).flatmap(
        lambda places: st.tuples(
            st.just(places),
            st.lists(st.integers(1, 10**places), min_size=2, max_size=12).map(sorted),
        )
    ),
    st.lists(st.integers(661, 779), min_size=10, max_size=10, unique=True),
)
def test_a_factor_between_rows_is_the_float_nearest_its_exact_value(table, inside):
    """Linear by month between rows of d-place decimals: (F_low (span - k) + F_high k) /
    (span 10^d), exactly as a fraction, then rounded once (float(Fraction) rounds correctly);
    on a row, the row's factor as read."""
    places, integers = table
    integers[-1] = 10**places  # 1 at 65y0m
    ages = np.array([660, *sorted(inside[: len(integers) - 2]), 780])  # 55y0m to 65y0m
    factors = [float(fractions.Fraction(f, 10**places)) for f in integers]
    guide = made_in_python(age_months=ages.tolist(), factors=factors)
    months = np.arange(ages[0], 781)
    expected = []
    for month in months.tolist():
        high = int(np.searchsorted(ages, month))
        low = high if ages[high] == month else high - 1
        span, after = int(ages[high] - ages[low]) or 1, month - int(ages[low])
        expected.append(
            float(fractions.Fraction(integers[low] * (span - after) + integers[high] * after,
                                     span * 10**places))
        )  # fmt: skip
    assert guide.factor(months).tolist() == expected


def test_a_factor_between_rows_of_many_places_is_interpolated_in_floats():
    """Factors with more places than a float keeps exact in the sum: the slope in floats."""
    factors = [*HALF_PERCENT_FACTORS]
    factors[0] = 0.1 + 1e-13 / 3  # no decimal of at most 12 places
    guide = made_in_python(factors=factors)
    assert guide.factor(661) == pytest.approx(factors[0] + (0.46 - factors[0]) / 12, abs=1e-15)


def test_a_factor_is_read_at_whole_months_and_a_fraction_of_a_month_is_refused(
    half_percent_guides,
):
    # 57.4 years is 688.8 months: read as 688 (57y4m, 0.54) without a word.
    guide = half_percent_guides.guides[0]
    assert guide.factor([660.0, 720.0]).tolist() == pytest.approx([0.4, 0.7], abs=1e-12)
    message = f"{guide.id}: 'age_months' must be whole months, e.g. 689 for 57y5m (got 688.8)"
    with pytest.raises(GuideError, match=exactly(message)):
        guide.factor(57.4 * 12)
    with pytest.raises(GuideError, match=exactly(message.replace(guide.id, guide.series, 1))):
        half_percent_guides.factors(np.array(["2000-01-01"], "datetime64[D]"), [57.4 * 12])


def test_a_factor_outside_55_to_65_is_missing(half_percent_guides):
    factors = half_percent_guides.guides[0].factor([659, 781])
    assert np.isnan(factors).all()


def test_an_exact_guide_reads_its_own_row_for_each_month(make_guide):
    guide = load_guide(make_guide(toml=with_keys(interpolation='"exact"'), csv=monthly_table()))
    assert guide.factor(57 * 12 + 5) == pytest.approx(0.545, abs=1e-12)
    assert len(guide.table()) == 121


# --------------------------------------------------------------- guide.toml, rule by rule
def test_a_guide_without_guide_toml_is_refused(make_guide):
    folder = make_guide()
    (folder / "guide.toml").unlink()
    assert problems_of(folder) == [f"{folder / 'guide.toml'}: guide.toml is missing"]


def test_a_guide_without_reduction_csv_is_refused(make_guide):
    folder = make_guide()
    (folder / "reduction.csv").unlink()
    assert problems_of(folder) == [f"{folder / 'reduction.csv'}: reduction.csv is missing"]


@pytest.mark.parametrize("name", ["guide.toml", "reduction.csv"])
def test_a_guide_file_that_is_a_named_pipe_or_a_folder_is_named_as_such(make_guide, name):
    # Before, "guide.toml is missing": the file was there, a pipe (read without waiting on it).
    folder = make_guide()
    (folder / name).unlink()
    os.mkfifo(folder / name)
    assert problems_of(folder) == [f"{folder / name}: cannot read (a named pipe, not a file)"]
    (folder / name).unlink()
    (folder / name).mkdir()
    assert problems_of(folder) == [f"{folder / name}: cannot read (Is a directory)"]


@pytest.mark.parametrize("spelled", [".", "sub/..", "../guide-a"])
def test_a_guide_named_by_a_path_ending_in_dots_is_the_folder_it_leads_to(
    make_guide, monkeypatch, spelled
):
    # Before, "." had no name: "'id' must equal the folder name ''" from inside the guide.
    folder = make_guide("guide-a")
    (folder / "sub").mkdir()
    monkeypatch.chdir(folder)
    assert load_guide(spelled).id == "guide-a"


def test_invalid_toml_is_reported_with_its_line(make_guide):
    folder = make_guide(toml=replacing('status = "illustrative"', "status = illustrative"))
    assert problems_of(folder) == [
        f"{folder / 'guide.toml'}:4: not valid TOML: Invalid value (at line 4, column 10)"
    ]


def test_a_missing_required_key_is_reported(make_guide):
    folder = make_guide(toml=lambda text: re.sub(r"^title = .*\n", "", text, flags=re.M))
    assert problems_of(folder) == [f"{folder / 'guide.toml'}: 'title' is required"]


def test_an_unknown_key_is_reported_with_its_line_and_the_valid_fields(make_guide):
    folder = make_guide(toml=replacing("normal_retirement_age = 65", "retirement_age = 65"))
    assert problems_of(folder) == [
        f"{folder / 'guide.toml'}: 'normal_retirement_age' is required",
        f"{folder / 'guide.toml'}:6: 'retirement_age' is not a guide field (fields: {FIELDS})",
    ]


def test_the_id_must_be_the_folder_name(make_guide):
    folder = make_guide("guide-a", toml=with_keys(id='"guide-b"'))
    assert problems_of(folder) == [
        f"{folder / 'guide.toml'}:1: 'id' must equal the folder name 'guide-a' (got 'guide-b')"
    ]


@pytest.mark.parametrize(
    ("key", "literal", "line", "message"),
    [
        ("status", '"draft"', 4, "'status' must be in ['adopted', 'illustrative'] (got 'draft')"),
        (
            "interpolation",
            '"cubic"',
            7,
            "'interpolation' must be in ['exact', 'monthly-linear'] (got 'cubic')",
        ),
        (  # a TOML array: not hashable, it raised TypeError from the look-up by name
            "interpolation",
            '["exact"]',
            7,
            "'interpolation' must be in ['exact', 'monthly-linear'] (got ['exact'])",
        ),
        (
            "normal_retirement_age",
            "62",
            6,
            "'normal_retirement_age' must be 65, the age of inciso (a) (got 62)",
        ),
        (  # a whole number of years, as the table's ages: not the float 65.0
            "normal_retirement_age",
            "65.0",
            6,
            "'normal_retirement_age' must be 65, the age of inciso (a) (got 65.0)",
        ),
        (
            "normal_retirement_age",
            "true",
            6,
            "'normal_retirement_age' must be 65, the age of inciso (a) (got True)",
        ),
        (
            "effective_from",
            '"1990-04-01"',
            5,
            # It read "must be a date YYYY-MM-DD (got '1990-04-01')": the date was there.
            "'effective_from' must be a date YYYY-MM-DD (got the text '1990-04-01': TOML "
            "writes a date without quotes, effective_from = 1990-04-01)",
        ),
        (
            "effective_from",
            "1990-04-01T00:00:00",
            5,
            "'effective_from' must be a date YYYY-MM-DD (got 1990-04-01 00:00:00)",
        ),
        ("title", '""', 3, "'title' must be a non-empty string (got '')"),
        (  # compared with effective_from, it raised TypeError (datetime against date)
            "effective_until",
            "2030-01-01T00:00:00",
            1,
            "'effective_until' must be a date YYYY-MM-DD (got 2030-01-01 00:00:00)",
        ),
    ],
)
def test_a_bad_metadata_value_is_reported_with_its_line(make_guide, key, literal, line, message):
    folder = make_guide(toml=with_keys(**{key: literal}))
    assert problems_of(folder) == [f"{folder / 'guide.toml'}:{line}: {message}"]


@pytest.mark.parametrize("written", ['"status"', "'status'", "  status  "])
def test_a_bad_value_of_a_quoted_or_indented_key_is_reported_with_its_line(make_guide, written):
    folder = make_guide(
        toml=replacing('status = "illustrative"', f'{written} = "draft"'),
    )
    assert problems_of(folder) == [
        f"{folder / 'guide.toml'}:4: 'status' must be in ['adopted', 'illustrative'] (got 'draft')"
    ]


def test_a_field_of_the_guide_written_under_basis_is_a_problem_on_its_line(make_guide):
    # effective_until appended at the end of guide.toml landed in [basis]: read as part of
    # the basis, the guide was open-ended and reduced separations after its end.
    folder = make_guide(toml=lambda text: text + "effective_until = 2015-12-31\n")
    line = (folder / "guide.toml").read_text(encoding="utf-8").count("\n")
    assert problems_of(folder) == [
        f"{folder / 'guide.toml'}:{line}: 'effective_until' is a field of the guide, written "
        "under [basis], where it is part of the basis and not read: write it above [basis]"
    ]


@pytest.mark.parametrize(
    ("edit", "line", "problem"),
    [
        # series missing above, present in [basis]: no line of its own (it was the basis's)
        (
            lambda text: text.replace('series = "guide-a"\n', "") + 'series = "x"\n',
            None,
            "'series' is required",
        ),
        # a line in a multi-line title that looks like a key (it was named, not line 8)
        (
            lambda text: text.replace(
                'title = "', 'title = """\nstatus = "draft"\n"""\n#"'
            ).replace('status = "illustrative"', 'status = "nope"'),
            7,
            "'status' must be in ['adopted', 'illustrative'] (got 'nope')",
        ),
        # a table that is no field, at its header (it had no line)
        (lambda text: text + "[extra]\nk = 1\n", 14, "'extra' is not a guide field"),
    ],  # fmt: skip
    ids=["missing-above-basis", "in-a-multi-line-string", "unknown-table"],
)
def test_a_problem_is_on_the_line_of_its_key_at_the_top_of_guide_toml(
    make_guide, edit, line, problem
):
    folder = make_guide(toml=edit)
    problems = [p for p in problems_of(folder) if problem in p]
    where = f"{folder / 'guide.toml'}" + (f":{line}" if line else "")
    assert len(problems) == 1 and problems[0].startswith(f"{where}: {problem}"), problems


def test_effective_until_before_effective_from_is_refused(make_guide):
    folder = make_guide(toml=with_keys(effective_until="1989-12-31"))
    assert problems_of(folder) == [
        f"{folder / 'guide.toml'}:1: 'effective_until' must be on or after 'effective_from' "
        "1990-04-01 (got 1989-12-31)"
    ]


def test_effective_until_on_effective_from_is_a_one_day_guide(make_guide):
    guide = load_guide(make_guide(toml=with_keys(effective_until="1990-04-01")))
    assert guide.in_force_on(dt.date(1990, 4, 1))
    assert not guide.in_force_on(dt.date(1990, 4, 2))


def test_an_adopted_guide_needs_adopted_by_and_adopted_on(make_guide):
    folder = make_guide(toml=with_keys(status='"adopted"'))
    assert problems_of(folder) == [
        f"{folder / 'guide.toml'}:4: 'adopted_by' is required when 'status' is 'adopted'",
        f"{folder / 'guide.toml'}:4: 'adopted_on' is required when 'status' is 'adopted'",
    ]
    adopted = load_guide(
        make_guide(
            "guide-b",
            toml=with_keys(
                status='"adopted"', adopted_by='"Junta de Síndicos"', adopted_on="1991-01-15"
            ),
        )
    )
    assert (adopted.status, adopted.adopted_on) == ("adopted", dt.date(1991, 1, 15))


# ------------------------------------------------------------ reduction.csv, rule by rule
@pytest.mark.parametrize(
    ("old", "new", "line", "message"),
    [
        (
            "age_years,age_months,factor",
            "years,months,factor",
            1,
            "header must be age_years,age_months,factor (got 'years,months,factor')",
        ),
        ("58,0,0.580000", "58,0,abc", 5, "'factor' must be a number (got 'abc')"),
        # A row whose factor is not a number is there: not also reported as missing.
        ("55,0,0.400000", "55,0,abc", 2, "'factor' must be a number (got 'abc')"),
        ("65,0,1.000000", "65,0,", 12, "'factor' must be a number (got '')"),
        (
            "58,0,0.580000",
            "58.5,0,0.58",
            5,
            "'age_years' and 'age_months' must be integers (got '58.5', '0')",
        ),
        ("58,0,0.580000", "58,0", 5, "row must have 3 fields (got 2)"),
        ("58,0,0.580000", "58,12,0.580000", 5, "'age_months' must be in [0, 11] (got 12)"),
        ("58,0,0.580000", "58,-1,0.580000", 5, "'age_months' must be in [0, 11] (got -1)"),
        (
            "55,0,0.400000",
            "54,11,0.395000\n55,0,0.400000",
            2,
            "age must be in [55y0m, 65y0m] (got 54y11m)",
        ),
        (
            "65,0,1.000000",
            "65,0,1.000000\n65,1,1.000000",
            13,
            "age must be in [55y0m, 65y0m] (got 65y1m)",
        ),
        ("58,0,0.580000", "58,0,0", 5, "'factor' must be in (0, 1] (got 0)"),
        ("58,0,0.580000", "58,0,-0.58", 5, "'factor' must be in (0, 1] (got -0.58)"),
        ("64,0,0.940000", "64,0,1.01", 11, "'factor' must be in (0, 1] (got 1.01)"),
        # Written above 0 but read as 0 (below a float's smallest): the message says so.
        (
            "58,0,0.580000",
            "58,0,1e-400",
            5,
            "'factor' must be in (0, 1] (got 1e-400, which a float reads as 0)",
        ),
        # Numbers in files are plain decimal numbers: Python's float() and int() read these.
        ("58,0,0.580000", "58,0,nan", 5, "'factor' must be a number (got 'nan')"),
        ("58,0,0.580000", "58,0,infinity", 5, "'factor' must be a number (got 'infinity')"),
        ("58,0,0.580000", "58,0,0.5_8", 5, "'factor' must be a number (got '0.5_8')"),
        ("58,0,0.580000", "58,0,٠.٥٨", 5, "'factor' must be a number (got '٠.٥٨')"),
        (
            "58,0,0.580000",
            "5_8,0,0.58",
            5,
            "'age_years' and 'age_months' must be integers (got '5_8', '0')",
        ),
        (
            "58,0,0.580000",
            "58,٠,0.58",
            5,
            "'age_years' and 'age_months' must be integers (got '58', '٠')",
        ),
        # A rejected row at 55y0m or 65y0m is not also reported as missing.
        ("55,0,0.400000", "55,0,0", 2, "'factor' must be in (0, 1] (got 0)"),
        ("65,0,1.000000", "65,0,1.5", 12, "'factor' must be in (0, 1] (got 1.5)"),
        ("65,0,1.000000", "65,0,0.999", 12, "'factor' must be 1 at 65y0m (got 0.999)"),
        (
            "60,0,0.700000",
            "60,0,0.500000",
            7,
            "'factor' must not decrease with age (0.5 at 60y0m < 0.64 on line 6)",
        ),
        (
            "60,0,0.700000",
            "60,0,0.700000\n60,0,0.700000",
            8,
            "duplicate age 60y0m (first on line 7)",
        ),
        (
            "59,0,0.640000\n60,0,0.700000",
            "60,0,0.700000\n59,0,0.640000",
            7,
            "rows must be in ascending age order (59y0m follows line 6)",
        ),
    ],
)
def test_a_bad_table_row_is_reported_with_its_line(make_guide, old, new, line, message):
    folder = make_guide(csv=replacing(old, new))
    assert problems_of(folder) == [f"{folder / 'reduction.csv'}:{line}: {message}"]


def test_numbers_of_reduction_csv_may_have_white_space_around_them_as_member_files(make_guide):
    """A cell is trimmed as a member file's is (a spreadsheet may write '58, 0, 0.58')."""
    guide = load_guide(make_guide(csv=replacing("58,0,0.580000", " 58 ,\t0, 0.58\u00a0")))
    assert guide.factor(58 * 12) == pytest.approx(0.58, abs=1e-12)


@pytest.mark.parametrize(
    ("age_row", "label"), [("55,0,0.400000\n", "55y0m"), ("65,0,1.000000\n", "65y0m")]
)
def test_the_table_must_have_rows_for_55_and_65(make_guide, age_row, label):
    folder = make_guide(csv=replacing(age_row, ""))
    assert problems_of(folder) == [
        f"{folder / 'reduction.csv'}: the table must have a row for {label}"
    ]


def test_an_exact_guide_must_have_every_month(make_guide):
    folder = make_guide(
        toml=with_keys(interpolation='"exact"'), csv=monthly_table(skip={57 * 12 + 5})
    )
    assert problems_of(folder) == [
        f"{folder / 'reduction.csv'}: interpolation 'exact' needs every month from 55y0m to "
        "65y0m; missing 57y5m"
    ]


def test_an_exact_guide_row_whose_factor_is_not_a_number_is_not_also_a_missing_month(
    make_guide,
):
    table = monthly_table()
    assert "\n57,5,0.545000\n" in table
    folder = make_guide(
        toml=with_keys(interpolation='"exact"'), csv=table.replace("57,5,0.545000", "57,5,0.54x")
    )
    assert problems_of(folder) == [
        f"{folder / 'reduction.csv'}:31: 'factor' must be a number (got '0.54x')"
    ]


def test_blank_lines_in_the_table_are_skipped(make_guide):
    guide = load_guide(make_guide(csv=replacing("60,0,0.700000\n", "60,0,0.700000\n\n")))
    assert len(guide.factors) == 11


# -------------------------------------------------------------- all problems at once
def test_every_problem_of_a_guide_is_reported_at_once_with_file_and_line(make_guide):
    folder = make_guide(
        toml=with_keys(status='"draft"'),
        csv=lambda text: text.replace("58,0,0.580000", "58,0,abc").replace(
            "65,0,1.000000", "65,0,0.99"
        ),
    )
    with pytest.raises(GuideError) as raised:
        load_guide(folder)
    assert len(raised.value.problems) == 3
    assert str(raised.value) == "\n".join(
        [
            "3 problem(s) in the Actuarial Guides:",
            f"{folder / 'guide.toml'}:4: 'status' must be in ['adopted', 'illustrative'] "
            "(got 'draft')",
            f"{folder / 'reduction.csv'}:5: 'factor' must be a number (got 'abc')",
            f"{folder / 'reduction.csv'}:12: 'factor' must be 1 at 65y0m (got 0.99)",
        ]
    )


# ------------------------------------------------------------ a guide made in Python
HALF_PERCENT_AGES = list(range(660, 781, 12))  # 55y0m to 65y0m, a row a year
HALF_PERCENT_FACTORS = [round(1 - 0.005 * (780 - age), 6) for age in HALF_PERCENT_AGES]


def made_in_python(**changes) -> Guide:
    """The shipped half-percent guide built in Python (no files), with ``changes``."""
    values = {
        "id": "py", "series": "py", "title": "Half a percent a month", "status": "illustrative",
        "effective_from": dt.date(1990, 4, 1), "effective_until": None,
        "normal_retirement_age": 65, "interpolation": "monthly-linear", "source": "Test",
        "adopted_by": None, "adopted_on": None, "basis": {},
        "age_months": HALF_PERCENT_AGES, "factors": HALF_PERCENT_FACTORS,
    }  # fmt: skip
    return Guide(**{**values, **changes})


def test_a_guide_made_in_python_is_checked_by_load_guides_rules_all_at_once():
    """The same three problems as the files above, named by the guide and the row: a Guide
    made in Python was used as given (a factor of 1.5, unsorted ages, NaN...)."""
    factors = [*HALF_PERCENT_FACTORS]
    factors[3], factors[-1] = "abc", 0.99
    with pytest.raises(GuideError) as raised:
        made_in_python(status="draft", factors=factors)
    assert str(raised.value) == "\n".join(
        [
            "3 problem(s) in the Actuarial Guides:",
            "py: 'status' must be in ['adopted', 'illustrative'] (got 'draft')",
            "py: row 4: 'factor' must be a number (got 'abc')",
            "py: row 11: 'factor' must be 1 at 65y0m (got 0.99)",
        ]
    )


def swapped(values: list, first: int, second: int) -> list:
    values = [*values]
    values[first], values[second] = values[second], values[first]
    return values


@pytest.mark.parametrize(
    ("changes", "problems"),
    [
        ({"factors": [*HALF_PERCENT_FACTORS[:3], 1.5, *HALF_PERCENT_FACTORS[4:]]},
         ["row 4: 'factor' must be in (0, 1] (got 1.5)"]),
        ({"factors": [np.nan, *HALF_PERCENT_FACTORS[1:]]},
         ["row 1: 'factor' must be in (0, 1] (got nan)"]),
        ({"factors": [0.0, *HALF_PERCENT_FACTORS[1:]]},
         ["row 1: 'factor' must be in (0, 1] (got 0.0)"]),
        ({"age_months": swapped(HALF_PERCENT_AGES, 1, 2),
          "factors": swapped(HALF_PERCENT_FACTORS, 1, 2)},
         ["row 3: rows must be in ascending age order (56y0m follows row 2)"]),
        ({"age_months": [660, *HALF_PERCENT_AGES]},
         ["'age_months' and 'factors' must be one-dimensional, of one length (got shapes (12,) "
          "and (11,))"]),
        ({"age_months": [660, 660, *HALF_PERCENT_AGES[2:]]},
         ["row 2: duplicate age 55y0m (first on row 1)"]),
        ({"factors": swapped(HALF_PERCENT_FACTORS, 1, 2)},
         ["row 3: 'factor' must not decrease with age (0.46 at 57y0m < 0.52 on row 2)"]),
        ({"age_months": [648, *HALF_PERCENT_AGES[1:]]},
         ["row 1: age must be in [55y0m, 65y0m] (got 54y0m)",
          "the table must have a row for 55y0m"]),
        ({"age_months": [660.5, *HALF_PERCENT_AGES[1:]]},
         ["'age_months' must be whole months, e.g. 689 for 57y5m (got 660.5)"]),
        ({"interpolation": "exact"},
         ["interpolation 'exact' needs every month from 55y0m to 65y0m; missing 55y1m, 55y2m, "
          "55y3m, 55y4m, 55y5m and 105 more"]),
        ({"normal_retirement_age": 60},
         ["'normal_retirement_age' must be 65, the age of inciso (a) (got 60)"]),
        ({"effective_until": dt.date(1990, 3, 31)},
         ["'effective_until' must be on or after 'effective_from' 1990-04-01 (got 1990-03-31)"]),
        ({"status": "adopted"},
         ["'adopted_by' is required when 'status' is 'adopted'",
          "'adopted_on' is required when 'status' is 'adopted'"]),
        ({"effective_from": None}, ["'effective_from' is required"]),
        ({"title": " "}, ["'title' must be a non-empty string (got ' ')"]),
        ({"effective_until": dt.datetime(2030, 1, 1)},  # it raised TypeError (see above)
         ["'effective_until' must be a date YYYY-MM-DD (got 2030-01-01 00:00:00)"]),
        ({"effective_from": dt.datetime(1990, 4, 1), "effective_until": dt.date(2030, 1, 1)},
         ["'effective_from' must be a date YYYY-MM-DD (got 1990-04-01 00:00:00)"]),
        ({"interpolation": ["exact"]},  # not hashable: it raised TypeError
         ["'interpolation' must be in ['exact', 'monthly-linear'] (got ['exact'])"]),
        ({"interpolation": {"name": "exact"}},
         ["'interpolation' must be in ['exact', 'monthly-linear'] (got {'name': 'exact'})"]),
    ],
)  # fmt: skip
def test_each_rule_of_load_guide_refuses_a_guide_made_in_python(changes, problems):
    with pytest.raises(GuideError) as raised:
        made_in_python(**changes)
    assert [str(problem) for problem in raised.value.problems] == [
        f"py: {problem}" for problem in problems
    ]


@pytest.mark.parametrize(
    ("first_factor", "message"),
    [
        (10**400, "'factor' must be in (0, 1] (got 1" + "0" * 79 + "…)"),  # was OverflowError
        (True, "'factor' must be a number (got True)"),  # was read as the factor 1.0
        (np.True_, "'factor' must be a number (got True)"),
        (10**5000, "'factor' must be in (0, 1] (got an integer of more than 4300 digits)"),
        ("0.4_0", "'factor' must be a number (got '0.4_0')"),  # text: as reduction.csv's
    ],
    ids=["beyond-float", "bool", "numpy-bool", "beyond-str", "python-only-text"],
)
def test_a_factor_of_a_guide_made_in_python_that_overflows_is_a_bool_or_no_number_is_refused(
    first_factor, message
):
    with pytest.raises(GuideError) as raised:
        made_in_python(factors=[first_factor, *HALF_PERCENT_FACTORS[1:]])
    assert [str(problem) for problem in raised.value.problems] == [f"py: row 1: {message}"]


@pytest.mark.parametrize(
    ("first_factor", "shown"),
    [
        (b"0.4_0", "b'0.4_0'"),  # float() read it as 0.4
        (bytearray(b"0.4_0"), "bytearray(b'0.4_0')"),
        (b"0x1p-1", "b'0x1p-1'"),
        (b"nan", "b'nan'"),
        (b"\xff0.4", "b'\\xff0.4'"),  # not UTF-8, as no reduction.csv is read
    ],
)
def test_a_factor_given_as_bytes_is_refused_unless_a_plain_decimal_number_as_in_a_file(
    first_factor, shown
):
    """float() reads bytes as text, by Python's spellings; a factor given as bytes is text
    as one given as a str is: read by reduction.csv's grammar (text_files.decimal_number)."""
    with pytest.raises(GuideError) as raised:
        made_in_python(factors=[first_factor, *HALF_PERCENT_FACTORS[1:]])
    assert [str(problem) for problem in raised.value.problems] == [
        f"py: row 1: 'factor' must be a number (got {shown})"
    ]


def test_a_factor_given_as_bytes_of_a_plain_decimal_number_is_read_as_in_a_file():
    reference = made_in_python()
    for text in (b"0.4", b" 0.4 ", bytearray(b"0.4"), memoryview(b"4e-1")):
        guide = made_in_python(factors=[text, *HALF_PERCENT_FACTORS[1:]])
        assert guide.factors.tolist() == reference.factors.tolist()


def test_a_guide_made_in_python_reads_a_daily_period_as_that_day_as_members_dates_are():
    """A one-day pandas Period is that day (dates.period_day, as a member's dates and as_of
    read it); it was refused as "must be a date YYYY-MM-DD (got 1990-04-01)"."""
    guide = made_in_python(
        status="adopted",
        adopted_by="Board",
        effective_from=pd.Period("1990-04-01", "D"),
        effective_until=pd.Period("2030-12-31", "D"),
        adopted_on=pd.Period("1990-03-15", "D"),
    )
    assert (guide.effective_from, guide.effective_until, guide.adopted_on) == (
        dt.date(1990, 4, 1),
        dt.date(2030, 12, 31),
        dt.date(1990, 3, 15),
    )
    assert type(guide.effective_from) is dt.date and guide.in_force_on(dt.date(2000, 1, 1))
    assert guide == made_in_python(
        status="adopted",
        adopted_by="Board",
        effective_until=dt.date(2030, 12, 31),
        adopted_on=dt.date(1990, 3, 15),
    )


@pytest.mark.parametrize(
    ("period", "message"),
    [
        (pd.Period("1990-04", "M"), "'effective_from' must be a date YYYY-MM-DD (got 1990-04)"),
        (pd.Period("1990", "Y"), "'effective_from' must be a date YYYY-MM-DD (got 1990)"),
        (
            pd.Period("1990-04-01 00:00", "h"),
            "'effective_from' must be a date YYYY-MM-DD (got 1990-04-01 00:00)",
        ),
        (  # a day, beyond Python's dates
            pd.Period(ordinal=10**7, freq="D"),
            "'effective_from' must be from 1900-01-01 to 2100-12-31 (got 29349-01-26)",
        ),
        (  # a day, outside the dates of law and guide files
            pd.Period("1899-12-31", "D"),
            "'effective_from' must be from 1900-01-01 to 2100-12-31 (got 1899-12-31)",
        ),
    ],
)
def test_a_guide_made_in_python_refuses_a_period_that_is_not_one_day_of_the_dates_range(
    period, message
):
    with pytest.raises(GuideError) as raised:
        made_in_python(effective_from=period)
    assert [str(problem) for problem in raised.value.problems] == [f"py: {message}"]


WHOLE_MONTHS_RULE = "'age_months' must be whole months, e.g. 689 for 57y5m"


@pytest.mark.parametrize(
    ("first_age", "shown"),
    [
        (np.inf, "inf"),  # was cast to -2**63 months: "age must be in ... (got -768614...y4m)"
        (1e300, "1e+300"),  # the same cast
        (2**70, "1180591620717411303424"),  # OverflowError from numpy
        (complex(660, 1), "(660+1j)"),  # the imaginary part was dropped with a warning
        ("660", "'660'"),  # text was read as a number of months
        (decimal.Decimal("660.5"), "660.5"),
        (decimal.Decimal("sNaN"), "sNaN"),
        (None, "None"),
    ],
)
def test_an_age_of_a_guide_made_in_python_that_is_not_a_whole_number_of_months_is_refused(
    first_age, shown
):
    """Each is refused by the whole-months rule with the value as given: never cast to
    another age, never an error of another type."""
    with pytest.raises(GuideError) as raised:
        made_in_python(age_months=[first_age, *HALF_PERCENT_AGES[1:]])
    assert [str(problem) for problem in raised.value.problems] == [
        f"py: {WHOLE_MONTHS_RULE} (got {shown})"
    ]


@pytest.mark.parametrize(
    ("ages", "shown"),
    [
        (np.array(HALF_PERCENT_AGES, "datetime64[D]"), "1971-10-23"),  # read as days
        (np.array(HALF_PERCENT_AGES, "timedelta64[D]"), "660 days"),
        (np.ones(len(HALF_PERCENT_AGES), dtype=bool), "True"),
        (np.array(HALF_PERCENT_AGES, "U3"), "'660'"),  # text was read as a number
        (  # beyond int64: it was wrapped to a negative age
            np.array([2**63, *HALF_PERCENT_AGES[1:]], dtype=np.uint64),
            "9223372036854775808",
        ),
    ],
)
def test_guide_ages_of_dates_durations_or_booleans_are_refused_not_read_as_months(ages, shown):
    with pytest.raises(GuideError) as raised:
        made_in_python(age_months=ages)
    assert [str(problem) for problem in raised.value.problems] == [
        f"py: {WHOLE_MONTHS_RULE} (got {shown})"
    ]


def test_a_guide_reads_whole_months_of_every_numeric_kind_as_the_same_table():
    reference = made_in_python()
    for ages in (
        np.array(HALF_PERCENT_AGES, dtype=np.int16),
        np.array(HALF_PERCENT_AGES, dtype=np.uint32),
        np.array(HALF_PERCENT_AGES, dtype=np.float32),
        np.array(HALF_PERCENT_AGES, dtype=object),
        [decimal.Decimal(age) for age in HALF_PERCENT_AGES],
    ):
        guide = made_in_python(age_months=ages)
        assert guide.age_months.dtype == np.int64
        assert guide.age_months.tolist() == reference.age_months.tolist()


def test_a_guide_path_given_as_text_is_held_as_a_path_and_its_files_are_read(
    half_percent_guides,
):
    """dataclasses.replace(guide, path="...") kept the text: guide.files raised TypeError
    (str / str), and so did the provenance that hashes the files."""
    loaded = half_percent_guides.guides[0]
    moved = dataclasses.replace(loaded, path=str(loaded.path))
    assert moved.path == loaded.path and moved.files == loaded.files
    assert moved.sha256() == loaded.sha256()


def test_a_guide_path_that_is_no_path_is_refused_naming_it():
    with pytest.raises(GuideError) as raised:
        made_in_python(path=5)
    assert [str(problem) for problem in raised.value.problems] == [
        "py: 'path' must be the guide's folder (a path) or None (got 5)"
    ]


ID_RULE = "'id' must be printable text, without control characters"


@pytest.mark.parametrize(
    ("given", "shown"),
    [
        ("a\nb", "a\ufffdb"),
        ("red\x1b[31m", "red\ufffd[31m"),
        ("a\u2028b", "a\ufffdb"),
        ("g" * 200, "g" * 80 + "…"),
    ],
    ids=["line-break", "escape", "line-separator", "long"],
)
def test_a_guide_made_in_python_is_named_by_its_id_on_one_line_as_shown_text(given, shown):
    """The id of a guide made in Python names every problem: a line break in it split each
    message over two lines (and an escape sequence reached the terminal); it is shown as
    other user text is (cut at 80 characters, controls replaced), quoted exactly after it."""
    with pytest.raises(GuideError) as raised:
        made_in_python(id=given, status="draft")
    problems = [str(problem) for problem in raised.value.problems]
    bad_id = [f"{shown}: {ID_RULE} (got {quoted(given)})"] if not given.isprintable() else []
    assert problems == [
        *bad_id,
        f"{shown}: 'status' must be in ['adopted', 'illustrative'] (got 'draft')",
    ]
    assert str(raised.value).splitlines()[-len(problems) :] == problems  # a line each


def test_a_guide_set_is_named_by_its_series_on_one_line_as_shown_text(succession):
    with pytest.raises(GuideError, match=exactly("a\ufffdb: a series needs at least one guide")):
        GuideSet("a\nb", ())
    series = "p\nr"
    with pytest.raises(GuideError, match=exactly("p\ufffdr: no guide 'x\\ny' (guides: ['py'])")):
        GuideSet(series, (made_in_python(series=series),)).by_id("x\ny")
    old, new = succession.guides
    overlapping = [dataclasses.replace(guide, series=series) for guide in (old, new, new)]
    with pytest.raises(GuideError) as raised:
        GuideSet(series, overlapping)
    assert [str(problem) for problem in raised.value.problems] == [
        f"{new.path}: series 'p\\nr': period of 'new' (from 2020-01-01) overlaps 'new' "
        "(2020-01-01 to open end)"
    ]


def test_a_valid_guide_made_in_python_is_held_as_arrays_and_reads_as_the_files_do(
    half_percent_guides, member
):
    guide = made_in_python()
    assert guide.age_months.dtype == np.int64 and guide.factors.dtype == np.float64
    shipped = half_percent_guides.guides[0]
    ages = np.arange(660, 781)
    assert guide.factor(ages).tolist() == shipped.factor(ages).tolist()
    early = member(separation_date="2017-11-15", credited_service=22.0)
    python_set = GuideSet("py", (guide,))
    assert evaluate(early, python_set).clause("c").monthly_amount == (
        evaluate(early, half_percent_guides).clause("c").monthly_amount
    )


def test_every_problem_of_every_guide_in_a_folder_is_reported_and_none_is_used(make_guide):
    good = make_guide("guide-a")
    broken_b = make_guide("guide-b", toml=with_keys(status='"draft"'))
    broken_c = make_guide("guide-c", csv=replacing("65,0,1.000000", "65,0,0.99"))
    with pytest.raises(GuideError) as raised:
        load_guides(good.parent)
    assert [str(problem) for problem in raised.value.problems] == [
        f"{broken_b / 'guide.toml'}:4: 'status' must be in ['adopted', 'illustrative'] "
        "(got 'draft')",
        f"{broken_c / 'reduction.csv'}:12: 'factor' must be 1 at 65y0m (got 0.99)",
    ]


def test_a_link_to_nothing_in_a_folder_of_guides_is_a_problem_not_a_guide_left_out(make_guide):
    # A guide folder linked from a share that is not mounted: the series would lose its
    # periods without a word, and members separated then would only read "no guide".
    folder = make_guide("guide-a")
    link = folder.parent / "jcs-2013"
    link.symlink_to(folder.parent.parent / "share" / "jcs-2013")
    with pytest.raises(GuideError) as raised:
        load_guides(folder.parent)
    assert [str(problem) for problem in raised.value.problems] == [
        f"{link}: a link that leads to no file or folder (its target: "
        f"{folder.parent.parent / 'share' / 'jcs-2013'})"
    ]


def test_a_link_to_itself_in_a_folder_of_guides_is_a_problem_not_said_to_be_missing(make_guide):
    folder = make_guide("guide-a")
    loop = folder.parent / "loop"
    loop.symlink_to("loop")
    with pytest.raises(GuideError) as raised:
        load_guides(folder.parent)
    assert [str(problem) for problem in raised.value.problems] == [
        f"{loop}: a link that leads to no file or folder (its target: loop)"
    ]


def test_a_path_that_is_not_a_folder_of_guides_is_refused(tmp_path):
    # A path that does not exist was "not a folder of Actuarial Guides" too.
    with pytest.raises(GuideError, match=exactly(f"{tmp_path / 'nope'}: no such folder")):
        load_guides(tmp_path / "nope")
    (tmp_path / "file.csv").write_text("x")
    with pytest.raises(
        GuideError, match=exactly(f"{tmp_path / 'file.csv'}: not a folder of Actuarial Guides")
    ):
        load_guides(tmp_path / "file.csv")
    with pytest.raises(GuideError, match=r": no guide found \(a guide is a folder with guide"):
        load_guides(tmp_path)


# ------------------------------------------------------------------------ series
def test_several_series_and_none_named_is_an_error_listing_them(make_guide):
    folder = make_guide("guide-a")
    make_guide("guide-b")
    with pytest.raises(
        GuideError,
        match=exactly(
            f"{folder.parent}: several series present, name one with series= / --series: "
            "['guide-a', 'guide-b']"
        ),
    ):
        load_guides(folder.parent)
    assert load_guides(folder.parent, "guide-b").guides[0].id == "guide-b"


def test_an_unknown_series_is_an_error_listing_the_series_present(make_guide):
    folder = make_guide("guide-a")
    with pytest.raises(
        GuideError,
        match=exactly(f"{folder.parent}: 'series' must be in ['guide-a'] (got 'guide-z')"),
    ):
        load_guides(folder.parent, "guide-z")


def test_overlapping_periods_in_a_series_are_refused(make_guide):
    first = make_guide("first", toml=with_keys(series='"pr"', effective_until="2010-06-30"))
    second = make_guide("second", toml=with_keys(series='"pr"', effective_from="2010-06-30"))
    with pytest.raises(
        GuideError,
        match=exactly(
            f"{second}: series 'pr': period of 'second' (from 2010-06-30) overlaps 'first' "
            "(1990-04-01 to 2010-06-30)"
        ),
    ):
        load_guides(first.parent)


def test_every_guide_inside_a_long_period_is_reported_as_overlapping_it(make_guide):
    long = make_guide("long", toml=with_keys(series='"pr"', effective_until="2010-12-31"))
    first = make_guide(
        "short-1",
        toml=with_keys(series='"pr"', effective_from="1995-01-01", effective_until="1996-12-31"),
    )
    second = make_guide(
        "short-2",
        toml=with_keys(series='"pr"', effective_from="1997-01-01", effective_until="1998-12-31"),
    )
    with pytest.raises(GuideError) as raised:
        load_guides(long.parent)
    assert [str(problem) for problem in raised.value.problems] == [
        f"{first}: series 'pr': period of 'short-1' (from 1995-01-01) overlaps 'long' "
        "(1990-04-01 to 2010-12-31)",
        f"{second}: series 'pr': period of 'short-2' (from 1997-01-01) overlaps 'long' "
        "(1990-04-01 to 2010-12-31)",
    ]


def test_an_open_ended_guide_overlaps_any_later_guide(make_guide):
    first = make_guide("first", toml=with_keys(series='"pr"'))
    make_guide("second", toml=with_keys(series='"pr"', effective_from="2010-07-01"))
    with pytest.raises(GuideError, match=r"overlaps 'first' \(1990-04-01 to open end\)$"):
        load_guides(first.parent)


@pytest.fixture
def succession(make_guide):
    """Series 'pr': 'old' (half-percent) to 2019-12-31, then 'new' (a flat 0.9) from 2020."""
    make_guide("old", toml=with_keys(series='"pr"', effective_until="2019-12-31"))
    new = make_guide(
        "new",
        toml=with_keys(series='"pr"', effective_from="2020-01-01"),
        csv="age_years,age_months,factor\n55,0,0.900000\n65,0,1.000000\n",
    )
    return load_guides(new.parent)


def test_a_series_of_two_guides_picks_the_guide_in_force_on_each_side_of_the_boundary(
    succession, member
):
    assert [guide.id for guide in succession] == ["old", "new"]  # in date order
    assert succession.in_force_on(dt.date(2019, 12, 31)).id == "old"
    assert succession.in_force_on(dt.date(2020, 1, 1)).id == "new"
    # Born 1964-06-15: 55y6m on both days (the 15th of January not yet reached).
    # old: 0.40 + 6/12 x 0.06 = 0.43; new: 0.90 + 6/120 x 0.10 = 0.905.
    early = member(birth_date="1964-06-15", entry_date="1990-06-15", credited_service=29.5)
    on_31 = evaluate({**early, "separation_date": "2019-12-31"}, succession).clause("c")
    on_1 = evaluate({**early, "separation_date": "2020-01-01"}, succession).clause("c")
    assert (on_31.guide_id, on_1.guide_id) == ("old", "new")
    assert on_31.reduction_factor == pytest.approx(0.43, abs=1e-12)
    assert on_1.reduction_factor == pytest.approx(0.905, abs=1e-12)
    # 1.5% x 48,000 x 29.5 = 21,240: x 0.43 = 9,133.20; x 0.905 = 19,222.20.
    assert (on_31.annual_amount, on_1.annual_amount) == (9_133.20, 19_222.20)


def test_a_gap_between_two_guides_of_a_series_is_covered_by_neither(make_guide):
    make_guide("old", toml=with_keys(series='"pr"', effective_until="2019-12-31"))
    new = make_guide("new", toml=with_keys(series='"pr"', effective_from="2020-02-01"))
    series = load_guides(new.parent)
    dates = np.array(["2019-12-31", "2020-01-01", "2020-01-31", "2020-02-01"], "datetime64[D]")
    assert series.index_in_force(dates).tolist() == [0, -1, -1, 1]
    with pytest.raises(
        GuideError,
        match=exactly(
            "pr: no Actuarial Guide of series 'pr' is in force on 2020-01-15 ('old' 1990-04-01 "
            "to 2019-12-31, 'new' 2020-02-01 to open end)"
        ),
    ):
        series.in_force_on(dt.date(2020, 1, 15))


def test_by_id_lists_the_guides_of_the_series(succession):
    assert succession.by_id("new").effective_from == dt.date(2020, 1, 1)
    with pytest.raises(GuideError, match=exactly("pr: no guide 'newer' (guides: ['old', 'new'])")):
        succession.by_id("newer")


def test_guide_set_built_directly_refuses_a_guide_of_another_series(succession, make_guide):
    other = load_guide(
        make_guide(
            "other", toml=with_keys(effective_from="1980-01-01", effective_until="1989-12-31")
        )
    )
    with pytest.raises(GuideError) as raised:
        GuideSet("pr", (*succession.guides, other))
    assert [str(problem) for problem in raised.value.problems] == [
        f"{other.path}: series 'pr': guide 'other' is of series 'other'"
    ]


def test_guide_set_built_directly_needs_a_guide():
    with pytest.raises(GuideError, match=exactly("pr: a series needs at least one guide")):
        GuideSet("pr", ())


GUIDES_RULE = "'guides' must be a tuple of Guide objects"
FILES_RULE = "'files' must be a tuple of paths"


@pytest.mark.parametrize(
    ("arguments", "problems"),
    [
        (("py", [{"id": "py"}]), [f"{GUIDES_RULE} (got {{'id': 'py'}} at position 1)"]),
        (("py", "py"), [f"{GUIDES_RULE} (got 'py')"]),  # read as guides 'p' and 'y'
        (("py", None), [f"{GUIDES_RULE} (got None)"]),
        (("py", 7), [f"{GUIDES_RULE} (got 7)"]),
        (("py", ("guide", None)), [f"{GUIDES_RULE} (got 'guide' at position 1)",
                                   f"{GUIDES_RULE} (got None at position 2)"]),
        ((5, ()), ["'series' must be a non-empty string (got 5)"]),
        ((" ", ()), ["'series' must be a non-empty string (got ' ')"]),
        (("py", (), 5), [f"{FILES_RULE} (got 5)"]),
        (("py", (), "abc"), [f"{FILES_RULE} (got 'abc')"]),  # was read as the paths a, b, c
        (("py", (), (Path("x"), 5)), [f"{FILES_RULE} (got 5 at position 2)"]),
    ],
    ids=["a-dict", "text", "none", "an-int", "items", "series-int", "series-blank",
         "files-int", "files-text", "files-item"],
)  # fmt: skip
def test_guide_set_built_with_what_is_no_guide_is_refused_naming_it(arguments, problems):
    """A GuideSet built in Python is checked as a Guide is: a dict among its guides raised
    AttributeError ('dict' object has no attribute 'files'), None TypeError; every problem
    of its arguments is named with what was given and what is expected, all at once."""
    with pytest.raises(GuideError) as raised:
        GuideSet(*arguments)
    where = str(arguments[0])
    assert [str(problem) for problem in raised.value.problems] == [
        f"{where}: {problem}" for problem in problems
    ]


def test_guide_set_built_with_a_guide_alone_names_it_and_asks_for_a_tuple():
    guide = made_in_python()
    with pytest.raises(GuideError) as raised:
        GuideSet("py", guide)
    assert [str(problem) for problem in raised.value.problems] == [
        f"py: {GUIDES_RULE} (got {quoted(guide)})"
    ]
    assert GuideSet("py", [guide]).guides == (guide,)  # a list is as good as a tuple


def test_guide_set_refuses_overlaps_even_when_built_directly(succession):
    old, new = succession.guides
    with pytest.raises(GuideError, match="overlaps"):
        GuideSet("pr", (old, old))
    assert GuideSet("pr", (new, old)).guides == (old, new)  # sorted by date


# ------------------------------------------- a separation date that no guide covers
@pytest.fixture
def guides_from_2020(make_guide):
    return load_guides(make_guide("from-2020", toml=with_keys(effective_from="2020-01-01")))


NO_GUIDE = (
    "no Actuarial Guide of series 'from-2020' is in force on 2019-06-15 "
    "('from-2020' 2020-01-01 to open end)"
)


def early_retirees(member):
    """EARLY separates at 59 in 2019, before the guide; LATER at 60 in 2020."""
    uncovered = member(
        member_id="EARLY",
        birth_date="1960-06-15",
        entry_date="1990-04-01",
        separation_date="2019-06-15",
        credited_service=29.0,
    )
    covered = member(
        member_id="LATER",
        birth_date="1960-06-15",
        entry_date="1990-04-01",
        separation_date="2020-06-15",
        credited_service=30.0,
    )
    return uncovered, covered


def test_a_separation_date_no_guide_covers_is_an_error_on_that_inciso_c_result(
    guides_from_2020, member
):
    uncovered, _ = early_retirees(member)
    result = evaluate(uncovered, guides_from_2020)
    assert result.clause("c").eligible
    assert result.clause("c").error == NO_GUIDE
    assert result.clause("c").annual_amount is None
    assert result.clause("c").monthly_amount is None
    assert result.clause("c").guide_id is None
    assert f"  ! {NO_GUIDE}" in result.explanation
    # The other clauses are computed: (d) 1.5% x 48,000 x 29 = 20,880 from 2025-06-15.
    assert result.clause("d").annual_amount == 20_880.00 and result.clause("d").error is None
    with pytest.raises(GuideError, match=exactly(f"from-2020: {NO_GUIDE}")):
        guides_from_2020.in_force_on(dt.date(2019, 6, 15))


def test_in_a_frame_only_the_uncovered_inciso_c_row_has_the_error(guides_from_2020, member):
    table = evaluate_frame(pd.DataFrame(early_retirees(member)), guides_from_2020)
    errors = table.set_index(["member_id", "clause"])["error"].astype(str)
    assert errors[("EARLY", "c")] == NO_GUIDE
    assert (errors.drop(("EARLY", "c")) == "").all()
    later_c = table[(table["member_id"] == "LATER") & (table["clause"] == "c")].iloc[0]
    # 60y0m in 2020: 0.70 x 1.5% x 48,000 x 30 = 15,120.
    assert later_c["annual_amount"] == 15_120.00 and later_c["guide_id"] == "from-2020"


# ----------------------------------------------------- guide files read with care
BOM = "\ufeff"


@pytest.mark.parametrize("where", ["toml", "csv", "both"])
def test_a_byte_order_mark_is_accepted_in_either_file(make_guide, where):
    def add_bom(text):
        return BOM + text

    folder = make_guide(
        toml=add_bom if where in ("toml", "both") else None,
        csv=add_bom if where in ("csv", "both") else None,
    )
    assert load_guide(folder).id == "guide-a"


def _write_bytes(path, change):
    path.write_bytes(change(path.read_bytes()))


@pytest.mark.parametrize(
    ("file", "change", "line", "message"),
    [
        (
            "guide.toml",
            lambda b: b.replace(b"Illustrative", b"Illustr\xe9tive", 1),
            3,
            "not UTF-8 text (byte 0xe9 at offset {offset}); save the file as UTF-8",
        ),
        (
            "reduction.csv",
            lambda b: b.replace(b"factor", b"factor\xff", 1),
            1,
            "not UTF-8 text (byte 0xff at offset {offset}); save the file as UTF-8",
        ),
        (
            "reduction.csv",
            lambda b: b + b"60,0,0.7\x80\n",
            13,
            "not UTF-8 text (byte 0x80 at offset {offset}); save the file as UTF-8",
        ),
        (
            "guide.toml",
            lambda b: "\ufeff".encode("utf-16") + b.decode().encode("utf-16-le"),
            1,
            "not UTF-8 text (byte 0xff at offset {offset}); save the file as UTF-8",
        ),
    ],
)
def test_a_file_that_is_not_utf8_is_one_problem_with_its_line(
    make_guide, file, change, line, message
):
    folder = make_guide()
    path = folder / file
    _write_bytes(path, change)
    data = path.read_bytes().removeprefix(b"\xef\xbb\xbf")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as error:
        offset = error.start
    assert problems_of(folder) == [f"{path}:{line}: {message.format(offset=offset)}"]


@pytest.mark.parametrize(
    ("file", "size"), [("guide.toml", 64 * 1024 + 1), ("reduction.csv", 64 * 1024 + 1)]
)
def test_a_file_over_its_size_limit_is_refused_unread(make_guide, file, size):
    folder = make_guide()
    path = folder / file
    text = path.read_text()
    path.write_text(text + "#" * (size - len(text.encode())))
    assert path.stat().st_size == size
    assert problems_of(folder) == [f"{path}: larger than the limit of 65,536 bytes for {file}"]


NESTED = [
    pytest.param("x = " + "[" * 6 + "]" * 6, 7, id="arrays-7"),
    pytest.param("x = " + "[" * 5000 + "]" * 5000, 5001, id="arrays-5000"),
    pytest.param("a.b.c.d.e.f.g = 1", 7, id="dotted-key-7"),
    pytest.param('a."b.c".d.e.f.g.h = 1', 7, id="quoted-dot-is-one-part"),
    pytest.param("x = {a = {b = {c = {d = {e = {f = 1}}}}}}", 7, id="inline-tables-7"),
    pytest.param("[t.u.v.w.x.y.z]\nk = 1", 8, id="table-header-then-key"),
    pytest.param("x = " + "{a = " * 3000 + "1" + "}" * 3000, 3001, id="inline-tables-3000"),
    pytest.param("x = " + "[" * 1000, 1002, id="unclosed-arrays"),  # [basis] inside
]


@pytest.mark.parametrize(("extra", "depth"), NESTED)
def test_toml_nested_too_deep_is_refused_before_parsing(make_guide, extra, depth):
    folder = make_guide(toml=lambda text: extra + "\n" + text)
    path = folder / "guide.toml"
    assert problems_of(folder)[0] == (
        f"{path}:1: nested deeper than the limit of 6 levels (a dotted key counts one level "
        f"a part; reached {depth:,})"
    )


@pytest.mark.parametrize(
    "extra",
    [
        "a.b.c.d.e.f = 1",  # depth 6: the limit
        'x = "[[[[[[[[[[[[[[[[["',  # brackets in a string
        "x = '''{{{{{{{{{{{{{{{{{{{{'''",
        "# [[[[[[[[[[[[[[[[[[[[[[[[[[",
        'x = "a.b.c.d.e.f.g.h"',
    ],
)
def test_toml_depth_counts_only_structure(make_guide, extra):
    folder = make_guide(toml=lambda text: text.replace("[basis]", extra + "\n[basis]"))
    problems = problems_of(folder) if _fails(folder) else []
    assert not any("nested deeper" in problem for problem in problems)


def _fails(folder) -> bool:
    try:
        load_guide(folder)
    except GuideError:
        return True
    return False


@pytest.mark.parametrize("keys", [201, 5000, 20_000])
def test_toml_with_too_many_keys_is_refused_before_parsing(make_guide, keys):
    extra = "\n".join(f"k{n}=1" for n in range(keys))
    folder = make_guide(toml=lambda text: text + "\n" + extra)
    problems = problems_of(folder)
    path = folder / "guide.toml"
    if len(extra) > 60_000:
        assert problems == [f"{path}: larger than the limit of 65,536 bytes for guide.toml"]
    else:
        total = keys + 20  # the guide's own keys and its [basis] table
        assert problems[0].startswith(f"{path}: more than 200 keys (got ")
        assert int(problems[0].split("(got ")[1].rstrip(")").replace(",", "")) >= keys
        assert total > 200


@pytest.mark.parametrize(
    ("toml", "line"),
    [
        ('title = "unterminated\n', 1),
        ("= 1\n", 1),
        ("x = 1\nx = 2\n", 2),
        ("x = [1, 2\n", 2),
        ("x = 1979-13-45\n", 1),
        ("x = \x00\n", 1),
    ],
)
def test_malformed_toml_is_one_problem_with_its_line_never_a_traceback(make_guide, toml, line):
    folder = make_guide(toml=lambda text: toml + text)
    problems = problems_of(folder)
    assert len(problems) == 1
    assert problems[0].startswith(f"{folder / 'guide.toml'}:{line}: not valid TOML: ")


def test_a_nul_byte_in_reduction_csv_is_a_problem(make_guide):
    folder = make_guide(csv=lambda text: text.replace("56,0,", "56,0\x00,", 1))
    problems = problems_of(folder)
    assert len(problems) >= 1 and all(str(folder / "reduction.csv") in p for p in problems)


def test_problems_in_both_files_of_several_guides_are_reported_at_once(make_guide):
    first = make_guide("guide-a", toml=lambda t: "x = " + "[" * 50 + "]" * 50 + "\n" + t)
    second = make_guide("guide-b")
    _write_bytes(second / "reduction.csv", lambda b: b.replace(b"factor", b"f\xe9", 1))
    with pytest.raises(GuideError) as raised:
        load_guides(first.parent, series="guide-a")
    problems = [p.path for p in raised.value.problems]
    assert problems == [str(first / "guide.toml"), str(second / "reduction.csv")]


def test_a_long_value_is_quoted_at_most_80_characters(make_guide):
    folder = make_guide(toml=with_keys(status='"' + "s" * 10_000 + '"'))
    (problem,) = problems_of(folder)
    assert problem.endswith(f"(got '{'s' * 80}…')")


def test_no_guide_message_stays_short_with_two_thousand_guides():
    import dataclasses

    from actuarial.guides import DEFAULT_SERIES

    base = load_guide(SHIPPED_GUIDES / DEFAULT_SERIES)

    guides = tuple(
        dataclasses.replace(
            base,
            id=f"day-{n}",
            effective_from=dt.date(2000, 1, 1) + dt.timedelta(days=2 * n),
            effective_until=dt.date(2000, 1, 1) + dt.timedelta(days=2 * n),
        )
        for n in range(2000)
    )
    guide_set = GuideSet(base.series, guides)
    message = guide_set.no_guide_message(dt.date(2000, 1, 2))
    assert message == (
        f"no Actuarial Guide of series '{base.series}' is in force on 2000-01-02 (2,000 "
        "guides; last before: 'day-0' 2000-01-01 to 2000-01-01; next after: 'day-1' "
        "2000-01-03 to 2000-01-03)"
    )


# The pre-parse measure of nesting equals the depth of what the parser builds.
def _parsed_depth(value) -> int:
    if isinstance(value, dict):
        return 1 + max((_parsed_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_parsed_depth(v) for v in value), default=0)
    return 0


_toml_keys = st.sampled_from(["a", "b", "c", '"q.d"', "'l.t'"])
_toml_values = st.recursive(
    st.sampled_from(["1", '"s[{"', "'x]}'", "true", "1979-05-27", '"""m\n[["""']),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3).map(lambda items: "[" + ", ".join(items) + "]"),
        st.dictionaries(_toml_keys, inner, max_size=3).map(
            lambda table: "{" + ", ".join(f"{k} = {v}" for k, v in table.items()) + "}"
        ),
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(
    header=st.lists(st.sampled_from(["t", "u", '"v.w"']), max_size=3),
    array_of_tables=st.booleans(),
    entries=st.dictionaries(
        st.lists(st.sampled_from(["k", "m", "'n.o'"]), min_size=1, max_size=3).map(".".join),
        _toml_values,
        min_size=1,
        max_size=4,
    ),
    comment=st.booleans(),
)
def test_the_nesting_measured_before_parsing_is_the_parsed_depth(
    header, array_of_tables, entries, comment
):
    import tomllib

    from actuarial.text_files import toml_shape

    lines = []
    if header:
        name = ".".join(header)
        lines.append(f"[[{name}]]" if array_of_tables else f"[{name}]")
    lines += [
        f"{key} = {value}" + (" # [[[{{{" if comment else "") for key, value in entries.items()
    ]
    text = "\n".join(lines) + "\n"
    try:
        parsed = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return  # e.g. a key defined twice by two dotted keys; the parser reports it
    assert toml_shape(text, 6)[0] == _parsed_depth(parsed)


def test_a_folder_that_cannot_be_listed_is_a_problem_not_a_traceback(tmp_path, monkeypatch):
    from pathlib import Path

    def refuse(self):
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "iterdir", refuse)
    with pytest.raises(GuideError, match=exactly(f"{tmp_path}: cannot read (Permission denied)")):
        load_guides(tmp_path)


def _lock(monkeypatch, folder: Path) -> None:
    """``folder`` as one of mode 000 (another user's): even asking whether a file in it
    exists raises PermissionError."""
    stat = Path.stat

    def refuse_inside(self, *args, **kwargs):
        if self.parent == folder:
            raise PermissionError(13, "Permission denied", str(self))
        return stat(self, *args, **kwargs)

    monkeypatch.setattr(Path, "stat", refuse_inside)


def test_a_guide_folder_that_cannot_be_searched_is_a_problem_not_a_traceback(
    make_guide, monkeypatch
):
    # Asking whether its guide.toml exists raised PermissionError, which ended `guides
    # validate` in a traceback.
    make_guide("guide-a")
    locked = make_guide("guide-b")
    _lock(monkeypatch, locked)
    with pytest.raises(GuideError) as raised:
        load_guides(locked.parent, "guide-a")
    assert [str(problem) for problem in raised.value.problems] == [
        f"{locked / 'guide.toml'}: cannot read (Permission denied)"
    ]


def test_a_guide_folder_that_cannot_be_searched_is_reported_as_load_guide_reports_it(
    make_guide, monkeypatch
):
    """load_guides asks whether a folder holds a guide as load_guide and the command line do
    (holds_guide: yes when that cannot be known, so that loading it says why): it named the
    folder "cannot read", where load_guide names its guide.toml."""
    locked = make_guide("guide-a")
    _lock(monkeypatch, locked)
    expected = [f"{locked / 'guide.toml'}: cannot read (Permission denied)"]
    for load in (load_guide, load_guides):
        with pytest.raises(GuideError) as raised:
            load(locked)
        assert [str(problem) for problem in raised.value.problems] == expected


def test_a_guide_set_lists_every_file_read_to_load_it_other_series_included(make_guide, tmp_path):
    used, other = make_guide("used"), make_guide("other")
    guides = load_guides(tmp_path / "guides", "used")
    assert [g.id for g in guides] == ["used"]
    assert guides.files == (
        other / "guide.toml",
        other / "reduction.csv",
        used / "guide.toml",
        used / "reduction.csv",
    )
    assert load_guide(used).files == (used / "guide.toml", used / "reduction.csv")
    assert GuideSet("used", (load_guide(used),)).files == load_guide(used).files


# ------------------------------------------------------- dates and ids of guide.toml, bounded
@pytest.mark.parametrize(
    ("key", "outside", "inside", "line"),
    [
        ("effective_from", "1899-12-31", "1900-01-01", 5),
        ("effective_from", "2101-01-01", "2100-12-31", 5),
        ("effective_from", "0001-01-01", "1900-01-01", 5),
        ("effective_from", "9999-01-01", "2100-12-31", 5),
        ("effective_until", "2101-01-01", "2100-12-31", 1),
        ("effective_until", "9999-01-01", "2100-12-31", 1),
        ("adopted_on", "1899-12-31", "1900-01-01", 1),
        ("adopted_on", "2101-01-01", "2100-12-31", 1),
    ],
)
def test_a_date_of_guide_toml_outside_1900_to_2100_is_refused_and_inside_accepted(
    make_guide, key, outside, inside, line
):
    folder = make_guide(toml=with_keys(**{key: outside}))
    assert problems_of(folder) == [
        f"{folder / 'guide.toml'}:{line}: '{key}' must be from 1900-01-01 to 2100-12-31 "
        f"(got {outside})"
    ]
    guide = load_guide(make_guide("guide-b", toml=with_keys(**{key: inside})))
    assert getattr(guide, key) == dt.date.fromisoformat(inside)


def test_an_effective_until_before_1900_is_refused_for_both_rules(make_guide):
    folder = make_guide(toml=with_keys(effective_until="0001-01-01"))
    assert problems_of(folder) == [
        f"{folder / 'guide.toml'}:1: 'effective_until' must be from 1900-01-01 to 2100-12-31 "
        "(got 0001-01-01)",
        f"{folder / 'guide.toml'}:1: 'effective_until' must be on or after 'effective_from' "
        "1990-04-01 (got 0001-01-01)",
    ]


@pytest.mark.parametrize(
    ("guide_id", "shown"),
    [
        ("a\nb", r"'a\nb'"),
        ("a\tb", r"'a\tb'"),
        ("a\x1b[31mb", r"'a\x1b[31mb'"),
        ("a\u2028b", r"'a\u2028b'"),  # a line separator
        ("a\u202eb", r"'a\u202eb'"),  # right-to-left override
    ],
)
def test_a_guide_id_must_be_printable_text_without_control_characters(make_guide, guide_id, shown):
    import json

    folder = make_guide(toml=with_keys(id=json.dumps(guide_id)))  # JSON escapes are TOML's
    folder = folder.rename(folder.with_name(guide_id))  # the folder is named as the id
    assert problems_of(folder) == [
        f"{folder / 'guide.toml'}:1: 'id' must be printable text, without control characters "
        f"(got {shown})"
    ]


def test_the_guide_writer_refuses_an_id_with_a_line_break_and_writes_nothing(tmp_path):
    from click.testing import CliRunner

    from actuarial.cli import cli

    out = tmp_path / "a\nb"
    result = CliRunner().invoke(
        cli, ["guides", "derive", "--mortality", "sult", "--interest", "0.05", "--out", str(out)]
    )
    assert result.exit_code == 1, result.output
    assert (
        r"'id' must be printable text, without control characters (got 'a\nb')"
    ) in result.stderr
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_a_file_with_thousands_of_problems_lists_the_first_and_counts_the_rest(make_guide):
    # Every row written 300 times: 3,300 duplicate ages gave an error of 3,301 lines. As for
    # a rates file, each file's first PROBLEMS_SHOWN are listed and the others counted;
    # the error's problems keep every one.
    folder = make_guide(csv=lambda text: text + "".join(text.splitlines(True)[1:]) * 300)
    csv = folder / "reduction.csv"
    rows = (len(csv.read_text().splitlines()) - 1) // 301  # a header, the rows, 300 copies
    with pytest.raises(GuideError) as refused:
        load_guides(folder.parent)
    lines = str(refused.value).splitlines()
    problems = 300 * rows
    assert len(refused.value.problems) == problems
    assert lines[0] == f"{problems} problem(s) in the Actuarial Guides:"
    assert lines[1] == f"{csv}:{rows + 2}: duplicate age 55y0m (first on line 2)"
    more = f"{csv}: ... and {problems - PROBLEMS_SHOWN:,} more problem(s)"
    assert lines[1 + PROBLEMS_SHOWN :] == [more]


@pytest.mark.parametrize("path", [5, b"guides", ["guides"]])
def test_load_guides_names_a_folder_that_is_no_path(path):
    # load_guides(5) raised pathlib's "expected str, bytes or os.PathLike object, not int".
    with pytest.raises(TypeError) as error:
        load_guides(path)
    assert str(error.value) == f"'path' must be a folder of guides (a path) (got {path!r})"


@pytest.mark.parametrize(
    ("rows", "decrease"),
    [
        # out of order: 61y0m's 0.6 is below 60y0m's 0.7 (reported only once sorted)
        (
            "55,0,0.4\n60,0,0.7\n58,0,0.5\n61,0,0.6\n65,0,1\n",
            "5: 'factor' must not decrease with age (0.6 at 61y0m < 0.7 on line 3)",
        ),
        # a duplicate age between: 62y0m's 0.6 is below 60y0m's first 0.9
        (
            "55,0,0.4\n60,0,0.9\n60,0,0.5\n62,0,0.6\n65,0,1\n",
            "5: 'factor' must not decrease with age (0.6 at 62y0m < 0.9 on line 3)",
        ),
    ],  # fmt: skip
)
def test_a_decrease_is_reported_with_the_rows_out_of_order_all_at_once(make_guide, rows, decrease):
    folder = make_guide(csv="age_years,age_months,factor\n" + rows)
    assert f"{folder / 'reduction.csv'}:{decrease}" in problems_of(folder)


def test_a_guide_without_guide_toml_has_its_table_checked_too(make_guide):
    folder = make_guide(csv="age_years,age_months,factor\n55,0,0.4\n65,0,2\n")
    (folder / "guide.toml").unlink()
    assert problems_of(folder) == [
        f"{folder / 'guide.toml'}: guide.toml is missing",
        f"{folder / 'reduction.csv'}:3: 'factor' must be in (0, 1] (got 2)",
    ]


def test_a_date_written_as_an_array_is_quoted_as_toml_writes_it(make_guide):
    # It was quoted "(got [datetime.date(1990, 4, 1)])": Python, not the file.
    folder = make_guide(toml=with_keys(effective_from="[1990-04-01]"))
    problems = problems_of(folder)
    assert any(p.endswith("(got [1990-04-01])") for p in problems), problems
    assert not any("datetime" in p for p in problems), problems


def test_a_guide_made_in_python_takes_numpys_whole_numbers_as_its_age():
    # normal_retirement_age=np.int64(65) was refused as "must be 65 ... (got 65)".
    import dataclasses

    import numpy as np

    guide = load_guides().guides[0]
    made = GuideSet(guide.series, (dataclasses.replace(guide, normal_retirement_age=np.int64(65)),))
    assert made.guides[0].normal_retirement_age == 65
    for refused, shown in [(65.0, "65.0"), (True, "True"), ("65", "'65'")]:
        with pytest.raises(
            GuideError, match=rf"must be 65, the age of inciso \(a\) \(got {shown}\)"
        ):
            GuideSet(guide.series, (dataclasses.replace(guide, normal_retirement_age=refused),))
