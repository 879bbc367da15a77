"""Where ``evaluate_frame`` and ``evaluate`` spend their time and memory, stage by stage.

    python benchmarks/profile_engine.py                   # 1,000,000 members, 300 one-member calls
    python benchmarks/profile_engine.py --members 100000 --top 15

Prints Markdown: the stages of ``evaluate_frame`` (parse and validate, the clauses, the
result columns, the pandas table) with the wall time and the memory each adds at its peak
(resident memory, after handing freed memory back to the system before each stage), then
cProfile's heaviest functions for the frame call and for ``evaluate``. What the figures
mean and what to change: README.md, "Where the time and memory go".
"""

from __future__ import annotations

import argparse
import cProfile
import datetime as dt
import io
import pstats
import time

from child import own_peak_rss, own_rss, settle_memory
from support import generated_members, markdown_table

from actuarial import evaluate, load_guides
from actuarial.engine import evaluate_members
from actuarial.guides import DEFAULT_SERIES, SHIPPED_GUIDES
from actuarial.members import member_frame, parse_members

AS_OF = dt.date(2026, 7, 1)


def staged(members_count: int, guides) -> list[list[str]]:
    """Each stage of evaluate_frame alone: seconds, and MiB added at its peak and kept."""
    frame = generated_members(members_count)
    rows = []
    state: dict = {}
    stages = {
        "parse and validate (parse_members)": lambda: parse_members(frame),
        "the clauses, guide, minimum (evaluate_members)": lambda: evaluate_members(
            state["parse and validate (parse_members)"], guides, AS_OF
        ),
        "result columns (MemberResults.columns)": lambda: state[
            "the clauses, guide, minimum (evaluate_members)"
        ].columns(),
        "pandas table (MemberResults.table, columns included)": lambda: state[
            "the clauses, guide, minimum (evaluate_members)"
        ].table(),
    }
    for name, stage in stages.items():
        settle_memory()
        before = own_rss()
        wall, cpu = time.perf_counter(), time.process_time()
        state[name] = stage()
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        settle_memory()
        kept = own_rss() - before
        rows.append(
            [
                name,
                f"{wall:.3f}",
                f"{cpu:.3f}",
                f"{(own_peak_rss() - before) / 2**20:,.0f}",
                f"{kept / 2**20:,.0f}",
            ]
        )
    return rows


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
    arguments = parser.parse_args()
    guides = load_guides(SHIPPED_GUIDES, DEFAULT_SERIES)

    print(f"## evaluate_frame stages, {arguments.members:,} members\n")
    header = ["stage", "wall s", "CPU s", "added at peak, MiB", "kept after, MiB"]
    print(markdown_table(header, staged(arguments.members, guides)), end="\n\n")

    from actuarial import evaluate_frame

    frame = generated_members(arguments.members)
    evaluate_frame(frame.iloc[:1000], guides, as_of=AS_OF)
    profiler = cProfile.Profile()
    profiler.runcall(evaluate_frame, frame, guides, as_of=AS_OF)
    print(f"## evaluate_frame, cProfile, own time ({arguments.members:,} members)\n")
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
    stage_seconds = {"member_frame": 0.0, "parse_members": 0.0, "evaluate_members": 0.0}
    for member in members:
        started = time.process_time()
        one = member_frame(member)
        stage_seconds["member_frame"] += time.process_time() - started
        started = time.process_time()
        parsed = parse_members(one, source="member")
        stage_seconds["parse_members"] += time.process_time() - started
        started = time.process_time()
        evaluate_members(parsed, guides, AS_OF)
        stage_seconds["evaluate_members"] += time.process_time() - started
    staged_total = sum(stage_seconds.values())
    whole = time.process_time()
    for member in members:
        evaluate(member, guides, as_of=AS_OF)
    whole = time.process_time() - whole
    rows = [[name, f"{1e3 * spent / len(members):.2f}"] for name, spent in stage_seconds.items()]
    rows.append(
        [
            "explanation and results (the rest of evaluate)",
            f"{1e3 * (whole - staged_total) / len(members):.2f}",
        ]
    )
    rows.append(["evaluate, whole", f"{1e3 * whole / len(members):.2f}"])
    print(f"## evaluate, one member per call ({len(members)} calls)\n")
    print(markdown_table(["stage", "CPU ms per call"], rows), end="\n\n")
    profiler = cProfile.Profile()
    for member in members:
        profiler.runcall(evaluate, member, guides, as_of=AS_OF)
    print("## evaluate, cProfile, cumulative time\n")
    print("```\n" + top_functions(profiler, arguments.top, "cumulative") + "\n```")


if __name__ == "__main__":
    main()
