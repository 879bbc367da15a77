"""Small tables for the notebooks and the report: guides, a guide against equivalence, a
membership by clause.

Each function takes package objects and returns a small pandas DataFrame (no printing, no
absolute paths), so that a notebook cell is one call and its output can be reviewed by eye.
Nothing here applies the law: the numbers come from the engine, the guides and
:mod:`actuarial.equivalence`; this module only arranges them.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from actuarial.dates import format_age
from actuarial.equivalence import early_retirement_factor, fit_interest
from actuarial.guides import Guide, GuideError, GuideSet, load_every_guide
from actuarial.law.clauses import CLAUSES
from actuarial.law.minimum import later_minimums, minimum_since
from actuarial.law.parameters import shipped_law, shown_value
from actuarial.law.readings import (
    INTERPRETATIONS,
    Readings,
    later_minimums_text,
    values_today,
)
from actuarial.members import WARNING_RULES, WARNING_SEPARATOR
from actuarial.mortality import LifeTable, MortalityError, scale_rates, table_from_spec
from actuarial.output_files import takes_paths
from actuarial.shown_text import as_given

__all__ = [
    "amendment_entries",
    "benefits_by_clause",
    "clause_functions",
    "clause_summary",
    "equivalence_table",
    "factor_grid",
    "factor_in_force",
    "guide_factor_table",
    "guide_summary",
    "guide_under_review",
    "guides_in",
    "implied_interest",
    "gains_by_clause",
    "interpretations_table",
    "invalid_rows",
    "law_comparison",
    "law_numbers",
    "lifted_by_minimum",
    "membership_counts",
    "mortality_sensitivity",
    "readings_in_force",
    "relative_problems",
    "scale_mortality",
    "series_in",
    "warnings_by_rule",
]


# --------------------------------------------------------------------- the statute
def clause_functions() -> pd.DataFrame:
    """Each clause with its title and the function that implements it (first docstring line)."""
    return pd.DataFrame(
        {
            "clause": [f"inciso ({clause})" for clause in CLAUSES],
            "title": [clause.title for clause in CLAUSES.values()],
            "function": [
                f"{clause.rule.__module__}.{clause.rule.__name__}" for clause in CLAUSES.values()
            ],
            "summary": [
                (clause.rule.__doc__ or "").strip().splitlines()[0] for clause in CLAUSES.values()
            ],
        }
    )


def interpretations_table(readings: Readings | None = None) -> pd.DataFrame:
    """The interpretations I-1 to I-9: the default reading, its switch and the value in force."""
    values = (readings or Readings()).as_dict()
    law_values, later = values_today()
    later_text = later_minimums_text("en", later)
    texts = [item.text("en", False, law_values, {}, later_text) for item in INTERPRETATIONS]
    return pd.DataFrame(
        {
            "id": [item.id for item in INTERPRETATIONS],
            "title": [title for title, _ in texts],
            "default reading": [default for _, default in texts],
            "switch": [item.switch or "-" for item in INTERPRETATIONS],
            "value": [
                "-" if item.switch is None else repr(values[item.switch])
                for item in INTERPRETATIONS
            ],
        }
    )


# --------------------------------------------------------------------- the numbers of the law
def _law_values(law=None, date=None) -> tuple[dict, str, tuple]:
    """The numbers of the clauses in force on ``date`` (default: from the law's last change
    on; :meth:`Law.payable_on` if earlier than its first), by their names in the law file,
    the date from which that monthly minimum's amount is paid
    (:func:`~actuarial.law.minimum.minimum_since`), and the minimums of later payment
    dates (:func:`~actuarial.law.minimum.later_minimums`)."""
    from actuarial.law import law_in_force

    law = law_in_force(law)
    if date is None:
        date = max(law.change_dates()).astype("datetime64[D]").item()
    else:  # a payment asked for before the law's first date is paid from it
        date = law.payable_on(dt.date.fromisoformat(date) if isinstance(date, str) else date)
    minimum_from = str(minimum_since(law, date).astype("datetime64[D]"))
    return law.values_on(date), minimum_from, later_minimums(law, date)


def law_numbers(law=None, date=None) -> dict[str, str]:
    """The numbers of the law as a page's prose writes them (``actuarial.pages.prose``): those
    of ``law`` (default: the shipped law; a path or list of paths: amended) in force on ``date``
    (default: from its last change on).

    ``minimum`` ($500), ``minimum_cents`` ($500.00), ``minimum_from`` (the first payment
    date of that amount: an entry restating it is no new date), ``coverage_from``,
    ``coverage_until``; per clause: ``age_a`` (65), ``age_a_ym`` (65y0m), ``age_a_before``
    (64y11m), ``service_a``, ``rate_a`` (1.5%), ``age_b``,
    ``age_b_ym``, ``age_b_before``, ``service_b``, ``rate_b_at``, ``rate_b_before``,
    ``age_c``, ``age_c_ym``, ``age_c_before``, ``service_c``, ``age_d``; each percentage
    also as TeX (``rate_a_tex``: ``1.5\\%``).
    """
    values, minimum_from, _ = _law_values(law, date)

    def years(value) -> str:
        return shown_value("years", value)

    def percent(value) -> str:
        return shown_value("rate", value)

    minimum = values["minimum_monthly_pension"]
    numbers = {
        "minimum": f"${minimum:,.0f}"
        if minimum == int(minimum)
        else shown_value(
            "USD a month", minimum
        ),  # whole dollars without cents, as the statute writes them
        "minimum_cents": shown_value("USD a month", minimum),
        "minimum_from": minimum_from,
        "coverage_from": str(values["coverage.first_entry_on_or_after"]),
        "coverage_until": str(values["coverage.first_entry_before"]),
    }
    for clause, prefix in (
        ("a", "service_annuity"),
        ("b", "high_risk"),
        ("c", "early_retirement"),
        ("d", "deferred"),
    ):
        age = int(values[f"{prefix}.age"])
        numbers[f"age_{clause}"] = str(age)
        numbers[f"age_{clause}_ym"] = f"{age}y0m"
        numbers[f"age_{clause}_before"] = f"{age - 1}y11m"
        if f"{prefix}.minimum_service" in values:
            numbers[f"service_{clause}"] = years(values[f"{prefix}.minimum_service"])
    for name, key in (
        ("rate_a", "service_annuity.rate"),
        ("rate_b_at", "high_risk.rate_at_age"),
        ("rate_b_before", "high_risk.rate_before_age"),
    ):
        numbers[name] = percent(values[key])
        numbers[f"{name}_tex"] = numbers[name].replace("%", "\\%")
    return numbers


# --------------------------------------------------------------------- guides
guides_in = load_every_guide  # every guide of every series, validated (actuarial.guides)


@takes_paths("law")
def readings_in_force(readings: Readings | None = None, law=None, date=None) -> list[str]:
    """The readings described (:meth:`Readings.describe`) with the numbers of ``law`` in force
    on ``date``, chosen as :func:`law_numbers` chooses them: under a bill, its minimum."""
    values, _, later = _law_values(law, date)
    return (readings or Readings()).describe(law_values=values, later_minimums=later)


@takes_paths("path")
def series_in(path, first: str | None = None) -> list[str]:
    """The series of every guide under ``path``, ``first`` (when given) first, then by name."""
    present = sorted({guide.series for guide in guides_in(path)})
    return list(dict.fromkeys([first, *present] if first else present))


def factor_in_force(guides: GuideSet, date, age_months: int) -> float | None:
    """The factor of the guide of ``guides`` in force on ``date`` at ``age_months``; None when no
    guide of the series is in force that day (the engine then reports an error, no amount)."""
    factors, _ = guides.factors(np.array([date], dtype="datetime64[D]"), [age_months])
    return None if np.isnan(factors[0]) else float(factors[0])


def guide_under_review(guides: GuideSet, review_date: str | dt.date | None = None) -> Guide:
    """The guide in force on ``review_date`` (ISO text or a date), or the series' latest guide
    (the last to take effect) when ``review_date`` is None."""
    if review_date is None:
        return guides.guides[-1]
    if isinstance(review_date, str):
        review_date = dt.date.fromisoformat(review_date)
    return guides.in_force_on(review_date)


def guide_summary(guides: Iterable[Guide]) -> pd.DataFrame:
    """One row per guide: id, series, status, period, interpolation, rows, factor range."""
    rows = [
        {
            "id": guide.id,
            "series": guide.series,
            "status": guide.status,
            "effective_from": guide.effective_from.isoformat(),
            "effective_until": guide.effective_until.isoformat()
            if guide.effective_until
            else "open end",
            "interpolation": guide.interpolation,
            "rows": len(guide.factors),
            "factor_at_55y0m": float(guide.factor(guide.age_months[0])),
        }
        for guide in guides
    ]
    return pd.DataFrame(rows).set_index("id")


def _age_labels(age_months) -> list[str]:
    return [format_age(months) for months in np.asarray(age_months)]


def guide_factor_table(guides: Iterable[Guide], age_months) -> pd.DataFrame:
    """Factors of several guides side by side: one row per age, one column per guide id."""
    age_months = np.asarray(age_months, dtype=np.int64)
    frame = pd.DataFrame({guide.id: guide.factor(age_months) for guide in guides})
    frame.index = pd.Index(_age_labels(age_months), name="age")
    return frame


def relative_problems(error: GuideError, root) -> list[str]:
    """The problems of a :class:`GuideError`, with file paths shown relative to ``root``."""
    root = Path(root)
    lines = []
    for problem in error.problems:
        path = Path(problem.path)
        shown = path.relative_to(root).as_posix() if path.is_relative_to(root) else problem.path
        where = f"{shown}:{problem.line}" if problem.line else shown
        lines.append(f"{where}: {problem.message}")
    return lines


# --------------------------------------------------------------------- a guide against equivalence
def equivalence_table(guide: Guide, bases, age_months) -> pd.DataFrame:
    """The guide's factors next to the actuarially equivalent factors on each basis.

    ``bases`` maps a label to (mortality spec, interest rate), the spec as on the command
    line (:func:`actuarial.mortality.table_from_spec`: ``"sult"``, ``"ilt"``,
    ``"soa:3400,soa:3399:0.5"``); the equivalent factor is
    :func:`actuarial.equivalence.early_retirement_factor` (monthly annuity-due, UDD).
    """
    age_months = np.asarray(age_months, dtype=np.int64)
    columns = {"guide": guide.factor(age_months)}
    for label, (spec, interest) in bases.items():
        columns[label] = early_retirement_factor(
            table_from_spec(spec), age_months / 12, interest, guide.normal_retirement_age
        )
    frame = pd.DataFrame(columns)
    frame.index = pd.Index(_age_labels(age_months), name="age")
    return frame


def implied_interest(guide: Guide, mortality, bounds=(0.0, 0.2)) -> pd.DataFrame:
    """For each life table (``mortality`` maps a label to a spec), the interest rate whose
    equivalent factors fit the guide best (:func:`actuarial.equivalence.fit_interest`), with
    the fit's RMSE and the age where the guide departs most. Where a rate beyond ``bounds``
    fits better, the guide implies no rate searched: ``implied_interest`` is NaN (blank on a
    page), never the bound (the RMSE and deviation are those at the bound)."""
    rows = []
    for label, spec in mortality.items():
        fit = fit_interest(
            table_from_spec(spec),
            guide.age_months,
            guide.factors,
            guide.normal_retirement_age,
            bounds=bounds,
        )
        worst = fit.deviations.iloc[int(np.argmax(np.abs(fit.deviations["difference"])))]
        rows.append(
            {
                "mortality": label,
                "implied_interest": np.nan if fit.beyond else fit.interest,
                "rmse": fit.rmse,
                "max_abs_deviation": fit.max_abs_deviation,
                "worst_age": format_age(worst["age_years"] * 12 + worst["age_months"]),
            }
        )
    return pd.DataFrame(rows).set_index("mortality")


def factor_grid(table: LifeTable, age_months, interest_rates) -> pd.DataFrame:
    """Equivalent factors at each age (rows) and interest rate (columns), in one call."""
    age_months = np.asarray(age_months, dtype=np.int64)
    rates = np.asarray(interest_rates, dtype=float)
    grid = early_retirement_factor(table, age_months[:, None] / 12, rates[None, :])
    return pd.DataFrame(
        grid,
        index=pd.Index(_age_labels(age_months), name="age"),
        columns=pd.Index([f"{100 * rate:g}%" for rate in rates], name="interest"),
    )


def scale_mortality(table: LifeTable, scale: float) -> LifeTable:
    """The table with every q_x multiplied by ``scale`` (capped at 1): a sensitivity basis."""
    if isinstance(scale, bool) or not (isinstance(scale, int | float) and scale > 0):
        raise MortalityError(f"'scale' must be a number > 0 (got {as_given(scale)})")
    return scale_rates(table, scale)[0]


def mortality_sensitivity(table: LifeTable, age_months, interest: float, scales) -> pd.DataFrame:
    """Equivalent factors at each age (rows) with q_x scaled by each of ``scales`` (columns)."""
    age_months = np.asarray(age_months, dtype=np.int64)
    frame = pd.DataFrame(
        {
            f"q x {scale:g}": early_retirement_factor(
                scale_mortality(table, scale), age_months / 12, interest
            )
            for scale in scales
        }
    )
    frame.index = pd.Index(_age_labels(age_months), name="age")
    return frame


# --------------------------------------------------------------------- a membership
def _is_invalid(results: pd.DataFrame) -> pd.Series:
    return results["clause"].astype(str) == ""


def _has_warnings(results: pd.DataFrame) -> pd.Series:
    return results["warnings"].astype(str) != ""


def membership_counts(results: pd.DataFrame) -> pd.Series:
    """Members read, invalid rows (errors), rows with data-quality warnings (evaluated),
    covered and not covered (I-1), from an engine table."""
    invalid = _is_invalid(results)
    per_member = results.loc[~invalid].drop_duplicates("row")
    not_covered = per_member["reason"].astype(str).str.startswith("not covered")
    return pd.Series(
        {
            "members read": int(results["row"].nunique()),
            "invalid rows": int(invalid.sum()),
            "rows with warnings": int(_has_warnings(per_member).sum()),
            "valid members": len(per_member),
            "covered by Chapter 2": int((~not_covered).sum()),
            "not covered (I-1)": int(not_covered.sum()),
        },
        name="count",
    )


def clause_summary(results: pd.DataFrame) -> pd.DataFrame:
    """Per clause: members eligible, monthly and annual totals, mean monthly amount, members
    lifted by the minimum and the minimum's monthly cost, eligible rows with an error (no
    guide) and eligible rows with data-quality warnings (paid, on suspicious data)."""
    rows = results.loc[~_is_invalid(results)].copy()
    rows["clause"] = rows["clause"].astype(str)
    eligible = rows.loc[rows["eligible"]]
    paid = eligible.loc[eligible["error"].astype(str) == ""]
    summary = pd.DataFrame(index=pd.Index(list(CLAUSES), name="clause"))
    summary["eligible"] = eligible.groupby("clause").size()
    summary["monthly_total"] = paid.groupby("clause")["monthly_amount"].sum()
    summary["monthly_mean"] = paid.groupby("clause")["monthly_amount"].mean()
    summary["annual_total"] = paid.groupby("clause")["annual_amount"].sum()
    summary["lifted_by_minimum"] = paid.loc[paid["minimum_topup"] > 0].groupby("clause").size()
    summary["minimum_topup_total"] = paid.groupby("clause")["minimum_topup"].sum()
    summary["errors"] = eligible.loc[eligible["error"].astype(str) != ""].groupby("clause").size()
    summary["warnings"] = eligible.loc[_has_warnings(eligible)].groupby("clause").size()
    counts = ["eligible", "lifted_by_minimum", "errors", "warnings"]
    summary[counts] = summary[counts].fillna(0).astype(np.int64)
    amounts = ["monthly_total", "annual_total", "minimum_topup_total"]
    summary[amounts] = summary[amounts].fillna(0.0).round(2)
    return summary


def lifted_by_minimum(results: pd.DataFrame) -> pd.DataFrame:
    """Clause rows raised by the monthly minimum (I-4): the amount before it, the top-up, paid."""
    lifted = results.loc[results["minimum_topup"] > 0]
    return pd.DataFrame(
        {
            "row": lifted["row"],
            "member_id": lifted["member_id"],
            "clause": lifted["clause"].astype(str),
            "monthly_before_minimum": (lifted["monthly_amount"] - lifted["minimum_topup"]).round(2),
            "minimum_topup": lifted["minimum_topup"],
            "monthly_amount": lifted["monthly_amount"],
        }
    ).reset_index(drop=True)


def invalid_rows(results: pd.DataFrame) -> pd.DataFrame:
    """Rows of the member file that could not be evaluated: row, member_id and the error."""
    invalid = results.loc[_is_invalid(results)]
    return pd.DataFrame(
        {
            "row": invalid["row"],
            "member_id": invalid["member_id"],
            "error": invalid["error"].astype(str),
        }
    ).reset_index(drop=True)


def warnings_by_rule(results: pd.DataFrame) -> pd.DataFrame:
    """Per data-quality warning rule (:data:`actuarial.members.WARNING_RULES`): its field, its
    rule and the members (input rows) it flags; then a last line, "any rule", of the members
    with at least one warning (a member may break several rules)."""
    flagged = results.loc[~_is_invalid(results)].drop_duplicates("row")
    texts = flagged["warnings"].astype(str)
    warned = texts.loc[texts != ""].str.split(WARNING_SEPARATOR)
    members = [
        int(
            warned.map(
                lambda found, rule=rule: any(text.startswith(rule.opening + " ") for text in found)
            ).sum()
        )
        for rule in WARNING_RULES
    ]
    return pd.DataFrame(
        {
            "field": [rule.field for rule in WARNING_RULES] + [""],
            "rule": [rule.rule for rule in WARNING_RULES] + ["any rule"],
            "members": [*members, len(warned)],
        }
    )


def benefits_by_clause(results: pd.DataFrame) -> pd.DataFrame:
    """Monthly amounts of the eligible clause rows, one column per clause (for histograms)."""
    paid = results.loc[results["eligible"] & (results["error"].astype(str) == "")]
    return pd.DataFrame(
        {
            f"inciso ({clause})": paid.loc[
                paid["clause"].astype(str) == clause, "monthly_amount"
            ].reset_index(drop=True)
            for clause in CLAUSES
        }
    )


# --------------------------------------------------------------------- amendments
AMENDMENT_COLUMNS = (
    "parameter",
    "effective_from",
    "value",
    "unit",
    "read on",
    "shipped value",
    "takes effect",
    "file",
)


@takes_paths("law")
def amendment_entries(law) -> pd.DataFrame:
    """The entries ``law``'s amendment files add to the shipped law, file by file in the
    order applied: the parameter, its date and value, the date that selects it (a member's
    separation date or the payment date) and the shipped law's value on that date (empty
    before the shipped law's first date); both values as a page writes them, never rounded
    (:meth:`~actuarial.law.parameters.Parameter.shown`: ``$600.00``, ``1.75%``, ``20``);
    whether it takes effect: ``"yes"``, or ``"never (...)"`` for an entry a later one
    replaces on or before the law's first date, or a later file's entry of the same date,
    as its :class:`LawNote` says (:func:`~actuarial.law.notes.never_in_force`,
    :func:`~actuarial.law.notes.replaced_entries`)."""
    from actuarial.law import PARAMETERS, law_in_force
    from actuarial.law.notes import never_in_force

    law, shipped = law_in_force(law), shipped_law()
    # Each entry a later file's replaced on its date, but a copy's of the same file given
    # again (it is the same entry, listed once: the copy in force).
    replaced = [
        (name, entry, later)
        for name, entry, later in law.replaced
        if (Path(entry.file).name, entry.number) != (Path(later.file).name, later.number)
    ]
    takes_effect = {
        (name, entry): f"never (replaced on or before {law.first_date()}, the law's first date)"
        for name, entry, _ in never_in_force(law)
    }
    takes_effect.update(
        {
            (name, entry): f"never (replaced by {Path(later.file).name}'s entry of the same date)"
            for name, entry, later in replaced
        }
    )
    listed = [(name, entry) for name, entries in law.entries.items() for entry in entries]
    listed += [(name, entry) for name, entry, _ in replaced]
    order = {name: number for number, name in enumerate(PARAMETERS)}
    listed.sort(key=lambda item: (item[1].position, order[item[0]], item[1].effective_from))
    rows = [
        {
            "parameter": name,
            "effective_from": entry.effective_from,
            "value": PARAMETERS[name].shown(entry.value),
            "unit": entry.unit,
            "read on": PARAMETERS[name].selected_by,
            "shipped value": PARAMETERS[name].shown(
                shipped.value_on(name, entry.effective_from)
                if entry.effective_from >= shipped.first_date()
                else None
            ),
            "takes effect": takes_effect.get((name, entry), "yes"),
            "file": Path(entry.file).name,
        }
        for name, entry in listed
        if entry.position > 0  # an amendment's
    ]
    return pd.DataFrame(rows, columns=list(AMENDMENT_COLUMNS))


def law_comparison(before: pd.DataFrame, after: pd.DataFrame) -> pd.DataFrame:
    """Clause rows that change between two results tables of the same members (e.g. the law
    in force and a bill): eligibility, start date or monthly amount. Each under both, and the
    monthly gain (a row without an amount counts 0: not eligible, or no guide factor). A
    row whose annuity only starts later gains 0 a month but is listed: it is paid for less
    time."""
    keys = ["row", "member_id", "clause"]
    shown = ["eligible", "start_date", "monthly_amount", "reason"]

    def plain(table):
        rows = table.loc[~_is_invalid(table), keys + shown].copy()
        for text in ["clause", "member_id", "reason"]:
            rows[text] = rows[text].astype(str)
        return rows

    both = plain(before).merge(plain(after), on=keys, suffixes=("_before", "_after"))
    amounts = [both[f"monthly_amount_{side}"] for side in ("before", "after")]
    both["gain"] = (amounts[1].fillna(0.0) - amounts[0].fillna(0.0)).round(2)
    changed = both["eligible_before"] != both["eligible_after"]
    for name in ["start_date", "monthly_amount"]:
        first, second = both[f"{name}_before"], both[f"{name}_after"]
        changed |= (first != second) & ~(first.isna() & second.isna())
    return both.loc[
        changed,
        [
            *keys,
            "eligible_before",
            "eligible_after",
            "start_date_before",
            "start_date_after",
            "monthly_amount_before",
            "monthly_amount_after",
            "gain",
            "reason_after",
        ],
    ].reset_index(drop=True)


def gains_by_clause(comparison: pd.DataFrame) -> pd.DataFrame:
    """Per clause, of :func:`law_comparison`'s rows: those that gain and those that lose,
    those newly eligible and those no longer eligible, those eligible under both whose
    annuity starts later or earlier, and the monthly total gained (net: a loss counts
    against it). A member eligible for several clauses takes one (I-7): a total over clause
    rows is not what a bill costs."""
    summary = pd.DataFrame(index=pd.Index(list(CLAUSES), name="clause"))
    clause = comparison["clause"]
    before, after = comparison["eligible_before"], comparison["eligible_after"]
    counts = {
        "rows_gaining": comparison["gain"] > 0,
        "rows_losing": comparison["gain"] < 0,
        "newly_eligible": after & ~before,
        "no_longer_eligible": before & ~after,
    }
    start, end = comparison["start_date_before"], comparison["start_date_after"]
    counts["rows_starting_later"] = before & after & (end > start)
    counts["rows_starting_earlier"] = before & after & (end < start)
    for name, rows in counts.items():
        summary[name] = clause[rows].value_counts().reindex(summary.index, fill_value=0)
        summary[name] = summary[name].astype(np.int64)
    gained = comparison.groupby("clause")["gain"].sum()
    summary["monthly_gain_total"] = gained.reindex(summary.index, fill_value=0.0)
    summary["monthly_gain_total"] = summary["monthly_gain_total"].astype(float).round(2)
    return summary
