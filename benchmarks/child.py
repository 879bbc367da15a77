"""Steps run in a new process, so that their own peak memory is known.

    python benchmarks/child.py engine-memory COUNT
    python benchmarks/child.py batch MEMBERS OUT [--progress]
    python benchmarks/child.py id-check MEMBERS      # run_batch's first pass alone
    python benchmarks/child.py cli ARGUMENTS...      # the ``actuarial`` command line

Each step ends by printing one line of JSON on stdout, with ``peak_rss`` in bytes: the
process's own high-water mark (VmHWM). ``ru_maxrss`` would not do: at exec, Linux carries
the parent's peak over to the child, and the parent holds the benchmark's data.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path


def own_peak_rss() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024  # kB
    raise RuntimeError("no VmHWM in /proc/self/status (Linux only)")


def engine_memory(count: int) -> dict:
    """Peak RSS with the generated input alone, then after ``evaluate_frame`` on it."""
    from support import generated_members

    from actuarial import evaluate_frame, load_guides
    from actuarial.guides import DEFAULT_SERIES, SHIPPED_GUIDES

    guides = load_guides(SHIPPED_GUIDES, DEFAULT_SERIES)
    members = generated_members(count)
    with_input = own_peak_rss()
    results = evaluate_frame(members, guides)
    return {"rows": len(results), "peak_with_input": with_input, "peak_rss": own_peak_rss()}


def batch(members: str, out: str, progress: bool) -> dict:
    """``run_batch`` timed inside the process (imports and guide loading excluded)."""
    from actuarial import load_guides
    from actuarial.batch import run_batch
    from actuarial.guides import DEFAULT_SERIES, SHIPPED_GUIDES

    guides = load_guides(SHIPPED_GUIDES, DEFAULT_SERIES)
    wall, cpu = time.perf_counter(), time.process_time()
    summary = run_batch(members, guides, out, progress=progress)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return {
        "wall": wall,
        "cpu": cpu,
        "members": summary.members,
        "rows": summary.output_rows,
        "peak_rss": own_peak_rss(),
    }


def id_check(members: str) -> dict:
    """run_batch's first pass alone: the duplicate member ids over the whole file."""
    from actuarial.batch import DEFAULT_CHUNK_ROWS, _duplicated_in_file  # the batch's own

    path = Path(members)
    duplicated = _duplicated_in_file(path, path.suffix.lstrip("."), DEFAULT_CHUNK_ROWS)
    return {"members": len(duplicated), "peak_rss": own_peak_rss()}


def command_line(arguments: list[str]) -> dict:
    """The ``actuarial`` command, as its console script runs it (``actuarial.cli:main``)."""
    from actuarial.cli import cli

    try:
        cli.main(arguments, prog_name="actuarial")
    except SystemExit as exit_status:
        if exit_status.code not in (0, None):
            raise
    return {"peak_rss": own_peak_rss()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    steps = parser.add_subparsers(dest="step", required=True)
    memory = steps.add_parser("engine-memory")
    memory.add_argument("count", type=int)
    batch_step = steps.add_parser("batch")
    batch_step.add_argument("members")
    batch_step.add_argument("out")
    batch_step.add_argument("--progress", action="store_true")
    steps.add_parser("id-check").add_argument("members")
    cli_step = steps.add_parser("cli")
    cli_step.add_argument("arguments", nargs=argparse.REMAINDER)
    arguments = parser.parse_args()
    if arguments.step == "engine-memory":
        result = engine_memory(arguments.count)
    elif arguments.step == "batch":
        result = batch(arguments.members, arguments.out, arguments.progress)
    elif arguments.step == "id-check":
        result = id_check(arguments.members)
    else:
        result = command_line(arguments.arguments)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
