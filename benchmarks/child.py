"""Steps run in a new process, so that their own peak memory is known.

    python benchmarks/child.py engine-memory COUNT
    python benchmarks/child.py batch MEMBERS OUT [--progress]
    python benchmarks/child.py id-check MEMBERS      # run_batch's first pass alone
    python benchmarks/child.py cli ARGUMENTS...      # the ``actuarial`` command line
    python benchmarks/child.py peer ENGINE COUNT     # one call of actuarial or OpenFisca
    python benchmarks/child.py peer ENGINE COUNT --backed MIB  # the same, on backed memory
    python benchmarks/child.py peer-one ENGINE COUNT # one member per call, COUNT calls
    python benchmarks/child.py batch-floor MEMBERS_CSV RESULT_ARROW OUT

Each step ends by printing one line of JSON on stdout, with ``peak_rss`` in bytes: the
process's own high-water mark (VmHWM). ``ru_maxrss`` would not do: at exec, Linux carries
the parent's peak over to the child, and the parent holds the benchmark's data.
"""

from __future__ import annotations

import argparse
import gc
import json
import mmap
import resource
import statistics
import time
from pathlib import Path


def _status_bytes(field: str) -> int:
    """A memory line of /proc/self/status (given in kB) in bytes."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) * 1024  # kB
    raise RuntimeError(f"no {field} in /proc/self/status (Linux only)")


def own_peak_rss() -> int:
    return _status_bytes("VmHWM")


def own_rss() -> int:
    return _status_bytes("VmRSS")


def settle_memory() -> None:
    """Return freed memory to the system, then restart the high-water mark from here.

    Without this, memory freed while the input was prepared stays resident in the
    allocators' free lists and a call reusing it would seem to add nothing: glibc's
    ``malloc_trim`` and Arrow's ``release_unused`` hand it back, and ``clear_refs`` 5
    resets the high-water mark (VmHWM) to the current RSS (Linux).
    """
    import ctypes

    import pyarrow

    gc.collect()
    pyarrow.default_memory_pool().release_unused()
    ctypes.CDLL("libc.so.6").malloc_trim(0)
    Path("/proc/self/clear_refs").write_text("5")


def engine_memory(count: int) -> dict:
    """Peak RSS with the generated input alone, then after ``evaluate_frame`` on it."""
    from support import default_guides, generated_members

    from actuarial import evaluate_frame

    guides = default_guides()
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
    from actuarial.member_files import duplicated_in_file, file_format  # the batch's own

    path = Path(members)
    duplicated = duplicated_in_file(path, file_format(path, "a member file"))
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


def peer(engine: str, count: int, backed: int = 0) -> dict:
    """One timed call of ``engine`` (actuarial or openfisca) on ``count`` typed members.

    A warm-up call on a few members first; then the high-water mark is reset, so that the
    peak is the call's, and the memory it added is measured beyond the loaded input.
    ``backed``: MiB written and freed just before, so that the call's fresh pages are ones
    the host already backs (see :func:`back_memory`).
    """
    from bench_openfisca import prepare

    call, warm_up = prepare(engine, count)
    warm_up()
    back_memory(backed)
    settle_memory()
    before = own_rss()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    wall, cpu = time.perf_counter(), time.process_time()
    results = call()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    after = resource.getrusage(resource.RUSAGE_SELF)
    peak = own_peak_rss()
    members = len(results) // 4 if engine == "actuarial" else len(next(iter(results.values())))
    return {
        "wall": wall,
        "cpu": cpu,
        "system": after.ru_stime - usage.ru_stime,
        "page_faults": after.ru_minflt - usage.ru_minflt,
        "input_rss": before,
        "peak_rss": peak,
        "added": peak - before,
        "members": members,
    }


def back_memory(mebibytes: int) -> None:
    """Write ``mebibytes`` of new memory a page at a time, then free it.

    In a virtual machine whose kernel reports free pages to the host (virtio-balloon's
    free page reporting, as on this project's machines), a page that has been free for a
    few seconds is handed back to the host, and the next write to it costs a fault on the
    host as well: the kernel time of a call then follows the fresh memory it touches. Pages
    freed just now are not yet reported, and the kernel hands them out first, so a call
    made at once after this runs on memory the host already backs, as on a machine that
    does not report its free pages.
    """
    if mebibytes:
        pages = mmap.mmap(-1, mebibytes << 20)
        pages[:: mmap.PAGESIZE] = b"\1" * (len(pages) // mmap.PAGESIZE)
        pages.close()


def peer_one(engine: str, count: int) -> dict:
    """``count`` calls of ``engine``, one member each (after 20 calls as a warm-up)."""
    from bench_openfisca import prepare_one_member

    calls = prepare_one_member(engine, count)
    for call in calls[:20]:
        call()
    walls = []
    wall, cpu = time.perf_counter(), time.process_time()
    for call in calls:
        started = time.perf_counter()
        call()
        walls.append(time.perf_counter() - started)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return {
        "wall": wall / count,
        "cpu": cpu / count,
        "median_wall": statistics.median(walls),
        "peak_rss": own_peak_rss(),
        "added": 0,
    }


def batch_floor(members: str, result: str, out: str) -> dict:
    """The floor of a batch: pyarrow reads the member CSV and writes a result of the same
    shape (the batch's own, dictionary-coded, mapped from an Arrow IPC file) as CSV."""
    import pyarrow as pa
    import pyarrow.csv as pa_csv

    started = time.perf_counter()
    pa_csv.read_csv(members)
    read = time.perf_counter() - started
    with pa.memory_map(result) as source:
        table = pa.ipc.open_file(source).read_all()
        pa_csv.write_csv(table, out, pa_csv.WriteOptions(batch_size=16_384))
    wall = time.perf_counter() - started
    return {"wall": wall, "read": read, "write": wall - read, "peak_rss": own_peak_rss()}


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
    for name in ("peer", "peer-one"):
        step = steps.add_parser(name)
        step.add_argument("engine", choices=["actuarial", "openfisca"])
        step.add_argument("count", type=int)
        if name == "peer":
            step.add_argument("--backed", type=int, default=0, metavar="MIB")
    floor_step = steps.add_parser("batch-floor")
    for name in ("members", "result", "out"):
        floor_step.add_argument(name)
    cli_step = steps.add_parser("cli")
    cli_step.add_argument("arguments", nargs=argparse.REMAINDER)
    arguments = parser.parse_args()
    if arguments.step == "engine-memory":
        result = engine_memory(arguments.count)
    elif arguments.step == "batch":
        result = batch(arguments.members, arguments.out, arguments.progress)
    elif arguments.step == "peer":
        result = peer(arguments.engine, arguments.count, arguments.backed)
    elif arguments.step == "peer-one":
        result = peer_one(arguments.engine, arguments.count)
    elif arguments.step == "batch-floor":
        result = batch_floor(arguments.members, arguments.result, arguments.out)
    elif arguments.step == "id-check":
        result = id_check(arguments.members)
    else:
        result = command_line(arguments.arguments)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
