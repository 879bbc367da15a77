"""7. Hostile input: memory and time bounded whatever the text, and nothing lost.

Each batch runs in a new process (``python benchmarks/bench_stress.py --child ...``) that
reports its own peak memory (VmHWM), as ``child.py`` does:

- **stress**: ``actuarial batch`` on the generated members (CSV, default chunks) clean, and
  again with 1% of the rows corrupted in many ways (every corruption an error on its row)
  and a handful of 100,000-character fields: the corrupt run's peak within 1.25x of the
  clean run's; every input row in the output exactly once (one row per clause, or one error
  row), the invalid rows exactly the corrupted ones;
- **long text**: one 200,000-character member_id and 2,500 rows of a long unknown group
  (the case that took 8 GB), and 10,000 members each with a distinct 50,000-character
  group (500 MB of text, CSV and Parquet): under 1 GB;
- **many guides**: 2,000 one-day guides in a folder (2020-01-01 on), 20,000 members, most
  early retirees separated on a day no guide covers: under a minute and 1 GB;
- **hostile guide files**: ``guides validate`` on guides nested 100,000 deep, with 20,000
  dotted keys, oversize, not UTF-8: each refused in under 10 s and 1 GB.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq
from support import (
    DATA,
    CheckFailed,
    Section,
    Target,
    check,
    count,
    gigabytes,
    members_file,
    say,
    seconds,
)

from actuarial.guides import DEFAULT_SERIES, SHIPPED_GUIDES
from actuarial.law.clauses import CLAUSES
from actuarial.members import MEMBER_FIELDS

BENCHMARKS = Path(__file__).resolve().parent
RATIO = 1.25  # peak memory of the corrupt run against the clean run
GIGABYTE = 1e9
LONG = 100_000  # characters of each long field
# Corruptions that each make their row invalid (the field, and the text written in it).
CORRUPTIONS = [
    ("member_id", ""),
    ("member_id", " M-space"),
    ("member_id", "x" * 101),
    ("member_id", "ctrl\x1b[31m"),
    ("birth_date", "NA"),
    ("birth_date", "1960-02-30"),
    ("birth_date", "0000-01-01"),
    ("birth_date", "15/06/1960"),
    ("entry_date", "null"),
    ("entry_date", "1899-12-31"),
    ("separation_date", "2101-01-01"),
    ("separation_date", "20250615"),
    ("credited_service", "NaN"),
    ("credited_service", "inf"),
    ("credited_service", "-1"),
    ("credited_service", "abc"),
    ("average_compensation", "1e308"),
    ("average_compensation", "0"),
    ("average_compensation", "$48,000"),
    ("group", "teacher"),
    ("group", "NA"),
    ("refunded", "maybe"),
    ("refunded", ""),
]
# Long fields: each also an error on its row.
LONG_FIELDS = [
    ("member_id", "i"),
    ("group", "g"),
    ("birth_date", "d"),
    ("credited_service", "9"),
    ("refunded", "r"),
]


def own_peak_rss() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError("no VmHWM in /proc/self/status (Linux only)")


# ------------------------------------------------------------------ the child process
def child(arguments: list[str]) -> None:
    """The command line in this process; prints wall seconds, exit status and peak RSS."""
    from actuarial.cli import cli

    started = time.perf_counter()
    try:
        cli.main(arguments, prog_name="actuarial")
        status = 0
    except SystemExit as exit_status:
        status = exit_status.code or 0
    wall = time.perf_counter() - started
    print(json.dumps({"wall": wall, "status": status, "peak_rss": own_peak_rss()}))


def run_cli(arguments: list[str]) -> dict:
    command = [sys.executable, str(Path(__file__).resolve()), "--child", *arguments]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise CheckFailed(f"{' '.join(command)[:300]} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1]) | {"stderr": done.stderr}


# ------------------------------------------------------------------ inputs
def corrupt_file(clean: Path, members: int, seed: int = 11) -> tuple[Path, np.ndarray]:
    """The clean CSV with 1% of rows corrupted and a handful of long fields; their rows."""
    path = DATA / f"stress-{members}.csv"
    rng = np.random.default_rng(seed)
    table = pa_csv.read_csv(
        clean,
        convert_options=pa_csv.ConvertOptions(
            column_types=dict.fromkeys(MEMBER_FIELDS, pa.string()), null_values=[""]
        ),
    )
    columns = {
        name: table.column(name).to_numpy(zero_copy_only=False).astype(object)
        for name in table.column_names
    }
    del table
    rows = rng.choice(members, size=members // 100 + len(LONG_FIELDS), replace=False)
    long_rows, short_rows = rows[: len(LONG_FIELDS)], rows[len(LONG_FIELDS) :]
    kinds = rng.integers(0, len(CORRUPTIONS), size=len(short_rows))
    for row, kind in zip(short_rows, kinds, strict=True):
        name, text = CORRUPTIONS[kind]
        columns[name][row] = text
    for row, (name, letter) in zip(long_rows, LONG_FIELDS, strict=True):
        columns[name][row] = letter * LONG
    out = pa.table({name: pa.array(values, type=pa.string()) for name, values in columns.items()})
    pa_csv.write_csv(out, path)
    return path, np.sort(rows)


def wide_text_files(members: int = 10_000, width: int = 50_000) -> list[Path]:
    """Every member with a distinct ``width``-character group (500 MB of text), CSV and
    Parquet (one row group)."""
    paths = [DATA / f"wide-text-{members}x{width}.{fmt}" for fmt in ("csv", "parquet")]
    if all(path.exists() for path in paths):
        return paths
    clean = pa_csv.read_csv(members_file(10_000, "csv"))
    table = clean.slice(0, members).cast(
        pa.schema([(name, pa.string()) for name in clean.column_names])
    )
    groups = pa.array([f"{n:06d}" + "w" * (width - 6) for n in range(members)])
    table = table.set_column(table.schema.get_field_index("group"), "group", groups)
    pa_csv.write_csv(table, paths[0])
    pq.write_table(table, paths[1], row_group_size=members)
    return paths


def guide_folder(days: int, first_day: dt.date) -> Path:
    """``days`` one-day guides of one series, copies of the shipped default's table."""
    folder = DATA / f"guides-{days}-days-from-{first_day}"
    if (folder / f"day-{days - 1:05d}" / "guide.toml").exists():
        return folder
    table = (SHIPPED_GUIDES / DEFAULT_SERIES / "reduction.csv").read_text()
    for number in range(days):
        day = first_day + dt.timedelta(days=number)
        guide = folder / f"day-{number:05d}"
        guide.mkdir(parents=True, exist_ok=True)
        (guide / "reduction.csv").write_text(table)
        (guide / "guide.toml").write_text(
            f'id = "day-{number:05d}"\nseries = "days"\ntitle = "One day"\n'
            f'status = "illustrative"\neffective_from = {day}\neffective_until = {day}\n'
            'normal_retirement_age = 65\ninterpolation = "monthly-linear"\n'
            'source = "bench_stress.py: a one-day period"\n'
        )
    return folder


def hostile_guides() -> Path:
    folder = DATA / "hostile-guides"
    folder.mkdir(parents=True, exist_ok=True)
    shipped = (SHIPPED_GUIDES / DEFAULT_SERIES / "guide.toml").read_text()
    table = (SHIPPED_GUIDES / DEFAULT_SERIES / "reduction.csv").read_bytes()
    cases = {
        "deep": shipped + "x = " + "[" * 30_000 + "]" * 30_000 + "\n",
        "dotted": shipped + "\n".join(f"basis.k{n} = {n}" for n in range(20_000)),
        "keys": shipped + "\n".join(f"k{n}=1" for n in range(5_000)),
        "inline": shipped + "x = " + "{a = " * 10_000 + "1" + "}" * 10_000 + "\n",
        "huge": shipped + "#" * 50_000_000,
    }
    for name, text in cases.items():
        guide = folder / name
        guide.mkdir(exist_ok=True)
        (guide / "guide.toml").write_text(text.replace(f'"{DEFAULT_SERIES}"', f'"{name}"'))
        (guide / "reduction.csv").write_bytes(table)
    latin = folder / "latin"
    latin.mkdir(exist_ok=True)
    (latin / "guide.toml").write_text(shipped.replace(f'"{DEFAULT_SERIES}"', '"latin"'))
    (latin / "reduction.csv").write_bytes(table.replace(b"factor", "factor\u00e9".encode("cp1252")))
    return folder


def long_text_file(members: int = 2_501) -> Path:
    """One 200,000-character id and 2,500 rows of a long unknown group (all invalid)."""
    path = DATA / "long-text.csv"
    clean = pa_csv.read_csv(members_file(10_000, "csv"))
    table = clean.slice(0, members).cast(
        pa.schema([(name, pa.string()) for name in clean.column_names])
    )
    ids = table.column("member_id").to_pylist()
    ids[0] = "x" * 200_000
    groups = ["unknown-group-" + "g" * 1_000 + str(n) for n in range(members)]
    table = table.set_column(0, "member_id", pa.array(ids))
    table = table.set_column(table.schema.get_field_index("group"), "group", pa.array(groups))
    pa_csv.write_csv(table, path)
    return path


# ------------------------------------------------------------------ checks
def accounting(out: Path, members: int) -> tuple[int, np.ndarray]:
    """Every input row exactly once (one row per clause, or one error row); invalid rows."""
    table = pq.read_table(out, columns=["row", "clause"])
    rows = table.column("row").to_numpy()
    invalid = table.column("clause").to_numpy(zero_copy_only=False) == ""
    per_row = np.bincount(rows, minlength=members + 1)[1:]
    invalid_rows = np.sort(rows[invalid])
    check(len(per_row) == members, f"{out.name}: rows beyond the input")
    expected = np.full(members, len(CLAUSES))
    expected[invalid_rows - 1] = 1
    check(np.array_equal(per_row, expected), f"{out.name}: a row lost or repeated")
    return len(rows), invalid_rows


# ------------------------------------------------------------------ the benchmark
def run(members_count: int = 1_000_000, guide_days: int = 2_000, guide_members: int = 20_000):
    section = Section(f"7. Hostile input ({count(members_count)} members)")
    clean = members_file(members_count, "csv")
    say(f"stress: corrupting {clean.name}")
    corrupt, corrupted_rows = corrupt_file(clean, members_count)
    results = {}
    for name, source in (("clean", clean), ("corrupt", corrupt)):
        out = DATA / f"stress-{name}.parquet"
        say(f"stress: actuarial batch {source.name}")
        results[name] = run_cli(["batch", str(source), "--out", str(out), "--no-progress"])
        check(results[name]["status"] == 0, f"batch {source.name} exited {results[name]}")
        written, invalid_rows = accounting(out, members_count)
        results[name]["rows"] = written
        results[name]["invalid"] = len(invalid_rows)
        if name == "corrupt":
            check(
                np.array_equal(invalid_rows, corrupted_rows + 1),
                f"invalid rows {len(invalid_rows)} are not the {len(corrupted_rows)} corrupted",
            )
        out.unlink()
    ratio = results["corrupt"]["peak_rss"] / results["clean"]["peak_rss"]

    say("stress: a 200,000-character id and 2,500 long unknown groups")
    long_text = run_cli(
        ["batch", str(long_text_file()), "--out", str(DATA / "long.parquet"), "--no-progress"]
    )
    check(long_text["status"] == 0, f"long text batch: {long_text}")

    say("stress: 10,000 members with a distinct 50,000-character group (CSV, Parquet)")
    wide = {}
    for path in wide_text_files():
        wide[path.suffix] = run_cli(
            ["batch", str(path), "--out", str(DATA / "wide.parquet"), "--no-progress"]
        )
        check(wide[path.suffix]["status"] == 0, f"wide text batch: {wide[path.suffix]}")
    (DATA / "wide.parquet").unlink(missing_ok=True)

    say(f"stress: {guide_days:,} one-day guides, {guide_members:,} members")
    first_day = dt.date(2020, 1, 1)  # some separations fall on a guide's day, most do not
    guides = guide_folder(guide_days, first_day)
    many = run_cli(
        [
            "batch", str(members_file(guide_members, "csv")), "--out",
            str(DATA / "many-guides.parquet"), "--guides", str(guides), "--no-progress",
        ]
    )  # fmt: skip
    check(many["status"] == 0, f"many guides batch: {many}")
    errors = pq.read_table(DATA / "many-guides.parquet", columns=["error"]).column(0)
    longest_error = max(len(text) for text in errors.unique().to_pylist() if text)

    say("stress: guides validate on hostile guide files")
    hostile = run_cli(["guides", "validate", str(hostile_guides())])
    check(hostile["status"] == 1, f"hostile guides accepted: {hostile}")
    check("Traceback" not in hostile["stderr"], "a traceback on hostile guides")
    problems = hostile["stderr"].count("\n") - 1

    section.tables.append(
        (
            ["run", "members", "invalid rows", "output rows", "wall", "peak memory"],
            [
                [
                    f"batch, {label}",
                    count(members_count),
                    count(results[key]["invalid"]),
                    count(results[key]["rows"]),
                    seconds(results[key]["wall"]),
                    gigabytes(results[key]["peak_rss"]),
                ]
                for key, label in (
                    ("clean", "clean CSV"),
                    ("corrupt", f"1% corrupt, {len(LONG_FIELDS)} fields of {LONG:,} characters"),
                )
            ]
            + [
                [
                    "batch, one 200,000-character id + 2,500 long unknown groups",
                    "2,501",
                    "2,501",
                    "2,501",
                    seconds(long_text["wall"]),
                    gigabytes(long_text["peak_rss"]),
                ],
                *[
                    [
                        f"batch, 500 MB of text: a distinct 50,000-character group each ({fmt})",
                        "10,000",
                        "10,000",
                        "10,000",
                        seconds(wide[suffix]["wall"]),
                        gigabytes(wide[suffix]["peak_rss"]),
                    ]
                    for suffix, fmt in ((".csv", "CSV"), (".parquet", "Parquet, one row group"))
                ],
                [
                    f"batch, {guide_days:,} one-day guides",
                    count(guide_members),
                    "-",
                    "-",
                    seconds(many["wall"]),
                    gigabytes(many["peak_rss"]),
                ],
                [
                    f"guides validate, 6 hostile guide folders ({problems} problems)",
                    "-",
                    "-",
                    "-",
                    seconds(hostile["wall"]),
                    gigabytes(hostile["peak_rss"]),
                ],
            ],  # fmt: skip
        )
    )
    section.notes += [
        f"Corruptions ({len(CORRUPTIONS)} kinds, each an error on its row): "
        + ", ".join(f"{name} {text[:12]!r}" for name, text in CORRUPTIONS)
        + f"; long fields in {', '.join(name for name, _ in LONG_FIELDS)}.",
        "Every input row is in the output exactly once (one row per clause, or one error "
        "row), and the invalid rows are exactly the corrupted ones.",
        f"With {guide_days:,} guides the longest 'no guide' message is {longest_error} "
        "characters (it names the nearest periods, not all of them).",
        "Each run is the `actuarial` command line in a new process; memory is its own peak "
        "(VmHWM), imports included.",
    ]
    section.targets += [
        Target(
            "stress batch: peak within 1.25x of the clean run, nothing lost",
            f"{ratio:.2f}x ({gigabytes(results['corrupt']['peak_rss'])} against "
            f"{gigabytes(results['clean']['peak_rss'])})",
            ratio <= RATIO if members_count >= 1_000_000 else None,
        ),
        Target(
            "batch under 1 GB whatever the text (200,000-character id, 2,500 long groups; "
            "500 MB of text in CSV and in Parquet)",
            ", ".join(
                gigabytes(run["peak_rss"]) for run in (long_text, wide[".csv"], wide[".parquet"])
            ),
            max(run["peak_rss"] for run in (long_text, wide[".csv"], wide[".parquet"])) < GIGABYTE,
        ),
        Target(
            "2,000 one-day guides, 20,000 members: under 1 minute and 1 GB",
            f"{seconds(many['wall'])}, {gigabytes(many['peak_rss'])}",
            (many["wall"] < 60 and many["peak_rss"] < GIGABYTE)
            if guide_days >= 2_000 and guide_members >= 20_000
            else None,
        ),
        Target(
            "any guide file refused or accepted in under 10 s and 1 GB",
            f"{seconds(hostile['wall'])}, {gigabytes(hostile['peak_rss'])} for all 6",
            hostile["wall"] < 10 and hostile["peak_rss"] < GIGABYTE,
        ),
    ]
    for path in (DATA / "long.parquet", DATA / "many-guides.parquet", corrupt):
        path.unlink(missing_ok=True)
    shutil.rmtree(DATA / "hostile-guides", ignore_errors=True)  # 50 MB, and not UTF-8
    return section


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", nargs=argparse.REMAINDER)
    parser.add_argument("--members", type=int, default=1_000_000)
    arguments = parser.parse_args()
    if arguments.child is not None:
        child(arguments.child)
        return
    from run import show

    print(show(run(arguments.members)))


if __name__ == "__main__":
    main()
