"""Run the benchmarks, print their tables and write them to benchmarks/RESULTS.md.

    python benchmarks/run.py             # full sizes (make bench), writes RESULTS.md
    python benchmarks/run.py --quick     # up to 10^5 members (make bench-quick)
    python benchmarks/run.py --only grids --only engine

See benchmarks/README.md for what each benchmark measures. Figures that are compared are
measured side by side in one run; absolute times depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

# Run as a script: its folder is on sys.path, so the benchmark modules import by name.
import bench_batch
import bench_engine
import bench_grids
import bench_openfisca
import bench_scaling
import bench_stress
import bench_value
from support import (
    BENCHMARKS,
    LOAD_AVERAGE,
    CheckFailed,
    Section,
    machine,
    markdown_table,
    say,
    text_table,
)

FULL = {
    "engine": {"members_count": 1_000_000, "sample_size": 2_000, "repeat": 5},
    "batch": {"members_count": 1_000_000, "repeat": 5, "pandas_to_csv": True},
    "grids": {"repeat": 7, "reference_rates": 10},
    "scaling": {
        "sizes": (10_000, 100_000, 1_000_000, 10_000_000),
        "frame_up_to": 1_000_000,
        "repeat": 3,
    },
    "stress": {"members_count": 1_000_000},
    "openfisca": {
        "sizes": (10_000, 100_000, 1_000_000),
        "repeat": 3,
        "one_member_count": 1_000,
        "batch_members": 1_000_000,
    },
    "value": {"members_count": 1_000_000, "reference_members": 300, "repeat": 3},
}
QUICK = {
    "engine": {"members_count": 100_000, "sample_size": 300, "repeat": 3},
    "batch": {"members_count": 100_000, "repeat": 3, "pandas_to_csv": False},
    "grids": {"repeat": 3, "reference_rates": 3},
    "scaling": {"sizes": (1_000, 10_000, 100_000), "frame_up_to": 100_000, "repeat": 3},
    "stress": {"members_count": 100_000},
    "openfisca": {
        "sizes": (10_000, 100_000),
        "repeat": 3,
        "one_member_count": 200,
        "batch_members": 100_000,
    },
    "value": {"members_count": 100_000, "reference_members": 50, "repeat": 2},
}
BENCHMARKS_BY_NAME = {
    "engine": bench_engine.run,
    "batch": bench_batch.run,
    "grids": bench_grids.run,
    "scaling": bench_scaling.run,
    "stress": bench_stress.run,
    "openfisca": bench_openfisca.run,
    "value": bench_value.run,
}
VERDICT = {True: "met", False: "NOT met", None: "not assessed at these sizes"}


def show(section: Section) -> str:
    parts = [section.title, "=" * len(section.title)]
    for header, rows in section.tables:
        parts += [text_table(header, rows), ""]
    parts += [f"- {note}" for note in section.notes]
    return "\n".join(parts)


def targets_table(sections: list[Section]) -> tuple[list[str], list[list[str]]]:
    rows = [
        [target.goal, target.measured, VERDICT[target.met]]
        for section in sections
        for target in section.targets
    ]
    return ["target", "measured", ""], rows


def results_markdown(
    sections: list[Section], about: dict[str, str], command: str, minutes: float
) -> str:
    lines = [
        "# Benchmark results",
        "",
        f"Written by `{command}` in {minutes:.1f} minutes. What each benchmark measures: "
        "[README.md](README.md). Ratios are measured side by side in one run; absolute "
        "times depend on the machine and on its load.",
        "",
    ]
    load = float(about[LOAD_AVERAGE].split(",")[0])
    cores = len(os.sched_getaffinity(0))
    if load >= cores:
        lines += [
            f"**The machine was shared during this run** (load average {load:.1f} at the "
            f"start, on {cores} cores): wall times include waiting for a core and the "
            "sub-millisecond timings suffer most; CPU times and the ratios measured side "
            "by side are steadier.",
            "",
        ]
    lines += [
        "## Machine",
        "",
        markdown_table(["", ""], [[key, value] for key, value in about.items()]),
        "",
        "## Targets",
        "",
        markdown_table(*targets_table(sections)),
    ]
    for section in sections:
        lines += ["", f"## {section.title}", ""]
        for header, rows in section.tables:
            lines += [markdown_table(header, rows), ""]
        lines += [f"- {note}" for note in section.notes]
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes (up to 10^5)")
    parser.add_argument(
        "--only", action="append", choices=sorted(BENCHMARKS_BY_NAME), help="run only these"
    )
    parser.add_argument(
        "--write-results",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="write RESULTS.md (default: yes for a full run of every benchmark)",
    )
    parser.add_argument(
        "--strict", action="store_true", help="exit with status 1 when a target is not met"
    )
    arguments = parser.parse_args()
    chosen = arguments.only or list(BENCHMARKS_BY_NAME)
    sizes = QUICK if arguments.quick else FULL
    write = arguments.write_results
    if write is None:
        write = not arguments.quick and arguments.only is None

    about = machine()
    print("\n".join(f"{key}: {value}" for key, value in about.items()), end="\n\n")
    started = time.perf_counter()
    sections = []
    try:
        for name in chosen:
            section = BENCHMARKS_BY_NAME[name](**sizes[name])
            print(show(section), end="\n\n", flush=True)
            sections.append(section)
    except CheckFailed as failure:
        print(f"benchmark check failed: {failure}", file=sys.stderr)
        return 1
    minutes = (time.perf_counter() - started) / 60
    print(text_table(*targets_table(sections)))
    if write:
        command = "python benchmarks/run.py " + " ".join(sys.argv[1:])
        results = BENCHMARKS / "RESULTS.md"
        results.write_text(results_markdown(sections, about, command.strip(), minutes))
        say(f"written: {results}")
    missed = [target for section in sections for target in section.targets if target.met is False]
    for target in missed:  # last, where it is seen: a target lost is never silent
        print(f"target NOT met: {target.goal} ({target.measured})", file=sys.stderr)
    return 1 if missed and arguments.strict else 0


if __name__ == "__main__":
    sys.exit(main())
