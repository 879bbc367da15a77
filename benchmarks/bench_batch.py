"""2. End to end: ``run_batch`` (and once ``actuarial batch`` in a fresh process) on a member
file, CSV and Parquet, against the floor of merely reading that file with pandas and
writing an output of the same shape (4 rows per member, the 13 result columns with the
dtypes of ``evaluate_frame``) in the same format.

The floor writes through pyarrow, as ``DataFrame.to_parquet`` does; for CSV with pyarrow's
writer too (pandas' own ``DataFrame.to_csv`` is far slower, so it would flatter the batch;
it is timed once for reference). Checked before timing: the batch output equals
``evaluate_frame`` on the same members, row for row, and the command line writes the same.
"""

from __future__ import annotations

import cProfile
import pstats
import time
from collections import defaultdict
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq
from support import (
    DATA,
    Section,
    Target,
    check,
    compile_package,
    count,
    default_guides,
    generated_members,
    members_file,
    run_child,
    say,
    seconds,
    time_side_by_side,
)

from actuarial import batch as batch_module
from actuarial import evaluate_frame, member_files
from actuarial.batch import CSV_WRITE_OPTIONS, OUTPUT_SCHEMA, run_batch
from actuarial.law.clauses import CLAUSES

FORMATS = ("csv", "parquet")
TARGET_MEMBERS = 1_000_000
# Where run_batch spends its time, by the functions cProfile sees in each of its threads
# (the calling thread, and every task of its reading, first-pass and writing threads, each
# profiled apart and summed): (file ending, function, how): their cumulative time, their
# own time, or a nested stage's time to subtract. cProfile's clock is the wall clock, so
# a thread's seconds include its waits for the GIL and for the other threads.
STAGES = {
    "first pass: read the member ids": [("actuarial/member_files.py", "_id_chunks", "cumulative")],
    "first pass: hash and compare the ids": [
        ("actuarial/duplicate_ids.py", "find_duplicates", "cumulative"),
        ("actuarial/member_files.py", "_id_chunks", "subtract"),
    ],
    "read the file in chunks": [
        ("actuarial/batch.py", "_batches", "cumulative"),
        ("actuarial/batch.py", "_typed", "subtract"),
    ],
    "type the dates and numbers (reading thread)": [("actuarial/batch.py", "_typed", "cumulative")],
    "parse and validate members": [("actuarial/members.py", "parse_members", "cumulative")],
    "the clauses (engine)": [("actuarial/engine.py", "evaluate_members", "cumulative")],
    "result columns (writing thread)": [("actuarial/engine.py", "columns", "cumulative")],
    "to Arrow (writing thread)": [
        ("actuarial/batch.py", "_arrow_table", "cumulative"),
        ("actuarial/engine.py", "columns", "subtract"),
    ],
    "format the CSV text (two threads)": [("actuarial/batch.py", "_formatted", "cumulative")],
    "write Parquet (writing thread)": [("pyarrow/parquet/core.py", "write_table", "cumulative")],
    "summary counts": [("actuarial/batch.py", "add", "cumulative")],
    "wait for another thread": [("concurrent/futures/_base.py", "result", "cumulative")],
}


def read_with_pandas(path: Path, fmt: str) -> pd.DataFrame:
    return pd.read_csv(path, engine="pyarrow") if fmt == "csv" else pd.read_parquet(path)


def write_like_pandas(frame: pd.DataFrame, path: Path, fmt: str) -> None:
    if fmt == "parquet":
        frame.to_parquet(path, index=False)
    else:
        table = pa.Table.from_pandas(frame, preserve_index=False)
        pa_csv.write_csv(table, path, CSV_WRITE_OPTIONS)


def floor(source: Path, fmt: str, results: pd.DataFrame, out: Path) -> None:
    """Read the member file with pandas; write ``results`` (already computed) like pandas."""
    read_with_pandas(source, fmt)
    write_like_pandas(results, out, fmt)


def read_output(path: Path, fmt: str) -> pa.Table:
    if fmt == "parquet":
        return pq.read_table(path)
    return pa_csv.read_csv(
        path,
        convert_options=pa_csv.ConvertOptions(
            column_types={field.name: field.type for field in OUTPUT_SCHEMA},
            strings_can_be_null=False,
        ),
    )


def check_output(path: Path, fmt: str, expected: pd.DataFrame) -> None:
    """The file holds exactly the rows of ``evaluate_frame`` on the same members."""
    table = read_output(path, fmt)
    check(table.schema.names == list(OUTPUT_SCHEMA.names), f"{path.name}: columns differ")
    check(table.num_rows == len(expected), f"{path.name}: {table.num_rows} rows")
    for field in OUTPUT_SCHEMA:
        written = table.column(field.name).to_numpy()
        wanted = expected[field.name]
        if field.type == pa.string():
            same = np.array_equal(written.astype(str), wanted.astype(str).to_numpy())
        elif field.type == pa.date32():
            wanted = wanted.to_numpy().astype("datetime64[D]")
            same = np.array_equal(written.astype("datetime64[D]"), wanted, equal_nan=True)
        else:
            wanted = wanted.to_numpy()
            same = np.array_equal(written, wanted, equal_nan=wanted.dtype.kind == "f")
        check(same, f"{path.name}: column '{field.name}' differs from evaluate_frame")


def same_output(first: Path, second: Path, fmt: str) -> bool:
    if fmt == "csv":
        return first.read_bytes() == second.read_bytes()
    return pq.read_table(first).equals(pq.read_table(second))


def profile_stages(source: Path, out: Path, guides) -> tuple[float, list, dict[str, float]]:
    """One profiled run_batch: the seconds its threads' profiles hold in all, the seconds
    per stage ('other': the rest), and the CPU time of each kind of thread.

    cProfile profiles the thread that starts it: the calling thread is profiled by one
    profiler, and every task run_batch gives its threads by one of its own (summed).
    """
    out.unlink(missing_ok=True)  # as in the timed runs: replacing a large file takes time
    profiles: list[cProfile.Profile] = []
    thread_cpu: dict[str, float] = defaultdict(float)

    class ProfiledThreads(batch_module.ThreadPoolExecutor):
        def submit(self, task, *args, **kwargs):
            kind = self._thread_name_prefix

            def profiled():
                profiler = cProfile.Profile()
                started = time.thread_time()
                try:
                    return profiler.runcall(task, *args, **kwargs)
                finally:
                    thread_cpu[kind] += time.thread_time() - started
                    profiles.append(profiler)

            return super().submit(profiled)

    profiler = cProfile.Profile()
    modules = (batch_module, member_files)  # the first pass's thread is started by the latter
    executor = batch_module.ThreadPoolExecutor
    for module in modules:
        module.ThreadPoolExecutor = ProfiledThreads
    started = time.thread_time()
    try:
        profiler.runcall(run_batch, source, guides, out, progress=False)
    finally:
        for module in modules:
            module.ThreadPoolExecutor = executor
    thread_cpu["calling"] = time.thread_time() - started
    check(any("write" in kind for kind in thread_cpu), "profiled run_batch wrote nothing")
    merged = pstats.Stats(profiler)
    for each in profiles:
        merged.add(each)
    stats = merged.stats
    total = sum(own for _, _, own, _, _ in stats.values())
    stages = []
    for stage, functions in STAGES.items():
        spent = 0.0
        for file_end, name, how in functions:
            for (file, _, function), (_, _, own, cumulative, _) in stats.items():
                if function == name and file.endswith(file_end):
                    spent += {"cumulative": cumulative, "own": own, "subtract": -cumulative}[how]
        stages.append((stage, spent))
    stages.append(("other", total - sum(spent for _, spent in stages)))
    return total, stages, dict(thread_cpu)


def run(members_count: int, repeat: int, pandas_to_csv: bool) -> Section:
    guides = default_guides()
    say(f"batch: evaluate_frame on the {members_count:,} members (the expected output)")
    expected = evaluate_frame(generated_members(members_count), guides)
    eligible = {
        clause: int(expected["eligible"][expected["clause"] == clause].sum()) for clause in CLAUSES
    }
    section = Section("2. End to end: actuarial batch against reading and writing alone")
    rows, profile_rows, targets, cli_peaks = [], [], [], {}
    compile_package()  # for the command line in fresh processes
    for fmt in FORMATS:
        source = members_file(members_count, fmt)
        out = DATA / f"batch-{members_count}.{fmt}"
        floor_out = DATA / f"floor-{members_count}.{fmt}"
        cli_out = DATA / f"cli-{members_count}.{fmt}"
        say(f"batch: run_batch on {source.name}, checking its output")
        summary = run_batch(source, guides, out, progress=False)
        check(summary.members == members_count, f"{source.name}: {summary.members} members")
        check(summary.eligible == eligible, f"{source.name}: eligible counts {summary.eligible}")
        check_output(out, fmt, expected)

        def remove_outputs(outputs=(out, floor_out)):
            for path in outputs:
                path.unlink(missing_ok=True)

        say(f"batch: timing floor and run_batch side by side x{repeat} ({fmt})")
        timings = time_side_by_side(
            {
                "floor": lambda a=(source, fmt, expected, floor_out): floor(*a),
                "run_batch": lambda a=(source, guides, out): run_batch(*a, progress=False),
            },
            repeat=repeat,
            before=remove_outputs,
        )
        say(f"batch: actuarial batch in a fresh process ({fmt})")
        cli_out.unlink(missing_ok=True)
        cli = run_child(["cli", "batch", str(source), "--out", str(cli_out), "--no-progress"])
        check(same_output(out, cli_out, fmt), f"{cli_out.name}: differs from run_batch's")
        say(f"batch: profiling run_batch ({fmt})")
        profiled_total, stages, thread_cpu = profile_stages(source, out, guides)

        base, batch = timings["floor"], timings["run_batch"]
        ratio_wall, ratio_cpu = batch.wall / base.wall, batch.cpu / base.cpu
        rows += [
            [f"{fmt}: floor (pandas read, write)", seconds(base.wall), seconds(base.cpu), "1", "1"],
            [
                f"{fmt}: run_batch",
                seconds(batch.wall),
                seconds(batch.cpu),
                f"{ratio_wall:.2f}",
                f"{ratio_cpu:.2f}",
            ],
            [
                f"{fmt}: actuarial batch (new process, once)",
                seconds(cli.wall),
                seconds(cli.cpu),
                f"{cli.wall / base.wall:.2f}",
                f"{cli.cpu / base.cpu:.2f}",
            ],
        ]
        profile_rows += [
            [f"{fmt}: {stage}", seconds(spent), f"{100 * spent / profiled_total:.0f}%"]
            for stage, spent in stages
        ]
        profile_rows += [
            [f"{fmt}: CPU time of the {kind} thread(s)", seconds(spent), ""]
            for kind, spent in sorted(thread_cpu.items())
        ]
        cli_peaks[fmt] = cli.result["peak_rss"]
        for path in (out, floor_out, cli_out):
            path.unlink(missing_ok=True)
        targets.append(
            Target(
                f"run_batch on a 1,000,000-member {fmt.upper()} file <= 2x the floor",
                f"{ratio_wall:.2f}x wall, {ratio_cpu:.2f}x CPU"
                + ("" if members_count == TARGET_MEMBERS else f" ({count(members_count)})"),
                ratio_wall <= 2 if members_count == TARGET_MEMBERS else None,
            )
        )
    if pandas_to_csv:
        say("batch: pandas DataFrame.to_csv once, for reference")
        reference_out = DATA / "pandas-to-csv.csv"
        reference = time_side_by_side(
            {"to_csv": lambda: expected.to_csv(reference_out, index=False)}, repeat=1, warmup=0
        )["to_csv"]
        reference_out.unlink(missing_ok=True)
        rows.append(
            [
                "csv: pandas DataFrame.to_csv of the output alone (reference)",
                seconds(reference.wall),
                seconds(reference.cpu),
                "",
                "",
            ]
        )
    section.tables.append((["", "wall", "CPU", "x floor (wall)", "x floor (CPU)"], rows))
    section.tables.append(
        (
            ["where run_batch spends its time (cProfile)", "seconds", "share of its threads"],
            profile_rows,
        )
    )
    section.notes += [
        f"{count(members_count)} generated members; output {count(4 * members_count)} rows. "
        f"Medians of {repeat} rounds (floor, run_batch, floor, ...) after a warm-up round; "
        "outputs removed between runs.",
        "Floor: pandas.read_csv(engine='pyarrow') or pandas.read_parquet, then the "
        "evaluate_frame result (computed beforehand) written with pyarrow: "
        "DataFrame.to_parquet, or pyarrow.csv.write_csv with the batch's write options.",
        "The new process runs the command line's entry point (actuarial.cli) and includes "
        "starting Python, importing pandas and pyarrow and loading the guides; its peak "
        "memory (own VmHWM): "
        + ", ".join(f"{fmt.upper()} {peak / 1e9:.2f} GB" for fmt, peak in cli_peaks.items())
        + ".",
        "Profiled times are larger than unprofiled ones; the shares are what matter. "
        "run_batch's own thread parses and evaluates each chunk; beside it, one thread reads "
        "the ids for the first pass (while the first, small chunk is computed), one reads "
        "the next chunk and types its dates and numbers, one converts each chunk to Arrow "
        "and writes it (Parquet) or has two threads format its text (Arrow formats without "
        "the GIL) and one append it in order (CSV). "
        "cProfile profiles each thread apart (its clock is the wall clock, waits included), "
        "summed here; the CPU time of each kind of thread is shown below the stages.",
        "Checked before timing: the run_batch output equals evaluate_frame row for row "
        "(both formats), its summary counts match, and the command line writes the same.",
    ]
    section.targets += targets
    return section
