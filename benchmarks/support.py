"""What every benchmark shares: timing side by side, child processes, cached inputs, tables.

Times are medians of repeats run in turn (A, B, A, B, ...), so that a burst of load on a
shared machine falls on both sides of a ratio. CPU time is the process's (every thread).
"""

from __future__ import annotations

import compileall
import datetime as dt
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq
from tqdm import tqdm

from actuarial.guides import DEFAULT_SERIES, SHIPPED_GUIDES, GuideSet, load_guides
from actuarial.report import git_commit
from actuarial.synthetic import generate_members

BENCHMARKS = Path(__file__).resolve().parent
REPOSITORY = BENCHMARKS.parent
DATA = BENCHMARKS / "data"  # generated inputs and outputs (gitignored)
SEED = 2013
GENERATE_ROWS = 1_000_000  # members generated at a time for the large files
LOAD_AVERAGE = "load average at start (1, 5, 15 min)"  # a row of machine()


class CheckFailed(RuntimeError):
    """A benchmark's own check of its results failed: its figures would mean nothing."""


def check(condition: bool, message: str) -> None:
    if not condition:
        raise CheckFailed(message)


def say(message: str) -> None:
    """A progress line (stderr, so that stdout holds the tables)."""
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------- timing
@dataclass(frozen=True, slots=True)
class Timing:
    """Median wall-clock and CPU seconds of the repeats."""

    wall: float
    cpu: float
    repeats: int


def time_side_by_side(
    steps: dict[str, Callable[[], object]],
    repeat: int,
    warmup: int = 1,
    before: Callable[[], None] | None = None,
) -> dict[str, Timing]:
    """Each step ``warmup`` times, then ``repeat`` rounds of every step in turn.

    ``before`` runs (untimed) before each call, e.g. to remove a previous output file.
    """
    walls: dict[str, list[float]] = {name: [] for name in steps}
    cpus: dict[str, list[float]] = {name: [] for name in steps}
    for round_number in range(warmup + repeat):
        for name, step in steps.items():
            if before is not None:
                before()
            wall, cpu = time.perf_counter(), time.process_time()
            step()
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            if round_number >= warmup:
                walls[name].append(wall)
                cpus[name].append(cpu)
    return {
        name: Timing(statistics.median(walls[name]), statistics.median(cpus[name]), repeat)
        for name in steps
    }


@dataclass(frozen=True, slots=True)
class ChildRun:
    """A step run by ``child.py`` in a new process: wall-clock and CPU seconds (from wait4),
    and the JSON the step printed (with the process's own peak memory, ``peak_rss``)."""

    wall: float
    cpu: float
    result: dict


def compile_package() -> None:
    """Compile the package's modules to bytecode, as installing its wheel does, before the
    command line is timed in new processes: an editable checkout run with
    PYTHONDONTWRITEBYTECODE set (as on the benchmark machines) would otherwise compile
    every module again at every start (0.07 s of each run)."""
    check(
        compileall.compile_dir(REPOSITORY / "actuarial", quiet=1),
        "the package's modules do not compile",
    )


def run_child(arguments: list[str], show_stderr: bool = False) -> ChildRun:
    """``python benchmarks/child.py ARGUMENTS`` with this interpreter, in a new process."""
    command = [sys.executable, str(BENCHMARKS / "child.py"), *arguments]
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        process = subprocess.Popen(command, stdout=out, stderr=None if show_stderr else err)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if process.returncode != 0:
            raise CheckFailed(
                f"{' '.join(command)} exited with {process.returncode}:\n{err.read()[-2000:]}"
            )
        last_line = out.read().strip().splitlines()[-1]
        return ChildRun(wall, usage.ru_utime + usage.ru_stime, json.loads(last_line))


# --------------------------------------------------------------------- inputs
MEMBER_FILE_SCHEMA = pa.schema(
    [
        ("member_id", pa.string()),
        ("birth_date", pa.date32()),
        ("entry_date", pa.date32()),
        ("separation_date", pa.date32()),
        ("credited_service", pa.float64()),
        ("average_compensation", pa.float64()),
        ("group", pa.string()),
        ("refunded", pa.bool_()),
    ]
)


def member_table(frame) -> pa.Table:
    """Generated members as an Arrow table with date columns, as a member file holds them."""
    table = pa.Table.from_pandas(frame, preserve_index=False).replace_schema_metadata(None)
    return table.select(MEMBER_FILE_SCHEMA.names).cast(MEMBER_FILE_SCHEMA)


def generated_members(count: int, seed: int = SEED, first: int = 1):
    """``count`` generated members numbered from ``first``; seed + chunk for large counts.

    Up to GENERATE_ROWS members this is ``generate_members(count, seed)`` exactly.
    """
    chunk = (first - 1) // GENERATE_ROWS
    frame = generate_members(count, seed=seed + chunk)
    if first != 1:
        numbers = np.arange(first, first + count).astype(str)
        frame["member_id"] = np.char.add("M-", numbers).astype(object)
    return frame


def default_guides() -> GuideSet:
    """The shipped guides of the default series: what every benchmark evaluates with."""
    return load_guides(SHIPPED_GUIDES, DEFAULT_SERIES)


def members_file(count: int, fmt: str, seed: int = SEED) -> Path:
    """``data/members-<count>.<fmt>`` (CSV or Parquet), generated once, a chunk at a time."""
    path = DATA / f"members-{count}-seed{seed}.{fmt}"
    if path.exists():
        return path
    DATA.mkdir(exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    writer = (
        pq.ParquetWriter(partial, MEMBER_FILE_SCHEMA)
        if fmt == "parquet"
        else pa_csv.CSVWriter(partial, MEMBER_FILE_SCHEMA)
    )
    try:
        with tqdm(total=count, unit=" members", desc=f"generating {path.name}") as bar:
            for first in range(1, count + 1, GENERATE_ROWS):
                size = min(GENERATE_ROWS, count - first + 1)
                writer.write_table(member_table(generated_members(size, seed, first)))
                bar.update(size)
    except BaseException:
        writer.close()
        partial.unlink(missing_ok=True)
        raise
    writer.close()
    partial.replace(path)
    return path


# --------------------------------------------------------------------- the machine
def machine() -> dict[str, str]:
    """Where and with what the figures were measured."""
    cpu_model = "unknown"
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            cpu_model = line.split(":", 1)[1].strip()
            break
    memory_kib = 0
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemTotal:"):
            memory_kib = int(line.split()[1])
    # The run writes RESULTS.md itself: only changes to the package count as uncommitted.
    commit = git_commit(REPOSITORY, paths=["actuarial"])
    versions = ", ".join(
        f"{name} {metadata.version(name)}"
        for name in ("numpy", "pandas", "pyarrow", "actuarialmath", "pyliferisk")
    )
    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    return {
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "CPU": cpu_model,
        "cores": f"{os.cpu_count()} (usable: {len(os.sched_getaffinity(0))})",
        "RAM": f"{memory_kib / 2**20:.1f} GiB",
        "OS": platform.platform(),
        "Python": platform.python_version(),
        "packages": versions,
        "code": f"commit {commit}",
        LOAD_AVERAGE: load,
        "free pages reported to the host (virtio-balloon)": free_page_reporting(),
    }


VIRTIO_BALLOON = 5  # virtio device id of the memory balloon
BALLOON_REPORTING = 5  # its feature bit: free page reporting


def free_page_reporting() -> str:
    """Whether the kernel hands free pages back to a hypervisor (virtio-balloon's free page
    reporting). Where it does, a page written again after it was reported costs a fault on
    the host too: fresh memory is slower than on a machine that keeps its pages."""
    for device in Path("/sys/bus/virtio/devices").glob("*"):
        try:
            kind = int((device / "device").read_text(), 16)
            features = (device / "features").read_text().strip()
        except (OSError, ValueError):
            continue
        if kind == VIRTIO_BALLOON and features[BALLOON_REPORTING : BALLOON_REPORTING + 1] == "1":
            return "yes"
    return "no"


# --------------------------------------------------------------------- results
@dataclass(slots=True)
class Target:
    """A goal of the issue and whether this run met it."""

    goal: str
    measured: str
    met: bool | None  # None: not assessed at this run's sizes (--quick)


@dataclass(slots=True)
class Section:
    """One benchmark's figures: tables (header + rows), notes and targets."""

    title: str
    tables: list[tuple[list[str], list[list[str]]]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    targets: list[Target] = field(default_factory=list)


def text_table(header: list[str], rows: list[list[str]]) -> str:
    """Columns aligned for a terminal: text left, figures right."""
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]

    def line(row):
        cells = [
            cell.ljust(width) if i == 0 else cell.rjust(width)
            for i, (cell, width) in enumerate(zip(row, widths, strict=True))
        ]
        return "  ".join(cells).rstrip()

    return "\n".join([line(header), line(["-" * width for width in widths]), *map(line, rows)])


def markdown_table(header: list[str], rows: list[list[str]]) -> str:
    align = ["---"] + ["---:"] * (len(header) - 1)
    lines = [header, align, *rows]
    return "\n".join("| " + " | ".join(cells) + " |" for cells in lines)


# --------------------------------------------------------------------- formats
def seconds(value: float) -> str:
    if value >= 100:
        return f"{value:.0f} s"
    if value >= 1:
        return f"{value:.2f} s"
    if value >= 1e-3:
        return f"{value * 1e3:.1f} ms"
    return f"{value * 1e6:.1f} µs"


def per_item(value: float) -> str:
    """Seconds per member or per value, in the unit that reads best."""
    if value >= 1e-3:
        return f"{value * 1e3:.2f} ms"
    if value >= 1e-6:
        return f"{value * 1e6:.2f} µs"
    return f"{value * 1e9:.0f} ns"


def gigabytes(value: float) -> str:
    return f"{value / 1e9:.2f} GB"


def times(value: float) -> str:
    return f"{value:,.0f}x" if value >= 10 else f"{value:.2f}x"


def count(value: int) -> str:
    return f"{value:,}"
