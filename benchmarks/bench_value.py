"""6. Valuation: present values of every clause for a membership, against the engine alone
and against actuarialmath one member at a time.

- ``value_frame`` on 1,000,000 generated members (four clauses, generational Pub-2010 with
  MP-2020, employees below 50 and retirees from 50, female/male blended 50/50 as the
  members carry no sex, monthly, one basis, no sensitivities) against ``evaluate_frame``
  alone on the same members: target within 5x.
- The same present values on the SULT without improvement at 5%, computed by actuarialmath
  (its own SULT, UDD between integer ages) one member at a time with its fastest public
  calls: its table offers no m-thly annuity at a fractional age, so each monthly payment is
  ``l_r(x, r) / l_r(x, r0) * v_t(t)``, summed, with the amount of the member's schedule in
  force on that payment's date. Ours: ``value_results`` on the evaluated members (the
  present values from the same schedules, all members in one call). Target: >= 1,000x per
  member, agreeing to 1e-9 relative on every sampled row. ``value_frame`` (evaluation and
  values together) is shown beside it.
"""

from __future__ import annotations

import calendar
import datetime as dt

import numpy as np
from actuarialmath import SULT
from support import (
    Section,
    Target,
    check,
    count,
    default_guides,
    generated_members,
    per_item,
    say,
    seconds,
    time_side_by_side,
    times,
)

from actuarial import evaluate_frame
from actuarial.engine import evaluate_members
from actuarial.law.clauses import CLAUSES
from actuarial.members import parse_members
from actuarial.valuation import Basis, schedule_steps, value_frame, value_results

GENERATIONAL = "soa:3397+soa:3399@50/soa:3398+soa:3400@50"
INTEREST = 0.045
SULT_INTEREST = 0.05
RELATIVE_TOLERANCE = 1e-9
SULT_LAST_AGE = 120  # the SULT ends with q_120 = 1: no one is alive at 121


def _date(value) -> dt.date:
    return value.astype("datetime64[D]").item()


def _completed_months(birth: dt.date, on: dt.date) -> int:
    last = calendar.monthrange(on.year, on.month)[1]
    return (on.year - birth.year) * 12 + on.month - birth.month - (on.day < min(birth.day, last))


def _plus_months(start: dt.date, k: int) -> dt.date:
    index = start.year * 12 + start.month - 1 + k
    year, month = divmod(index, 12)
    return dt.date(year, month + 1, min(start.day, calendar.monthrange(year, month + 1)[1]))


def reference_rows(results, members_index):
    """(member, clause, birth, separation, start, steps) of each eligible row to value."""
    dates, amounts = schedule_steps(results)
    rows = []
    for member in members_index:
        birth = _date(results.members.birth_date[member])
        separation = _date(results.members.separation_date[member])
        for column in range(len(CLAUSES)):
            start = results.start_date[member, column]
            if np.isnat(start) or np.isnan(amounts[member, column, 0]):
                continue
            present = ~np.isnat(dates[member, column])
            steps = [
                (_date(day), float(value))
                for day, value in zip(
                    dates[member, column][present], amounts[member, column][present], strict=True
                )
            ]
            rows.append((member, column, birth, separation, _date(start), steps))
    return rows


def actuarialmath_present_value(life, birth, separation, start, steps) -> float:
    """One row: every monthly payment through actuarialmath's l_r and v_t."""
    at_separation = _completed_months(birth, separation)
    deferral = _completed_months(birth, start) - at_separation
    whole, months = divmod(at_separation, 12)
    alive_at_separation = life.l_r(whole, r=months / 12)
    total, k = 0.0, 0
    while whole + (months + deferral + k) / 12 < SULT_LAST_AGE + 1:
        paid_on = _plus_months(start, k)
        amount = [value for day, value in steps if day <= paid_on][-1]
        alive = life.l_r(whole, r=(months + deferral + k) / 12)
        total += amount * life.interest.v_t((deferral + k) / 12) * alive / alive_at_separation
        k += 1
    return total


def run(members_count: int, reference_members: int, repeat: int) -> Section:
    guides = default_guides()
    say(f"valuation: generating {count(members_count)} members")
    members = generated_members(members_count)
    generational = Basis(GENERATIONAL, INTEREST, improvement="mp-2020")
    sult_basis = Basis("sult", SULT_INTEREST)

    say("valuation: checking value_frame against evaluate_frame and actuarialmath")
    values = value_frame(members, guides, generational)
    evaluated = evaluate_frame(members, guides)
    same = [name for name in evaluated.columns if name != "error"]
    check(values[same].equals(evaluated[same]), "value_frame must keep the batch's rows")
    eligible = values["eligible"].to_numpy()
    valued = values["pv_at_separation"].notna().to_numpy()
    check((valued == eligible).all(), "every eligible row must be valued on the joined basis")
    parsed = parse_members(members)
    results = evaluate_members(parsed, guides)
    sult_values, _ = value_results(results, sult_basis)
    rng = np.random.default_rng(2013)
    sample = np.sort(rng.choice(members_count, reference_members, replace=False))
    rows = reference_rows(results, sample)
    life = SULT(i=SULT_INTEREST, udd=True)
    largest = 0.0
    for member, column, birth, separation, start, steps in rows:
        theirs = actuarialmath_present_value(life, birth, separation, start, steps)
        largest = max(largest, abs(sult_values[member, column, 0] / theirs - 1))
    check(largest <= RELATIVE_TOLERANCE, f"actuarialmath differs by {largest:.2e} relative")

    say("valuation: timing")
    frame_timing = time_side_by_side(
        {
            "evaluate_frame": lambda: evaluate_frame(members, guides),
            "value_frame": lambda: value_frame(members, guides, generational),
        },
        repeat=repeat,
    )
    ours_timing = time_side_by_side(
        {
            "value_results": lambda: value_results(results, sult_basis),
            "value_frame": lambda: value_frame(members, guides, sult_basis),
        },
        repeat=repeat,
    )
    reference_timing = time_side_by_side(
        {"actuarialmath": lambda: [actuarialmath_present_value(life, *row[2:]) for row in rows]},
        repeat=1,
    )
    ratio = frame_timing["value_frame"].wall / frame_timing["evaluate_frame"].wall
    ours_per_member = ours_timing["value_results"].wall / members_count
    theirs_per_member = reference_timing["actuarialmath"].wall / reference_members
    speedup = theirs_per_member / ours_per_member

    section = Section("6. Valuation: present values of every clause (monthly, for life)")
    measured = [
        ("evaluate_frame (engine alone)", members_count, frame_timing["evaluate_frame"]),
        (
            "value_frame, Pub-2010 + MP-2020 generational",
            members_count,
            frame_timing["value_frame"],
        ),
        ("value_frame, SULT 5%", members_count, ours_timing["value_frame"]),
        (
            "value_results (present values only), SULT 5%",
            members_count,
            ours_timing["value_results"],
        ),
        (
            "actuarialmath, one member at a time, SULT 5%",
            reference_members,
            reference_timing["actuarialmath"],
        ),
    ]
    section.tables.append(
        (
            ["step", "members", "wall", "per member", "CPU"],
            [
                [label, count(n), seconds(t.wall), per_item(t.wall / n), seconds(t.cpu)]
                for label, n, t in measured
            ],
        )
    )
    with_frame = theirs_per_member / (ours_timing["value_frame"].wall / members_count)
    section.notes += [
        f"{count(int(eligible.sum()))} eligible rows valued on the generational basis "
        f"({count(int(values['pv_at_separation'].notna().sum()))} with a value).",
        f"actuarialmath: {count(len(rows))} rows of {count(reference_members)} sampled members, "
        f"largest relative difference from ours {largest:.1e}.",
        f"value_frame / evaluate_frame: {times(ratio)}; actuarialmath per member / ours "
        f"(value_results) per member: {times(speedup)}; against value_frame (evaluation "
        f"included): {times(with_frame)}.",
    ]
    full = members_count >= 1_000_000
    section.targets += [
        Target(
            "valuing 10^6 members (generational Pub-2010 + MP-2020) within 5x of evaluate_frame",
            times(ratio),
            (ratio <= 5) if full else None,
        ),
        Target(
            ">= 1,000x actuarialmath per member, agreeing to 1e-9 relative (SULT 5%)",
            f"{times(speedup)}, {largest:.1e}",
            (speedup >= 1000 and largest <= RELATIVE_TOLERANCE) if full else None,
        ),
    ]
    return section
