"""5. Against OpenFisca: the same law in our own OpenFisca model (``openfisca_model/``) and in
``actuarial``, at 10^4, 10^5 and 10^6 members and one member at a time; and ``actuarial
batch`` end to end against a pyarrow floor.

Every figure comes from a new process per run (``child.py peer``, ``peer-one``,
``batch-floor``, ``cli``), the engines alternated (actuarial, OpenFisca, actuarial, ...),
best of 3 runs. In each process the members are generated and typed first, each engine
is called once on 1,000 members (first calls into each library), the memory high-water
mark is reset, and then the one timed call runs: its wall and CPU time, the peak memory
of the process and the memory it added beyond the loaded input.

Checked before timing: ``evaluate_frame``'s results on the benchmark's 10^6 members are
those recorded in ``result_digests.json`` (:mod:`result_digest`); on 10,000 generated
members, and on members on both sides of every
threshold (:func:`boundary_members`, paid from two dates, one before the minimum starts),
both agree on every eligibility flag and every monthly amount to the cent (and on the
reduction factor of inciso (c) and the start of inciso (d)), with the same readings (the
defaults), the same guide factors and the same payment dates (``as_of`` = the first day of
the month OpenFisca computes).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import numpy as np
import openfisca_model
import pandas as pd
import pyarrow as pa
import result_digest
from support import (
    DATA,
    Section,
    Target,
    check,
    compile_package,
    count,
    generated_members,
    gigabytes,
    members_file,
    per_item,
    run_child,
    say,
    seconds,
)

from actuarial import Member, evaluate, evaluate_frame, load_guides
from actuarial.batch import _arrow_table
from actuarial.engine import evaluate_members
from actuarial.guides import SHIPPED_GUIDES
from actuarial.interpretations import Readings
from actuarial.law.clauses import CLAUSES
from actuarial.members import parse_members

ENGINES = ("actuarial", "openfisca")
MODELLED_CLAUSES = ("a", "b", "c", "d")  # the clauses of openfisca_model, in report order
# The guide series both engines use: the model's reduction scale (inciso_c.yaml) holds its
# factors, whatever series the package takes by default.
GUIDE_SERIES = "illustrative-half-percent-per-month"
AS_OF = dt.date(2026, 7, 1)  # actuarial's payment date for the minimum ...
MONTH = AS_OF.strftime("%Y-%m")  # ... is the first day of the month OpenFisca computes
AGREEMENT_MEMBERS = 10_000
# Payment from the month before the $500 minimum starts: it applies to some members only.
BEFORE_MINIMUM = dt.date(2013, 6, 1)
WARM_UP_MEMBERS = 1_000
TARGET_MEMBERS = 1_000_000
# The targets (14): actuarial at most OpenFisca's wall time and 2x its added memory
# at 10^6 members; evaluate at most 1 ms; actuarial batch at most 1.5x the floor.
WALL_RATIO_TARGET = 1.0
MEMORY_RATIO_TARGET = 2.0
ONE_MEMBER_TARGET = 1e-3
BATCH_FLOOR_TARGET = 1.5
# The largest size again, on memory the host already backs (child.py's back_memory): what
# the engines take where fresh pages cost no fault on the host.
BACKED_MIB = 2048
# The columns of the side-by-side tables ('of it, kernel': the system CPU time).
ENGINE_COLUMNS = [
    "engine",
    "members",
    "wall",
    "CPU",
    "of it, kernel",
    "peak RSS",
    "added memory",
    "per member",
]


# --------------------------------------------------------------------- both engines
def guides():
    return load_guides(SHIPPED_GUIDES, GUIDE_SERIES)


def peer_inputs(frame: pd.DataFrame) -> dict[str, np.ndarray]:
    """The members as the OpenFisca model's typed inputs (dates, float64, bool, its Enum).

    The group is encoded here, before any timing: OpenFisca's own encoding of a million
    strings (``Enum.encode``) would take about 0.2 s of its time.
    """
    return {
        "birth_date": frame["birth_date"].to_numpy().astype("datetime64[D]"),
        "entry_date": frame["entry_date"].to_numpy().astype("datetime64[D]"),
        "separation_date": frame["separation_date"].to_numpy().astype("datetime64[D]"),
        "credited_service": frame["credited_service"].to_numpy(dtype=np.float64),
        "average_compensation": frame["average_compensation"].to_numpy(dtype=np.float64),
        "group": openfisca_model.Group.encode(frame["group"].to_numpy().astype(str)),
        "refunded": frame["refunded"].to_numpy(dtype=bool),
    }


def openfisca_results(system, inputs: dict, as_of: dt.date = AS_OF) -> dict[str, np.ndarray]:
    """The model's outputs for the month whose first day is ``as_of``."""
    return openfisca_model.calculate(system, inputs, as_of.strftime("%Y-%m"))


def actuarial_results(frame: pd.DataFrame, guide_set, as_of: dt.date = AS_OF) -> pd.DataFrame:
    return evaluate_frame(frame, guide_set, as_of=as_of, readings=Readings())


def boundary_members() -> pd.DataFrame:
    """Members on both sides of every threshold, in the columns of ``generate_members``.

    Born on Feb 29, on the 31st, on the day before and on the day the minimum starts at 65;
    separated the day before, on and after the 55th and 65th birthdays; service just under
    and at 10, 25 and 30 years; first entry on both sides of both ends of the coverage
    window; every group; refunded or not; an average compensation low enough for the
    minimum to lift every clause, and one well above it.
    """
    births = np.array(
        ["1952-02-29", "1950-01-31", "1950-03-31", "1951-08-15", "1948-06-30", "1948-07-01"],
        dtype="datetime64[D]",
    )
    birth_month = births.astype("datetime64[M]")
    birth_day = (births - birth_month.astype("datetime64[D]")).astype(np.int64) + 1
    separations = []
    for age in (55, 65):  # the birthday at that age: the same day, or the month's last
        month = birth_month + np.timedelta64(12 * age, "M")
        last_day = ((month + 1).astype("datetime64[D]") - month.astype("datetime64[D]")).astype(
            np.int64
        )
        birthday = month.astype("datetime64[D]") + np.minimum(birth_day, last_day) - 1
        separations += [(births, birthday + offset) for offset in (-1, 0, 1)]
    birth = np.concatenate([b for b, _ in separations])
    separation = np.concatenate([d for _, d in separations])
    entries = np.array(["1990-03-31", "1990-04-01", "1999-12-31", "2000-01-01"], "datetime64[D]")
    services = np.array([9.99, 10.0, 24.99, 25.0, 29.99, 30.0])
    compensations = np.array([7_200.0, 41_234.56])  # below the minimum in every clause, above
    grid = np.array(
        np.meshgrid(
            np.arange(len(birth)),
            np.arange(len(entries)),
            np.arange(len(services)),
            np.arange(3),
            np.arange(2),
            np.arange(len(compensations)),
            indexing="ij",
        )
    ).reshape(6, -1)
    person, entry, service, group, refunded, compensation = grid
    count = grid.shape[1]
    return pd.DataFrame(
        {
            "member_id": [f"E-{number}" for number in range(1, count + 1)],
            "birth_date": birth[person].astype("datetime64[s]"),
            "entry_date": entries[entry].astype("datetime64[s]"),
            "separation_date": separation[person].astype("datetime64[s]"),
            "credited_service": services[service],
            "average_compensation": compensations[compensation],
            "group": np.array(["general", "police", "firefighter"], dtype=object)[group],
            "refunded": refunded.astype(bool),
        }
    )


def _by_clause(table: pd.DataFrame, name: str) -> np.ndarray:
    """A result column as an array of shape (members, 4 clauses)."""
    return table[name].to_numpy().reshape(-1, len(MODELLED_CLAUSES))


def check_guide_parameters(system, guide_set) -> None:
    """The model's reduction scale holds the guide's factor at every month of age."""
    for guide in guide_set:
        scale = system.parameters(guide.effective_from.isoformat()).chapter_2.inciso_c
        ages = np.arange(guide.age_months[0], guide.age_months[-1] + 1)
        modelled = scale.reduction_factor.calc(ages)
        check(
            np.array_equal(modelled, guide.factor(ages)),
            f"openfisca_model inciso_c.yaml: factors differ from guide '{guide.id}'",
        )


def check_agreement(frame: pd.DataFrame, guide_set, as_of: dt.date = AS_OF) -> dict[str, int]:
    """Both engines on the same members: every flag and every monthly amount to the cent."""
    members_count = len(frame)
    check(
        tuple(CLAUSES) == MODELLED_CLAUSES,
        f"the engine evaluates the clauses {list(CLAUSES)}; openfisca_model has "
        f"{list(MODELLED_CLAUSES)}",
    )
    system = openfisca_model.ChapterTwoSystem()
    check_guide_parameters(system, guide_set)
    table = actuarial_results(frame, guide_set, as_of)
    check(len(table) == 4 * members_count, "evaluate_frame: not 4 rows per member")
    check(bool(table["error"].eq("").all()), "evaluate_frame: some rows have an error")
    ours = {
        "eligible": _by_clause(table, "eligible"),
        "monthly": _by_clause(table, "monthly_amount"),
        "factor": _by_clause(table, "reduction_factor"),
        "start": _by_clause(table, "start_date").astype("datetime64[D]"),
    }
    theirs = openfisca_results(system, peer_inputs(frame), as_of)
    ids = frame["member_id"].to_numpy()
    counts = {}
    for column, clause in enumerate(MODELLED_CLAUSES):
        flags = theirs[f"inciso_{clause}_eligible"]
        differ = np.flatnonzero(flags != ours["eligible"][:, column])
        check(
            len(differ) == 0,
            f"inciso ({clause}) eligibility: {len(differ)} members differ, first "
            f"{ids[differ[:1]]} (actuarial {ours['eligible'][differ[:1], column]})",
        )
        eligible = ours["eligible"][:, column]
        check(
            eligible.any() and not eligible.all(),
            f"inciso ({clause}): all members on one side of eligibility",
        )
        our_cents = np.round(ours["monthly"][eligible, column] * 100).astype(np.int64)
        their_cents = np.round(theirs[f"inciso_{clause}_monthly_amount"][eligible] * 100)
        differ = np.flatnonzero(our_cents != their_cents.astype(np.int64))
        check(
            len(differ) == 0,
            f"inciso ({clause}) monthly amount: {len(differ)} members differ by a cent or "
            f"more, first {ids[eligible][differ[:1]]}: actuarial "
            f"{our_cents[differ[:1]] / 100}, OpenFisca {their_cents[differ[:1]] / 100}",
        )
        check(
            not theirs[f"inciso_{clause}_monthly_amount"][~eligible].any(),
            f"inciso ({clause}): OpenFisca pays a member who is not eligible",
        )
        counts[clause] = int(eligible.sum())
    early = ours["eligible"][:, MODELLED_CLAUSES.index("c")]
    check(
        np.array_equal(theirs["inciso_c_reduction_factor"][early], ours["factor"][early, 2]),
        "inciso (c): the reduction factors differ",
    )
    deferred = ours["eligible"][:, MODELLED_CLAUSES.index("d")]
    check(
        np.array_equal(theirs["inciso_d_start_date"][deferred], ours["start"][deferred, 3]),
        "inciso (d): the start dates differ",
    )
    lifted = (table["minimum_topup"] > 0).sum()
    check(lifted > 0, "the $500 minimum lifted no amount: the minimum is not compared")
    counts["lifted by the minimum"] = int(lifted)
    counts["members"] = members_count
    return counts


# --------------------------------------------------------------------- steps of child.py
def prepare(engine: str, members_count: int):
    """``(call, warm_up)`` for ``child.py peer``: the typed members are in memory."""
    frame = generated_members(members_count)
    if engine == "actuarial":
        return _prepare_actuarial(frame)
    return _prepare_openfisca(frame)


def _prepare_actuarial(frame: pd.DataFrame):
    guide_set, small = guides(), frame.iloc[:WARM_UP_MEMBERS].copy()
    return (
        lambda: actuarial_results(frame, guide_set),
        lambda: actuarial_results(small, guide_set),
    )


def _prepare_openfisca(frame: pd.DataFrame):
    system = openfisca_model.ChapterTwoSystem()
    inputs, small = peer_inputs(frame), peer_inputs(frame.iloc[:WARM_UP_MEMBERS])
    return (lambda: openfisca_results(system, inputs), lambda: openfisca_results(system, small))


def _member(row) -> Member:
    return Member(
        member_id=str(row.member_id),
        birth_date=row.birth_date.date(),
        entry_date=row.entry_date.date(),
        separation_date=row.separation_date.date(),
        credited_service=float(row.credited_service),
        average_compensation=float(row.average_compensation),
        group=str(row.group),
        refunded=bool(row.refunded),
    )


def prepare_one_member(engine: str, members_count: int):
    """One call per member, for ``child.py peer-one``: a list of calls, each ready to run."""
    frame = generated_members(members_count)
    if engine == "actuarial":
        guide_set = guides()
        members = [_member(row) for row in frame.itertuples(index=False)]
        return [lambda m=m: evaluate(m, guide_set, as_of=AS_OF) for m in members]
    system = openfisca_model.ChapterTwoSystem()
    inputs = peer_inputs(frame)
    singles = [
        {name: values[position : position + 1] for name, values in inputs.items()}
        for position in range(members_count)
    ]
    return [lambda one=one: openfisca_results(system, one) for one in singles]


def floor_result(members_count: int, path: Path) -> Path:
    """The batch's own result for the members, as its writer receives it (dictionary-coded
    text), in an Arrow IPC file that the floor maps into memory without copying."""
    frame = generated_members(members_count)
    results = evaluate_members(parse_members(frame), guides(), AS_OF, Readings())
    table = _arrow_table(results)
    with pa.OSFile(str(path), "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)
    return path


# --------------------------------------------------------------------- the benchmark
def _best(runs: list) -> dict[str, float]:
    """The least of each figure over the runs (one-member runs have no kernel time)."""
    keys = ("wall", "cpu", "system", "peak_rss", "added")
    return {key: min(run[key] for run in runs) for key in keys if key in runs[0]}


def _engine_runs(sizes, repeat, backed: int = 0) -> dict[tuple[int, str], list[dict]]:
    runs: dict[tuple[int, str], list[dict]] = {}
    on = f", on {backed:,} MiB already backed" if backed else ""
    for round_number in range(repeat):
        for size in sizes:
            for engine in ENGINES:
                say(f"openfisca: run {round_number + 1}/{repeat}, {engine}, {size:,} members{on}")
                result = run_child(["peer", engine, str(size), "--backed", str(backed)]).result
                check(result["members"] == size, f"{engine}: {result['members']} members")
                runs.setdefault((size, engine), []).append(result)
    return runs


def _one_member_runs(members_count, repeat) -> dict[str, list[dict]]:
    runs: dict[str, list[dict]] = {}
    for round_number in range(repeat):
        for engine in ENGINES:
            say(f"openfisca: run {round_number + 1}/{repeat}, {engine}, one member at a time")
            runs.setdefault(engine, []).append(
                run_child(["peer-one", engine, str(members_count)]).result
            )
    return runs


def _batch_runs(members_count, repeat):
    source = members_file(members_count, "csv")
    result = floor_result(members_count, DATA / f"floor-result-{members_count}.arrow")
    batch_out = DATA / f"cli-as-of-{members_count}.csv"
    floor_out = DATA / f"floor-pyarrow-{members_count}.csv"
    compile_package()
    runs: dict[str, list] = {"floor": [], "batch": []}
    arguments = ["cli", "batch", str(source), "--out", str(batch_out)]
    arguments += ["--as-of", AS_OF.isoformat(), "--series", GUIDE_SERIES, "--no-progress"]
    try:
        # Round 0, not timed: a warm-up of both, whose outputs are compared byte for byte
        # (1.2 GB read here: no timed run follows it at once).
        for round_number in range(repeat + 1):
            say(f"openfisca: run {round_number}/{repeat}, batch floor and actuarial batch")
            floor_out.unlink(missing_ok=True)
            floor = run_child(["batch-floor", str(source), str(result), str(floor_out)])
            batch_out.unlink(missing_ok=True)
            batch = run_child(arguments)
            if round_number == 0:
                check(
                    floor_out.read_bytes() == batch_out.read_bytes(),
                    "the floor's output is not the batch's output byte for byte",
                )
                continue
            runs["floor"].append(floor)
            runs["batch"].append(batch)
    finally:
        for path in (result, batch_out, floor_out):
            path.unlink(missing_ok=True)
    return runs


def _engine_rows(size: int, runs) -> tuple[list[list[str]], dict[str, float]]:
    """The best run of each engine at ``size`` and their ratio, as rows of the table; and
    the ratios."""
    rows = []
    best = {engine: _best(runs[size, engine]) for engine in ENGINES}
    ours, theirs = best["actuarial"], best["openfisca"]
    ratios = {key: ours[key] / theirs[key] for key in ("wall", "cpu", "added")}
    for engine, label in zip(ENGINES, ("actuarial evaluate_frame", "OpenFisca"), strict=True):
        figures = best[engine]
        rows.append(
            [
                label,
                count(size),
                seconds(figures["wall"]),
                seconds(figures["cpu"]),
                seconds(figures["system"]),
                gigabytes(figures["peak_rss"]),
                f"{figures['added'] / 2**20:,.0f} MiB",
                per_item(figures["wall"] / size),
            ]
        )
    rows.append(
        [
            "ratio actuarial / OpenFisca",
            count(size),
            f"{ratios['wall']:.2f}x",
            f"{ratios['cpu']:.2f}x",
            "",
            "",
            f"{ratios['added']:.2f}x",
            "",
        ]
    )
    return rows, ratios


def run(sizes, repeat: int, one_member_count: int, batch_members: int) -> Section:
    guide_set = guides()
    unchanged = result_digest.check_unchanged()
    say(f"openfisca: checking agreement on {AGREEMENT_MEMBERS:,} members and the boundaries")
    agreement = check_agreement(generated_members(AGREEMENT_MEMBERS), guide_set)
    boundaries = {
        as_of: check_agreement(boundary_members(), guide_set, as_of)
        for as_of in (AS_OF, BEFORE_MINIMUM)
    }
    runs = _engine_runs(sizes, repeat)
    largest = max(sizes)
    backed_runs = _engine_runs([largest], repeat, BACKED_MIB)
    one_runs = _one_member_runs(one_member_count, repeat)
    batch_runs = _batch_runs(batch_members, repeat)

    section = Section("5. Against OpenFisca: the same clauses, side by side")
    rows, ratios = [], {}
    for size in sizes:
        size_rows, ratios[size] = _engine_rows(size, runs)
        rows += size_rows
    section.tables.append((ENGINE_COLUMNS, rows))
    backed_rows, backed_ratios = _engine_rows(largest, backed_runs)
    section.tables.append(
        ([f"on memory the host backs: {ENGINE_COLUMNS[0]}", *ENGINE_COLUMNS[1:]], backed_rows)
    )

    one = {engine: _best(one_runs[engine]) for engine in ENGINES}
    one_rows = [
        [
            label,
            count(one_member_count),
            per_item(one[engine]["wall"]),
            per_item(one[engine]["cpu"]),
            per_item(min(run["median_wall"] for run in one_runs[engine])),
        ]
        for engine, label in (
            ("actuarial", "actuarial evaluate (explanation included)"),
            ("openfisca", "OpenFisca: one simulation of one member"),
        )
    ]
    one_ratio = one["actuarial"]["wall"] / one["openfisca"]["wall"]
    one_rows.append(["ratio actuarial / OpenFisca", "", f"{one_ratio:.2f}x", "", ""])
    section.tables.append(
        (["one member per call", "calls", "wall per call", "CPU per call", "median call"], one_rows)
    )

    floor_best = min(batch_runs["floor"], key=lambda run: run.wall)
    batch_best = min(batch_runs["batch"], key=lambda run: run.wall)
    inner_floor = min(batch_runs["floor"], key=lambda run: run.result["wall"]).result
    batch_ratio = batch_best.wall / floor_best.wall
    section.tables.append(
        (
            ["new process, CSV in, CSV out", "members", "wall", "CPU", "peak RSS", "x floor"],
            [
                [
                    "floor: pyarrow reads the CSV, writes the dictionary-coded result",
                    count(batch_members),
                    seconds(floor_best.wall),
                    seconds(floor_best.cpu),
                    gigabytes(floor_best.result["peak_rss"]),
                    "1",
                ],
                [
                    "actuarial batch (the command line)",
                    count(batch_members),
                    seconds(batch_best.wall),
                    seconds(batch_best.cpu),
                    gigabytes(batch_best.result["peak_rss"]),
                    f"{batch_ratio:.2f}",
                ],
            ],
        )
    )
    eligible = ", ".join(f"({clause}) {agreement[clause]:,}" for clause in MODELLED_CLAUSES)
    section.notes += [
        *unchanged,
        f"Agreement, checked before timing on {AGREEMENT_MEMBERS:,} generated members: every "
        f"eligibility flag, every monthly amount to the cent, the reduction factor of (c) and "
        f"the start date of (d) are equal. Eligible: {eligible}; amounts lifted by the "
        f"minimum: {agreement['lifted by the minimum']:,}. Default readings, the guide "
        f"series '{GUIDE_SERIES}', payment from {AS_OF} (OpenFisca: the month {MONTH}).",
        "Also equal on "
        + " and ".join(
            f"{counts['members']:,} boundary members paid from {as_of} "
            f"({counts['lifted by the minimum']:,} amounts lifted by the minimum)"
            for as_of, counts in boundaries.items()
        )
        + ": on both sides of each age (55, 65: the day before, on and after the birthday, "
        "born on Feb 29 and on the 31st), service (10, 25, 30 years), coverage date and of "
        "the date the minimum starts (2013-07-01), in every group, refunded or not.",
        f"Every figure is the best of {repeat} runs, each in a new process, the engines "
        "alternated. In each process: the members generated (seed 2013) and typed, one call "
        f"of each engine on {WARM_UP_MEMBERS:,} members as a warm-up, freed memory handed "
        "back to the system (glibc malloc_trim, Arrow's pool) and the high-water mark reset "
        "(/proc/self/clear_refs), then one timed call. 'Added memory': the "
        "process's peak during the call minus its resident memory before it, the input "
        "loaded. Imports, guide and parameter loading are not timed.",
        f"'On memory the host backs': the same runs at {count(largest)} members, "
        f"{BACKED_MIB:,} MiB written and freed in the process just before the timed call "
        "(child.py, back_memory). Where the kernel reports free pages to the hypervisor "
        "(virtio-balloon's free page reporting: see the machine table), a page written "
        "again after it was reported faults on the host too, and the call's kernel time "
        "follows the fresh memory it touches; pages freed just now are not yet reported and "
        f"are handed out first. Wall ratio there: {backed_ratios['wall']:.2f}x, against "
        f"{ratios[largest]['wall']:.2f}x above. Not a target: it shows how much of the "
        "ratio is the host's price of fresh memory.",
        "actuarial: evaluate_frame on the typed frame (datetime64 dates, float64 amounts, the "
        "group as text, refunded as bool), validation and the full 4-row-per-member table "
        "included. OpenFisca: a simulation built for the members, the 7 inputs set, the "
        "eligibility and monthly amount of each clause calculated (with the reduction factor "
        "and the deferred start), float64 amounts; the group given already encoded as its "
        "Enum (encoding a million strings would add about 0.2 s to OpenFisca).",
        f"One member: {one_member_count:,} members, one call each, per call; actuarial: "
        "evaluate (validation, all clauses, the explanation); OpenFisca: a new one-member "
        "simulation, its inputs set, the same outputs calculated.",
        f"Batch: wall and CPU of the whole new process (starting Python, imports included; "
        "the package's modules compiled to bytecode beforehand, as installing its wheel "
        f"does), best of {repeat}, alternated, after a warm-up round of both (untimed; "
        "the first floor of a run was up to 15% faster than the later ones). The floor "
        "imports pyarrow only, reads the "
        "member CSV with pyarrow.csv.read_csv and writes, with pyarrow's CSV writer, the "
        "batch's own result (4 rows per member, dictionary-coded text) mapped from an Arrow "
        "file computed "
        "beforehand: its output is checked to be the batch's output byte for byte. Inside "
        f"the floor process, reading and writing take {seconds(inner_floor['wall'])} "
        f"(reading {seconds(inner_floor['read'])}, writing {seconds(inner_floor['write'])}).",
    ]
    at_target = largest == TARGET_MEMBERS
    note = "" if at_target else f" (at {count(largest)})"
    section.targets += [
        Target(
            f"evaluate_frame at {count(TARGET_MEMBERS)} members: wall <= OpenFisca's "
            f"(ratio <= {WALL_RATIO_TARGET:g})",
            f"{ratios[largest]['wall']:.2f}x{note}",
            ratios[largest]["wall"] <= WALL_RATIO_TARGET if at_target else None,
        ),
        Target(
            f"evaluate_frame at {count(TARGET_MEMBERS)} members: added memory "
            f"<= {MEMORY_RATIO_TARGET:g}x OpenFisca's",
            f"{ratios[largest]['added']:.2f}x{note}",
            ratios[largest]["added"] <= MEMORY_RATIO_TARGET if at_target else None,
        ),
        Target(
            f"evaluate for one member, explanation included: <= {per_item(ONE_MEMBER_TARGET)}",
            f"{per_item(one['actuarial']['wall'])} "
            f"(OpenFisca {per_item(one['openfisca']['wall'])})",
            one["actuarial"]["wall"] <= ONE_MEMBER_TARGET,
        ),
        Target(
            f"actuarial batch, {count(TARGET_MEMBERS)}-member CSV, new process: "
            f"<= {BATCH_FLOOR_TARGET:g}x the pyarrow floor",
            f"{batch_ratio:.2f}x"
            + ("" if batch_members == TARGET_MEMBERS else f" (at {count(batch_members)})"),
            batch_ratio <= BATCH_FLOOR_TARGET if batch_members == TARGET_MEMBERS else None,
        ),
    ]
    return section
