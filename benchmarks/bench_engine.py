"""1. Engine throughput: ``evaluate_frame`` on a whole generated membership against
``evaluate`` called once per member, per member; and the peak memory of the frame call.

Both run every clause (a)-(d), the guide lookup of inciso (c) and the $500 minimum; the one-
member call also writes its explanation, as it always does. Checked before timing: the
frame's rows equal the one-member results on a sample, and every clause has members on
both sides of eligibility.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
from support import (
    SEED,
    Section,
    Target,
    check,
    count,
    default_guides,
    generated_members,
    gigabytes,
    per_item,
    run_child,
    say,
    seconds,
    time_side_by_side,
    times,
)
from tqdm import tqdm

from actuarial import Member, evaluate, evaluate_frame
from actuarial.engine import ClauseResult
from actuarial.law.clauses import CLAUSES

TARGET_MEMBERS = 1_000_000
# The per-clause fields of the results table (after row, member_id, clause; before readings).
RESULT_FIELDS = tuple(name for name in ClauseResult.__slots__ if name != "clause")


def clause_counts(results: pd.DataFrame) -> dict[str, dict[str, int]]:
    """Per clause: eligible, not eligible, reduced by a guide, lifted by the minimum."""
    counts = {}
    for clause in CLAUSES:
        rows = results[results["clause"] == clause]
        counts[clause] = {
            "eligible": int(rows["eligible"].sum()),
            "not eligible": int((~rows["eligible"]).sum()),
            "reduced by a guide": int(rows["reduction_factor"].notna().sum()),
            "lifted by the minimum": int((rows["minimum_topup"] > 0).sum()),
        }
    return counts


def _member(members: pd.DataFrame, position: int) -> Member:
    row = members.iloc[position]
    return Member(
        member_id=str(row["member_id"]),
        birth_date=row["birth_date"].date(),
        entry_date=row["entry_date"].date(),
        separation_date=row["separation_date"].date(),
        credited_service=float(row["credited_service"]),
        average_compensation=float(row["average_compensation"]),
        group=str(row["group"]),
        refunded=bool(row["refunded"]),
    )


def _plain(value):
    """A frame cell as ``evaluate`` reports it: None for missing, dates as dates."""
    if isinstance(value, str):
        return value or None
    if value is pd.NaT or (isinstance(value, float) and np.isnan(value)):
        return None
    if isinstance(value, pd.Timestamp):
        return value.date()
    return value.item() if isinstance(value, np.generic) else value


def check_one_member_equals_frame(evaluation, results: pd.DataFrame, position: int) -> None:
    rows = results.iloc[4 * position : 4 * position + 4]
    check(
        list(rows["row"]) == [position + 1] * 4 and list(rows["clause"]) == list(CLAUSES),
        f"frame rows of member {position + 1} are not its four clauses",
    )
    for clause_result, (_, row) in zip(evaluation.clauses, rows.iterrows(), strict=True):
        for name in RESULT_FIELDS:
            frame_value, one_value = _plain(row[name]), getattr(clause_result, name)
            check(
                frame_value == one_value,
                f"member {evaluation.member_id} inciso ({clause_result.clause}) {name}: "
                f"frame {frame_value!r} != one-member {one_value!r}",
            )


def run(members_count: int, sample_size: int, repeat: int) -> Section:
    guides = default_guides()
    say(f"engine: generating {members_count:,} members (seed {SEED})")
    members = generated_members(members_count)
    say("engine: evaluate_frame once (warm-up) and checking its results")
    results = evaluate_frame(members, guides)
    check(len(results) == 4 * members_count, "evaluate_frame: not 4 rows per member")
    counts = clause_counts(results)
    for clause, by_kind in counts.items():
        check(
            by_kind["eligible"] > 0 and by_kind["not eligible"] > 0,
            f"inciso ({clause}): the members are all on one side of eligibility",
        )
    check(counts["c"]["reduced by a guide"] > 0, "inciso (c): no guide lookup happened")
    check(
        sum(kind["lifted by the minimum"] for kind in counts.values()) > 0,
        "the $500 minimum never applied",
    )

    rng = np.random.default_rng(SEED)
    positions = np.sort(rng.choice(members_count, size=sample_size, replace=False))
    sample = [_member(members, int(position)) for position in positions]
    say(f"engine: checking evaluate == evaluate_frame on {min(200, sample_size)} members")
    for member, position in zip(sample[:200], positions[:200], strict=False):
        check_one_member_equals_frame(evaluate(member, guides), results, int(position))
    del results

    say(f"engine: timing evaluate_frame x{repeat} ({members_count:,} members)")
    frame_timing = time_side_by_side(
        {"frame": lambda: evaluate_frame(members, guides)}, repeat=repeat, warmup=0
    )["frame"]
    say(f"engine: timing evaluate, one member at a time ({sample_size:,} members)")
    evaluations = []
    wall, cpu = time.perf_counter(), time.process_time()
    for member in tqdm(sample, unit=" members", desc="evaluate", leave=False):
        evaluations.append(evaluate(member, guides))
    one_wall, one_cpu = time.perf_counter() - wall, time.process_time() - cpu
    results = evaluate_frame(members, guides)
    for evaluation, position in zip(evaluations, positions, strict=True):
        check_one_member_equals_frame(evaluation, results, int(position))
    del results

    say(f"engine: peak memory of evaluate_frame ({members_count:,} members, child process)")
    memory = run_child(["engine-memory", str(members_count)]).result

    frame_per_member = frame_timing.cpu / members_count
    one_per_member = one_cpu / sample_size
    speedup = one_per_member / frame_per_member
    section = Section("1. Engine throughput")
    section.tables.append(
        (
            ["call", "members", "wall", "CPU", "per member (wall)", "per member (CPU)"],
            [
                [
                    "evaluate_frame (one call)",
                    count(members_count),
                    seconds(frame_timing.wall),
                    seconds(frame_timing.cpu),
                    per_item(frame_timing.wall / members_count),
                    per_item(frame_per_member),
                ],
                [
                    "evaluate (one call per member)",
                    count(sample_size),
                    seconds(one_wall),
                    seconds(one_cpu),
                    per_item(one_wall / sample_size),
                    per_item(one_per_member),
                ],
            ],
        )
    )
    section.tables.append(
        (
            ["clause", "eligible", "not eligible", "reduced by a guide", "lifted by the minimum"],
            [
                [f"inciso ({clause})", *(count(value) for value in by_kind.values())]
                for clause, by_kind in counts.items()
            ],
        )
    )
    section.tables.append(
        (
            ["peak memory (child process)", "RSS"],
            [
                ["generated input frame alone", gigabytes(memory["peak_with_input"])],
                [
                    f"after evaluate_frame ({count(memory['rows'])} rows)",
                    gigabytes(memory["peak_rss"]),
                ],
            ],
        )
    )
    section.notes += [
        f"evaluate_frame: median of {repeat} calls after a warm-up call; the one-member "
        "figure is one pass over a seeded random sample of the same members.",
        f"Per member, evaluate_frame is {times(speedup)} faster than evaluate (CPU).",
        "Checked before timing: 4 rows per member; every clause has eligible and "
        "ineligible members; inciso (c) used a guide; the minimum lifted some amounts; "
        f"evaluate equals the frame's rows for every member of the sample ({sample_size:,}).",
    ]
    at_target = members_count == TARGET_MEMBERS
    section.targets += [
        Target(
            "evaluate_frame >= 100x faster per member than evaluate",
            times(speedup),
            speedup >= 100,
        ),
        Target(
            "1,000,000 members in well under 2 s of CPU",
            f"{seconds(frame_timing.cpu)} CPU, {seconds(frame_timing.wall)} wall"
            + ("" if at_target else f" ({count(members_count)} members)"),
            frame_timing.cpu < 2.0 if at_target else None,
        ),
        Target(
            "peak memory for 1,000,000 members under 2 GB",
            gigabytes(memory["peak_rss"]) + ("" if at_target else f" ({count(members_count)})"),
            memory["peak_rss"] < 2e9 if at_target else None,
        ),
    ]
    return section
