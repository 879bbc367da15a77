"""Where ``evaluate_frame`` and ``evaluate`` spend their time and memory, stage by stage.

    python benchmarks/profile_engine.py                   # 1,000,000 members, 300 one-member calls
    python benchmarks/profile_engine.py --members 100000 --top 15
    python benchmarks/profile_engine.py --workers 1          # each stage without the others

Prints Markdown: the CPU time of each stage of one real ``evaluate_frame`` call (the ids,
the table's columns, per chunk the parse, the clauses, the result columns and the write,
then the pandas table; each timed in the thread that runs it), the call's wall and CPU
time and the memory it adds; the floor of the result table; then cProfile's heaviest
functions for the frame call and for ``evaluate``, and ``evaluate``'s stages per call.
What the figures mean: README.md, "Where the time and memory go".
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import datetime as dt
import functools
import io
import pstats
import threading
import time

import numpy as np
import pandas as pd
from child import own_peak_rss, own_rss, settle_memory
from support import default_guides, generated_members, markdown_table

from actuarial import engine, evaluate, evaluate_frame
from actuarial.engine import MemberResults, evaluate_members, member_clauses
from actuarial.explain import explain
from actuarial.members import (
    member_frame,
    parse_member,
    parse_members,
)

AS_OF = dt.date(2026, 7, 1)


# The stages of evaluate_frame: where it looks each up (the engine module or a class of it),
# the name, and what the stage does.
_WRITER = engine.TableWriter
STAGES = (
    (engine, "frame_id_text", "ids as text (frame_id_text)"),
    (engine, "code_frame_ids", "ids coded, repeated ids found (code_frame_ids; a thread)"),
    (_WRITER, "allocate", "the table's columns allocated (TableWriter.allocate; a thread)"),
    (engine, "parse_members", "per chunk: parse and validate (parse_members)"),
    (engine, "evaluate_members", "per chunk: clauses, guide, minimum (evaluate_members)"),
    (MemberResults, "columns", "per chunk: result columns, schedule text"),
    (_WRITER, "write", "per chunk: written into the table (TableWriter.write)"),
    (_WRITER, "table", "the pandas table (TableWriter.table)"),
)


@contextlib.contextmanager
def timed_stages(spent: dict[str, float]):
    """Within the block, each of :data:`STAGES` adds the CPU time of the thread that runs it
    to ``spent``: the real ``evaluate_frame`` timed, not a copy of its steps."""
    adding = threading.Lock()  # two chunk threads may end the same stage at once
    originals = []
    for owner, attribute, label in STAGES:
        original = getattr(owner, attribute)

        @functools.wraps(original)
        def stage(*arguments, _original=original, _label=label, **options):
            cpu = time.thread_time()
            try:
                return _original(*arguments, **options)
            finally:
                used = time.thread_time() - cpu
                with adding:
                    spent[_label] = spent.get(_label, 0.0) + used

        originals.append((owner, attribute, original))
        setattr(owner, attribute, stage)
    try:
        yield spent
    finally:
        for owner, attribute, original in originals:
            setattr(owner, attribute, original)


def staged(members_count: int, guides) -> list[list[str]]:
    """The CPU time of each stage of ``evaluate_frame`` (:data:`STAGES`) over one call on
    ``members_count`` members, its threads included, and the call's wall and CPU time and
    the memory it adds."""
    frame = generated_members(members_count)
    evaluate_frame(frame.head(1000), guides, AS_OF)  # the first call's imports and caches
    settle_memory()
    before = own_rss()
    with timed_stages({}) as spent:
        wall, cpu = time.perf_counter(), time.process_time()
        evaluate_frame(frame, guides, AS_OF)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    rows = [[label, f"{spent.get(label, 0.0):.3f}"] for *_, label in STAGES]
    rows.append(
        [
            f"the whole call ({wall:.3f} s wall; chunks on {engine.WORKERS} thread(s); "
            f"{(own_peak_rss() - before) / 2**20:,.0f} MiB added at the peak)",
            f"{cpu:.3f}",
        ]
    )
    return rows


def output_floor(members_count: int) -> list[str]:
    """The result table alone: 4 rows a member, the 13 columns in the smallest dtypes pandas
    keeps (int32 rows, member_id as codes into the ids, int8 codes), each written once from
    per-member arrays made beforehand. What evaluate_frame cannot go below while it returns
    this table: its seconds and the memory it adds."""
    rows = 4 * members_count
    rng = np.random.default_rng(0)
    amounts = [rng.random(members_count) * 3000 for _ in range(4)]
    dates = np.datetime64("2000-01-01") + rng.integers(0, 9000, members_count)
    ids = pd.Index([f"M-{number}" for number in range(1, members_count + 1)], dtype=object)
    texts = pd.Index([f"reason {number}" for number in range(40)], dtype=object)

    def interleaved(dtype, per_clause):
        column = np.empty(rows, dtype=dtype)
        for clause in range(4):
            column[clause::4] = per_clause(clause)
        return column

    def coded(codes, categories):
        return pd.Categorical.from_codes(codes, categories=categories)

    settle_memory()
    before = own_rss()
    wall, cpu = time.perf_counter(), time.process_time()
    columns = {
        "row": np.repeat(np.arange(1, members_count + 1, dtype=np.int32), 4),
        "member_id": coded(np.repeat(np.arange(members_count, dtype=np.int32), 4), ids),
        "clause": coded(np.tile(np.arange(4, dtype=np.int8), members_count), list("abcd")),
        "eligible": interleaved(bool, lambda clause: amounts[clause] > 1500),
        "reason": coded(
            interleaved(np.int8, lambda clause: 2 * clause + (amounts[clause] > 1500)), texts
        ),
        "start_date": interleaved("datetime64[s]", lambda clause: dates),
    }
    for name in ("reduction_factor", "annual_amount", "monthly_amount", "minimum_topup"):
        columns[name] = interleaved(np.float64, lambda clause: amounts[clause])
    for name in ("guide_id", "error", "readings"):
        columns[name] = coded(np.zeros(rows, dtype=np.int8), ["one text"])
    table = pd.DataFrame(columns, copy=False)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    peak = own_peak_rss()
    settle_memory()
    return [
        f"the result table alone ({len(table):,} rows, smallest dtypes)",
        f"{wall:.3f}",
        f"{cpu:.3f}",
        f"{(peak - before) / 2**20:,.0f}",
        f"{(own_rss() - before) / 2**20:,.0f}",
    ]


def top_functions(profiler: cProfile.Profile, top: int, sort: str) -> str:
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.strip_dirs().sort_stats(sort).print_stats(top)
    lines = out.getvalue().splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().startswith("ncalls"))
    return "\n".join(lines[start : start + top + 1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--members", type=int, default=1_000_000)
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--top", type=int, default=20)
    parser.add_argument(
        "--workers",
        type=int,
        default=engine.WORKERS,
        help="threads evaluating chunks (1: each stage's CPU time without the other's)",
    )
    arguments = parser.parse_args()
    engine.WORKERS = arguments.workers
    guides = default_guides()

    print(f"## evaluate_frame stages, {arguments.members:,} members\n")
    print(markdown_table(["stage", "CPU s"], staged(arguments.members, guides)), end="\n\n")
    header = ["the floor", "wall s", "CPU s", "added at peak, MiB", "kept after, MiB"]
    print(markdown_table(header, [output_floor(arguments.members)]), end="\n\n")

    from actuarial import evaluate_frame

    frame = generated_members(arguments.members)
    evaluate_frame(frame.iloc[:1000], guides, as_of=AS_OF)
    engine.WORKERS = 1  # cProfile sees one thread: the chunks in the main one
    profiler = cProfile.Profile()
    profiler.runcall(evaluate_frame, frame, guides, as_of=AS_OF)
    print(f"## evaluate_frame, cProfile, own time ({arguments.members:,} members, one thread)\n")
    print("```\n" + top_functions(profiler, arguments.top, "tottime") + "\n```\n")

    members = [
        {
            "member_id": row.member_id,
            "birth_date": row.birth_date.date(),
            "entry_date": row.entry_date.date(),
            "separation_date": row.separation_date.date(),
            "credited_service": row.credited_service,
            "average_compensation": row.average_compensation,
            "group": row.group,
            "refunded": bool(row.refunded),
        }
        for row in frame.iloc[: arguments.calls].itertuples(index=False)
    ]
    for member in members[:20]:
        evaluate(member, guides, as_of=AS_OF)
    # CPU time (time.process_time): on a shared machine, wall time per call is mostly waiting.
    # The stages of evaluate, one member after the other as evaluate runs them; then, for
    # comparison, the frame parser on the member's one-row frame (what evaluate used before).
    stages = {
        "parse_member (plain Python, no frame)": lambda state: parse_member(
            state["member"], source="member"
        ),
        "evaluate_members": lambda state: evaluate_members(
            state["parse_member (plain Python, no frame)"], guides, AS_OF
        ),
        "member_clauses (a ClauseResult's values, from the arrays)": lambda state: member_clauses(
            state["evaluate_members"], 0
        ),
        "explain": lambda state: explain(
            state["evaluate_members"],
            0,
            "en",
            state["member_clauses (a ClauseResult's values, from the arrays)"],
        ),
    }
    compared = {
        "for comparison: member_frame + parse_members (one-row frame)": lambda state: parse_members(
            member_frame(state["member"]), source="member"
        ),
    }
    stage_seconds = dict.fromkeys([*stages, *compared], 0.0)
    for run in (stages, compared):
        for member in members:
            state = {"member": member}
            for name, stage in run.items():
                started = time.process_time()
                state[name] = stage(state)
                stage_seconds[name] += time.process_time() - started
    staged_total = sum(stage_seconds[name] for name in stages)
    whole = time.process_time()
    for member in members:
        evaluate(member, guides, as_of=AS_OF)
    whole = time.process_time() - whole
    rows = [[name, f"{1e3 * spent / len(members):.3f}"] for name, spent in stage_seconds.items()]
    rows.insert(
        len(stages),
        [
            "the rest of evaluate (ClauseResult, Evaluation)",
            f"{1e3 * (whole - staged_total) / len(members):.3f}",
        ],
    )
    rows.insert(len(stages) + 1, ["evaluate, whole", f"{1e3 * whole / len(members):.3f}"])
    print(f"## evaluate, one member per call ({len(members)} calls)\n")
    print(markdown_table(["stage", "CPU ms per call"], rows), end="\n\n")
    profiler = cProfile.Profile()
    for member in members:
        profiler.runcall(evaluate, member, guides, as_of=AS_OF)
    print("## evaluate, cProfile, cumulative time\n")
    print("```\n" + top_functions(profiler, arguments.top, "cumulative") + "\n```")


if __name__ == "__main__":
    main()
