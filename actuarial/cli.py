"""The command line: ``actuarial evaluate | batch | guides ... | report | examples``.

Exit status 0 on success (invalid member rows included); 1 with the reason on unusable
input (bad guides, a missing column, an unreadable file) or an output that cannot be
written (one ``error: <path>: ...`` line, never a traceback); 2 on a usage error; 130 when
interrupted (Ctrl-C) and 143 on SIGTERM, the previous output left as it was; 1, with
nothing more printed, when what it prints is no longer read (a broken pipe, ``| head``).
Text printed from files has its control characters replaced.
"""

from __future__ import annotations

import os
import sys

# When numpy is imported, OpenBLAS starts a thread per processor, and each spins waiting
# for work: 0.08-0.1 s of CPU, as much again as the rest of a command's start on a 2-core
# machine, and taken from the batch's first pass, which runs while the engine is imported.
# No command multiplies matrices large enough to share (the largest: a grid of interest
# rates by ages). A value the user set is kept.
if "numpy" not in sys.modules:
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import contextlib
import csv
import datetime as dt
import functools
import io
import json
import math
import re
import signal
import warnings
from pathlib import Path

import click

from actuarial import __version__, shipped
from actuarial.__main__ import interrupted
from actuarial.annuities import MAX_PAYMENTS_PER_YEAR, AnnuityError, check_interest
from actuarial.guides import (
    DEFAULT_SERIES,
    GUIDE_FILE_LIMITS,
    SHIPPED_GUIDES,
    GuideError,
    Problem,
    guides_held,
    guides_to_read,
    holds_guide,
    load_every_guide,
    load_guide,
    load_guides,
    named_folder,
)
from actuarial.law.conditions import render
from actuarial.law.parameters import Law, LawError, LawNote, load_law, shipped_law
from actuarial.law.readings import (
    INTERPRETATIONS,
    Readings,
    later_minimums_text,
    values_today,
)
from actuarial.member_record import (
    DATE_RANGE,
    DATE_RANGE_RULE,
    DATE_YEARS,
    DEFAULT_CHUNK_ROWS,
    GROUPS,
    MEMBER_FIELDS,
    MemberDataError,
    MemberFileError,
)
from actuarial.output_files import (
    EMPTY_PATH,
    OutputExistsError,
    OutputFailed,
    OutputFileError,
    cannot_write,
    check_output,
    writing,
)
from actuarial.shown_text import (
    as_given,
    json_printable,
    labelled,
    one_line,
    printable,
    quoted,
    show_factors,
    show_percent,
    show_rate,
    toml_text,
)
from actuarial.text_files import decimal_number, whole_number

__all__ = ["cli"]

USABLE_INPUT_ERRORS = (GuideError, LawError, MemberFileError, MemberDataError, OutputFileError)
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def _date(_context, _parameter, value):
    """A date option: ``YYYY-MM-DD`` only (not 20160301, not 2016-W09-2), within DATE_RANGE."""
    if value is None:
        return None
    try:
        if not _ISO_DATE.fullmatch(value):
            raise ValueError(value)
        day = dt.date.fromisoformat(value)
    except ValueError as error:
        raise click.BadParameter(f"must be a date YYYY-MM-DD (got {as_given(value)})") from error
    if not DATE_RANGE[0] <= day <= DATE_RANGE[1]:
        raise click.BadParameter(f"{DATE_RANGE_RULE} (got {as_given(value)})")
    return day


def _echo(text="", err: bool = False) -> None:
    """Print text that may come from a file: control characters replaced."""
    _print(printable(text), err)


def _print(text: str, err: bool = False) -> None:
    """Print ``text``; a failure to write it (a full disk behind ``> file``) is
    :class:`OutputFailed`, apart from the files a command writes. A reader gone (``| head``)
    is a BrokenPipeError, which click ends quietly."""
    try:
        click.echo(text, err=err)
    except BrokenPipeError:
        raise
    except OSError as error:
        raise OutputFailed("standard error" if err else "standard output", error) from error


def _terminated(_signal, _frame):
    sys.exit(143)  # SystemExit: the run cleans up its temporary file on the way out


def _writing_command(command):
    """A command that writes files: SIGTERM and Ctrl-C clean up and exit 143 / 130; a
    failure of the file system is one ``error:`` line."""

    @functools.wraps(command)
    def wrapper(*args, **kwargs):
        try:
            previous, handled = signal.signal(signal.SIGTERM, _terminated), True
        except ValueError:  # not the main thread: SIGTERM keeps its handler
            previous, handled = None, False
        try:
            return command(*args, **kwargs)
        except KeyboardInterrupt:
            interrupted()
        except BrokenPipeError:  # what it prints is no longer read (`| head`): not the files'
            raise  # failure; click ends quietly with 1, as for every command
        except OSError as error:
            _fail(cannot_write(error.filename or "file system", error))
        finally:
            if handled:
                signal.signal(signal.SIGTERM, previous or signal.SIG_DFL)

    return wrapper


class _Path(click.Path):
    """click's Path without the empty path, which ``Path("")`` reads as the current folder:
    ``--out ""`` would replace it, ``--guides ""`` read it."""

    def convert(self, value, param, ctx):
        if value == "":
            self.fail(f"{EMPTY_PATH}.", param, ctx)  # worded as in Python (EmptyPathError)
        return super().convert(value, param, ctx)


class _PlainNumbers:
    """What click's number ranges of numbers as files hold them share: no range stated
    without bounds (click's help said ``x<=None``), and the range a refused text is not in."""

    def _describe_range(self) -> str:
        return "" if (self.min, self.max) == (None, None) else super()._describe_range()

    def _refuse(self, value: str, rule: str, param, ctx):
        bounds = self._describe_range()
        where = f" in the range {bounds}" if bounds else ""
        self.fail(f"{quoted(value)} {rule}{where}.", param, ctx)


class _WholeRange(_PlainNumbers, click.IntRange):
    """click's IntRange of whole numbers as files hold them (``text_files.whole_number``:
    ASCII digits, an optional sign): not ``1_2`` nor Arabic-Indic digits, which int()
    reads. No bounds: any such number (shown as INTEGER in the help)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if (self.min, self.max) == (None, None):
            self.name = "integer"

    def convert(self, value, param, ctx):
        if isinstance(value, str):
            number = whole_number(value)
            if number is None:
                self._refuse(value, "is not a whole number", param, ctx)
            value = number
        return super().convert(value, param, ctx)


class _NumberRange(_PlainNumbers, click.FloatRange):
    """click's FloatRange of plain decimal numbers (``text_files.decimal_number``, as files'
    numbers are read): not what only Python's float() reads (``0.5_0``, ``inf``, ``nan``,
    which FloatRange lets through: nan is outside no bound). No bounds: any such number.
    A number beyond a float (``1e400``) is refused as written, not as ``inf``; ``-0`` is 0
    (never ``-0.0`` in the readings written, nor ``-0%`` shown)."""

    def convert(self, value, param, ctx):
        if isinstance(value, str):
            number = decimal_number(value)
            if number is None:
                self._refuse(value, "is not a decimal number", param, ctx)
            if not math.isfinite(number):
                rule = "is not" if self._describe_range() else "is beyond a float's range"
                self._refuse(value, rule, param, ctx)
        return super().convert(value, param, ctx) + 0.0  # -0.0 + 0.0 is 0.0


def _reading_option(item, defaults: Readings, values: dict, fields: dict):
    """The click option of one reading switch, from its declaration in INTERPRETATIONS; its
    help rendered from the law's ``values`` and the readings' ``fields``."""
    switch = item.cli
    default = getattr(defaults, item.switch)
    text = render(switch.help, values, **fields)
    if "/" in switch.option:
        return click.option(
            switch.option, item.switch, default=default, show_default=True, help=text
        )
    if switch.choices is not None:
        kind = click.Choice(switch.choices)
    else:
        kind = _NumberRange(*switch.range)
    return click.option(
        switch.option, item.switch, type=kind, default=default, show_default=True, help=text
    )


def reading_options(command):
    """The switches of the readings, generated from :data:`INTERPRETATIONS`."""
    switches = [item for item in INTERPRETATIONS if item.switch is not None]

    @functools.wraps(command)
    def wrapper(*args, **kwargs):
        kwargs["readings"] = Readings(**{item.switch: kwargs.pop(item.switch) for item in switches})
        return command(*args, **kwargs)

    defaults = Readings()
    values, later = values_today()  # the shipped law's: help is written before --law is read
    fields = {**defaults.as_dict(), "later_minimums": later_minimums_text("en", later)}
    for item in reversed(switches):
        wrapper = _reading_option(item, defaults, values, fields)(wrapper)
    return wrapper


def law_options(command):
    """``--law FILE`` (repeatable) and ``--as-of YYYY-MM-DD``."""
    command = click.option(
        "--as-of",
        callback=_date,
        help="The date the results are asked for, YYYY-MM-DD (default: today); each annuity "
        "is paid from the later of it and its start date.",
    )(command)
    return law_file_option(command)


def law_file_option(command):
    """``--law FILE``, repeatable: amendment files applied in order to the shipped law."""
    return click.option(
        "--law",
        "law_files",
        multiple=True,
        type=_Path(path_type=Path),
        help="An amendment file of the law (TOML, the form of the shipped law file); "
        "repeatable, applied in order. (The numbers this help quotes are the shipped law's "
        "today.)",
    )(command)


def guide_options(command):
    command = click.option(
        "--series",
        default=None,
        help=f"Series of guides to use (shipped default: {DEFAULT_SERIES}).",
    )(command)
    return click.option(
        "--guides",
        "guides_path",
        type=_Path(path_type=Path),
        default=None,
        help="A guide folder or a folder of guides (default: the shipped guides).",
    )(command)


def _load(guides_path, series, law=None):
    """The guides of ``--guides`` and ``--series`` (:func:`~actuarial.guides.guides_to_read`),
    their ages those of ``law`` (the law of ``--law``; None: the shipped law)."""
    return load_guides(*guides_to_read(guides_path, series), law=law)


def _fail(error: Exception | str):
    _echo(f"error: {error}", err=True)
    sys.exit(1)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(version=__version__, prog_name="actuarial")
@click.pass_context
def cli(ctx):
    """Chapter 2 annuities of Puerto Rico's Government Employees Retirement System."""
    ctx.with_resource(_notes_printed(LawNote, "law"))


@contextlib.contextmanager
def _notes_printed(note: type[Warning], label: str):
    """While a command (or part of one) runs, each warning of the class ``note`` as a
    ``warning: LABEL: ...`` line on stderr, every time it is given: a :class:`LawNote` of an
    amended law (what in it can never take effect), a ``ValuationNote`` of a valuation (an
    annuity worth nothing on the basis). Other warnings are shown as they were."""
    with warnings.catch_warnings():
        shown = warnings.showwarning

        def show(message, category, *args, **kwargs):
            if issubclass(category, note):
                _echo(f"warning: {label}: {message}", err=True)
            else:
                shown(message, category, *args, **kwargs)

        warnings.showwarning = show
        warnings.simplefilter("always", note)
        yield


@cli.command()
@click.option("--member-id", default="member", show_default=True)
@click.option("--birth-date", required=True, help="YYYY-MM-DD")
@click.option("--entry-date", required=True, help="First entry into the System, YYYY-MM-DD.")
@click.option("--separation-date", required=True, help="YYYY-MM-DD")
@click.option("--service", "credited_service", required=True, help="Credited service, years.")
@click.option(
    "--compensation", "average_compensation", required=True, help="Average compensation, USD/yr."
)
@click.option("--group", type=click.Choice(GROUPS), default="general", show_default=True)
@click.option("--refunded/--no-refund", default=False, show_default=True)
@click.option("--lang", type=click.Choice(["en", "es"]), default="en", show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@law_options
@guide_options
@reading_options
def evaluate(guides_path, series, as_of, law_files, lang, as_json, readings, **member):
    """Every clause for one member, with its explanation."""
    from actuarial.engine import evaluate as evaluate_member

    try:
        law = load_law(*law_files)
        guides = _load(guides_path, series, law)
        result = evaluate_member(member, guides, as_of=as_of, readings=readings, lang=lang, law=law)
    except MemberDataError as error:  # the parser names fields: each with its option here
        _fail(_with_options(str(error), click.get_current_context().command))
    except USABLE_INPUT_ERRORS as error:
        _fail(error)
    if as_json:  # standard JSON: no NaN or Infinity (allow_nan=False would raise on one)
        text = json.dumps(result.as_dict(), indent=2, ensure_ascii=False, allow_nan=False)
        _print(json_printable(text))  # an id or a law file's name may hold a bidi control
    else:
        _echo("\n".join(result.explanation))
        for warning in result.warnings:
            _echo(f"warning: {warning}")


def _with_options(message: str, command: click.Command) -> str:
    """A member parser's ``message`` with each field it names followed by the option of
    ``command`` that gives it: ``'credited_service' (--service)``. A field is named as a
    word of the message, between spaces: not inside an id or a value it quotes."""
    options = {o.name: o.opts[0] for o in command.params if o.name in MEMBER_FIELDS and o.opts}
    named = re.compile(r"(?<!\S)'(" + "|".join(map(re.escape, options)) + r")'(?=[\s)])")
    return named.sub(lambda found: f"{found[0]} ({options[found[1]]})", message)


# glibc's mallopt parameters, and the largest threshold it takes for mmap.
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD, _M_ARENA_MAX, _MMAP_THRESHOLD_MAX = -1, -3, -8, 32 << 20


def _keep_freed_memory() -> None:
    """Ask glibc's malloc to keep the memory a chunk frees for the next chunk instead of
    handing it back to the system, and Arrow to allocate through it: fresh pages are zeroed
    by the kernel when first touched, which took a fifth of a batch's CPU time. At 10^6
    members: 0.3-0.5 s less system time for the arrays (half the page faults), and 0.3 s
    less again with Arrow's buffers from malloc rather than mimalloc (which hands freed
    pages back). No new arena for each thread, so that memory freed by one thread is
    reused by the others: the peak about the same as before (0.57-0.60 GB; 0.73-0.77 GB
    with an arena per thread), the time the same. Two arenas, in fact, not one: importing
    pyarrow already made a second (``malloc_info`` counts 2 before this call), and the
    batch's threads share those two (at 10^5 members, 104 and 61 MiB at the end). This
    process only; not glibc: left as it is."""
    import ctypes

    import pyarrow as pa

    try:
        mallopt = ctypes.CDLL("libc.so.6").mallopt
    except (OSError, AttributeError):
        return  # not glibc: its own allocator, left as it is
    mallopt(_M_MMAP_THRESHOLD, _MMAP_THRESHOLD_MAX)
    mallopt(_M_TRIM_THRESHOLD, 2**31 - 1)
    mallopt(_M_ARENA_MAX, 1)  # no more pools: what one thread frees, another reuses
    pa.set_memory_pool(pa.system_memory_pool())


def member_file_options(command):
    """The member file read and the result file written, for ``batch`` and ``value``."""
    command = click.option(
        "--out",
        "out_path",
        required=True,
        type=_Path(path_type=Path),
        help="Output file, .csv or .parquet.",
    )(command)
    return click.argument("members", type=_Path(path_type=Path))(command)


@cli.command()
@member_file_options
@click.option("--chunk-rows", type=_WholeRange(1), default=DEFAULT_CHUNK_ROWS, show_default=True)
@click.option("--progress/--no-progress", default=True, show_default=True)
@law_options
@guide_options
@reading_options
@_writing_command
def batch(members, out_path, as_of, law_files, chunk_rows, progress, guides_path, series, readings):
    """Evaluate a member file (CSV or Parquet) into OUT, one row per member and clause."""
    from actuarial.member_files import FirstPass, batch_inputs  # Arrow only: no pandas yet

    _keep_freed_memory()
    try:
        law = load_law(*law_files)
        guides = _load(guides_path, series, law)
        check_output(Path(out_path), batch_inputs(members, guides, law))  # before any read
        # The first pass reads the member ids while pandas and the engine are imported.
        with FirstPass.start(members) as first_pass:
            from actuarial.batch import run_batch

            summary = run_batch(
                members,
                guides,
                out_path,
                as_of,
                readings,
                chunk_rows,
                progress,
                law=law,
                first_pass=first_pass,
            )
    except USABLE_INPUT_ERRORS as error:
        _fail(error)
    _echo("\n".join(summary.lines()))
    ids = [g.id for g in guides]
    shown = ", ".join(ids) if len(ids) <= 5 else f"{len(ids):,} guides: {ids[0]} ... {ids[-1]}"
    _echo(f"guides: series '{one_line(guides.series)}' ({shown})")
    _echo(f"readings: {readings.label()}")
    _echo(f"written: {out_path}")


@cli.group()
def guides():
    """Validate, show, derive, compare and fit Actuarial Guides."""


guides_folder_option = click.option(
    "--guides",
    "guides_path",
    type=_Path(path_type=Path),
    default=None,
    help="Folder of guides (default: the shipped guides).",
)


@guides.command("list")
@guides_folder_option
@law_file_option
def guides_list(guides_path, law_files):
    """List the guides (default: the shipped ones): id, series, status, dates in force, title."""
    try:
        found = load_every_guide(guides_path or SHIPPED_GUIDES, load_law(*law_files))
    except (GuideError, LawError) as error:
        _fail(error)
    rows = [("id", "series", "status", "from", "until", "title")] + [
        (
            guide.id,
            # The default series is that of the shipped guides: with --guides, a command
            # takes the folder's only series or needs --series.
            guide.series
            + (" (default)" if guides_path is None and guide.series == DEFAULT_SERIES else ""),
            guide.status,
            str(guide.effective_from),
            str(guide.effective_until or "open end"),
            guide.title,
        )
        for guide in found
    ]
    rows = [[printable(cell, keep_newlines=False) for cell in row] for row in rows]
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]) - 1)]
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)]
        _echo("  ".join([*cells, row[-1]]))


@guides.command("validate")
@click.argument("path", type=_Path(path_type=Path))
@law_file_option
def guides_validate(path, law_files):
    """Check every rule of every guide under PATH; list all problems. Each table must span
    the ages of incisos (c) and (a) in force on its first day: the shipped law's, or those of
    the law with --law."""
    try:
        found = load_every_guide(path, load_law(*law_files))
    except (GuideError, LawError) as error:
        _fail(error)
    for guide in found:
        guide_id = printable(guide.id, keep_newlines=False)  # one line each
        series = printable(guide.series, keep_newlines=False)
        _echo(
            f"ok: {guide_id} (series '{series}', {guide.status}, from "
            f"{guide.effective_from} to {guide.effective_until or 'open end'}, "
            f"{len(guide.factors)} rows, {guide.interpolation})"
        )


# The fields ``guides show`` shows over several lines (the further ones indented) when they
# hold several: free text, as every value of [basis] is; the others (id, title, ...) one line.
SHOWN_OVER_LINES = ("source",)


@guides.command("show")
@click.argument("guide_id")
@guides_folder_option
@law_file_option
def guides_show(guide_id, guides_path, law_files):
    """Print a guide's metadata and its reduction table.

    GUIDE_ID is a guide's id among the guides of --guides, or without --guides a guide
    folder (as compare, fit and subsidy take one) or a shipped guide's id.
    """
    root = Path(guides_path) if guides_path else SHIPPED_GUIDES
    if guides_path is None and holds_guide(Path(guide_id)):  # "." and ".." by their names
        folder = named_folder(Path(guide_id))
        root, guide_id = folder.parent, folder.name
    elif guides_path is None and (several := _folder_of_guides(Path(guide_id))):
        _fail(f"{several}; or name one by its id: --guides {guide_id} ID")
    try:
        if not root.is_dir():
            raise GuideError([Problem(str(root), None, "not a folder of Actuarial Guides")])
        if holds_guide(root):  # one guide's folder: its guides are itself, as list reads it
            guides_there = {named_folder(root).name: root}
        else:
            guides_there = {p.name: p for p in root.iterdir() if holds_guide(p)}
        if guide_id not in guides_there:
            available = sorted(guides_there)
            _fail(f"guide {quoted(guide_id)} not found in {root} (guides: {available})")
        guide = load_guide(guides_there[guide_id], load_law(*law_files))
    except (GuideError, LawError) as error:
        _fail(error)
    except OSError as error:  # a folder that may not be listed
        _fail(f"{error.filename}: cannot read ({error.strerror})")
    for key in (
        "id",
        "series",
        "title",
        "status",
        "adopted_by",
        "adopted_on",
        "effective_from",
        "effective_until",
        "normal_retirement_age",
        "interpolation",
        "source",
    ):
        value = getattr(guide, key)
        if value is not None:
            _echo(labelled(key, value, multiline=key in SHOWN_OVER_LINES))
    for key, value in guide.basis.items():  # as guide.toml writes them; text as it reads
        shown = value if isinstance(value, str) else toml_text(value)
        _echo(labelled(f"basis.{key}", shown, multiline=True))
    # The factors as the engine reads them (show_factors).
    shown = show_factors(guide.factors)
    _echo(guide.table().to_string(index=False, float_format=shown))


def _folder_of_guides(path: Path) -> str | None:
    """What to say of a folder of guides given where one guide is asked for (None when
    ``path`` is none): the guides it holds, and how to name one."""
    try:
        held = guides_held(path)
    except OSError:  # a folder that may not be listed
        return None
    if not held:
        return None
    shown = ", ".join(held[:5]) + (", ..." if len(held) > 5 else "")
    return (
        f"{path}: a folder of guides ({shown}), not one guide's folder: give one of them, "
        f"such as {path / held[0]}"
    )


def _guide(reference: str, law: Law):
    """A guide by folder path, or by id among the shipped guides, read under ``law`` (that of
    ``--law``). A folder here named as a shipped guide is read, and a warning says it is not
    the shipped guide."""
    path = Path(reference)
    if holds_guide(path):
        if len(path.parts) == 1 and holds_guide(SHIPPED_GUIDES / reference):
            _echo(
                f"warning: {printable(reference, keep_newlines=False)}: the guide folder here "
                "is read, not the shipped guide of that id",
                err=True,
            )
        return load_guide(path, law)
    if holds_guide(SHIPPED_GUIDES / reference):
        return load_guide(SHIPPED_GUIDES / reference, law)
    if several := _folder_of_guides(path):
        raise GuideError([Problem(reference, None, several.partition(": ")[2])])
    available = sorted(p.name for p in SHIPPED_GUIDES.iterdir() if holds_guide(p))
    raise GuideError(
        [
            Problem(
                reference,
                None,
                f"no guide folder here and no shipped guide of that id (shipped: {available})",
            )
        ]
    )


MORTALITY_HELP = (
    "Life table: sult, ilt, soa:<id>, csv:<path>; a blend such as soa:3400,soa:3399:0.5; a "
    "join by age such as soa:3398+soa:3400@50 (3400 from age 50); or FEMALE/MALE, the female "
    "first, e.g. soa:3399/soa:3400 (each side may be a blend or a join)."
)


def mortality_options(command):
    """--mortality and what makes it a basis's mortality: improvement, base year, closing,
    and the blend for members of unstated sex."""
    options = [
        click.option("--mortality", required=True, help=MORTALITY_HELP),
        click.option(
            "--improvement",
            default=None,
            help="Generational improvement: mp-2014 ... mp-2020 (by sex) or csv:<path> "
            "(age x calendar year). Default: none.",
        ),
        click.option(
            "--base-year",
            type=_WholeRange(*DATE_YEARS),
            default=None,
            help="Year of the base rates, for tables whose metadata does not give it.",
        ),
        click.option(
            "--close-at",
            type=_WholeRange(),
            default=None,
            help="Close a table that does not run out by q = 1 at this age (explicitly); a "
            "table that runs out already is refused (of FEMALE/MALE, left as it is beside a "
            "side closed).",
        ),
        click.option(
            "--female-weight",
            type=_NumberRange(0, 1),
            default=0.5,
            show_default=True,
            help="For a FEMALE/MALE spec: the female share of q for members of unstated sex.",
        ),
    ]

    @functools.wraps(command)
    def wrapper(*args, **kwargs):
        kwargs["mortality"] = _mortality(
            kwargs.pop("mortality"),
            kwargs.pop("improvement"),
            kwargs.pop("base_year"),
            kwargs.pop("close_at"),
            kwargs.pop("female_weight"),
        )
        return command(*args, **kwargs)

    for option in reversed(options):
        wrapper = option(wrapper)
    return wrapper


def _mortality(spec, improvement, base_year, close_at, female_weight):
    from actuarial.generational import Mortality
    from actuarial.mortality import MortalityError

    try:
        return Mortality(spec, improvement, base_year, female_weight, close_at)
    except MortalityError as error:
        # The message names the piece at fault: a table, the scale, or how they go together;
        # the hint, the scale's option when given, and each other option given it names.
        given = (improvement, base_year, close_at, female_weight)
        values = dict(zip(_BASIS_OPTIONS, given, strict=True))
        hint = ["--mortality"] + [
            option
            for field, option in _BASIS_OPTIONS.items()
            if values[field] is not None and (field == "improvement" or f"'{field}'" in str(error))
        ]
        raise click.BadParameter(str(error), param_hint=hint) from error


# The fields of a mortality basis set by an option besides --mortality, as messages name them.
_BASIS_OPTIONS = {
    "improvement": "--improvement",
    "base_year": "--base-year",
    "close_at": "--close-at",
    "female_weight": "--female-weight",
}


def _cohort_of(mortality, cohort):
    """The cohort a generational basis needs (a usage error without it), and only it: on a
    static table a cohort would change nothing, and is refused rather than ignored."""
    if mortality.generational and cohort is None:
        raise click.UsageError("--improvement needs --cohort (the year of birth) here")
    if not mortality.generational and cohort is not None:
        raise click.UsageError(
            "--cohort is the year of birth on a generational basis: it needs --improvement"
        )
    return cohort


cohort_option = click.option(
    "--cohort",
    type=_WholeRange(*DATE_YEARS),
    default=None,
    help="Year of birth of the members, on a generational basis (--improvement).",
)


# A rate of 100% a year or more is legal (finite, > -1) but is more likely a percent typed as
# a rate (4.5 for 4.5%): it is read as given, with a warning.
IMPLAUSIBLE_RATE = 1.0


def _interest_rate(ctx, param, value):
    """--interest, checked by the rule of the annuities (finite, > -1) before anything runs;
    a rate of :data:`IMPLAUSIBLE_RATE` (100% a year) or more is warned of on stderr, as read:
    a rate, not a percent."""
    try:
        check_interest(value)
    except AnnuityError as error:
        raise click.BadParameter(str(error)) from None
    if value >= IMPLAUSIBLE_RATE:
        _echo(
            f"warning: --interest {show_rate(value)} is read as a rate: {show_percent(value)} a "
            "year (0.045 = 4.5%)",
            err=True,
        )
    return value


interest_option = click.option(
    "--interest",
    type=_NumberRange(),
    required=True,
    callback=_interest_rate,
    help="Annual effective rate, e.g. 0.045 for 4.5% (1 or more, 100% a year or more, runs "
    "with a warning).",
)
payments_option = click.option(
    "--payments-per-year",
    "m",
    type=_WholeRange(1, MAX_PAYMENTS_PER_YEAR),
    default=12,
    show_default=True,
)

# How the m-thly annuities are valued: one option for derive and for the reviews of a guide,
# so that a guide derived with a method can be fitted and priced on it.
method_option = click.option(
    "--method",
    type=click.Choice(["udd", "constant-force", "woolhouse2", "woolhouse3"]),
    default="udd",
    show_default=True,
    help="Fractional ages (udd, constant-force) or Woolhouse's approximation.",
)


@guides.command("derive")
@mortality_options
@cohort_option
@interest_option
@click.option(
    "--out",
    "out_path",
    required=True,
    type=_Path(path_type=Path),
    help="Guide folder to write (its name is the guide id).",
)
@click.option(
    "--effective-from",
    callback=_date,
    default=str(shipped_law().first_date()),
    show_default=True,
)
@click.option("--effective-until", callback=_date, default=None)
@click.option("--series", default=None, help="Series of the guide (default: its id).")
@click.option("--title", default=None)
@payments_option
@method_option
@click.option("--force", is_flag=True, help="Replace the guide in OUT if it holds one.")
@law_file_option
@_writing_command
def guides_derive(
    mortality,
    cohort,
    interest,
    out_path,
    effective_from,
    effective_until,
    series,
    title,
    m,
    method,
    force,
    law_files,
):
    """Write a complete guide derived by actuarial equivalence (every month of inciso (c),
    from its age to that of (a) on --effective-from: the shipped law's, or with --law that
    law's)."""
    from actuarial.dates import format_age
    from actuarial.equivalence import (
        EquivalenceError,
        derive_guide,
        guide_already_in,
        guide_folder,
    )
    from actuarial.mortality import MortalityError

    cohort = _cohort_of(mortality, cohort)
    try:  # the guide's files may not replace a file its mortality read, checked before deriving
        law = load_law(*law_files)
        out_path = guide_folder(out_path)  # "." as the folder it is: its name is the id
        check_output(out_path, kind="folder")
        for name in GUIDE_FILE_LIMITS:  # a guide's files
            check_output(out_path / name, [*mortality.files, *law.paths[1:]])
        if not force and (already := guide_already_in(out_path)):
            _fail(already)
    except (EquivalenceError, LawError, OutputFileError) as error:
        _fail(error)
    guide_id = out_path.name
    born = f", born {cohort}" if mortality.generational else ""
    if title is None:  # an empty --title is refused by the guide's rules, never replaced
        title = (
            f"Reduction factors by actuarial equivalence: {mortality.describe()}{born}, "
            f"{show_percent(interest)}, m = {m}"
        )
    try:
        derive_guide(
            out_path,
            mortality,
            interest,
            cohort=cohort,
            guide_id=guide_id,
            series=guide_id if series is None else series,
            title=title,
            effective_from=effective_from,
            effective_until=effective_until,
            m=m,
            method=method,
            replace=force,
            law=law,
        )
        guide = load_guide(out_path, law)
    except (EquivalenceError, GuideError, MortalityError, OutputFileError, ValueError) as error:
        _fail(error)
    span = guide.span
    middle = (span.first + span.last) // 24 * 12  # a whole year of age halfway: 60y0m from 55
    _echo(
        f"written: {out_path} ({len(guide.factors)} rows; factor at {span.first_label} "
        f"{guide.factors[0]:.6f}, at {format_age(middle)} {guide.factor(middle).item():.6f})"
    )


def _six_decimals(value) -> str:
    """A factor or a difference as the review commands print it: 6 decimals, never -0.000000
    (a deviation of -3e-7, the rounding of a derived guide)."""
    return f"{value:z.6f}"


@guides.command("compare")
@click.argument("guide_a")
@click.argument("guide_b")
@click.option("--top", type=_WholeRange(1), default=None, help="Show only the largest N.")
@law_file_option
def guides_compare(guide_a, guide_b, top, law_files):
    """Two guides side by side at every month of inciso (c) both cover, largest differences
    first."""
    import numpy as np

    from actuarial.dates import format_age
    from actuarial.equivalence import compare_factors

    try:
        law = load_law(*law_files)  # read once, for both guides
        first, second = _guide(guide_a, law), _guide(guide_b, law)
    except (GuideError, LawError) as error:
        _fail(error)
    names = (first.id, second.id)
    if first.id == second.id:  # a copy of a guide against it: named by their folders
        names = tuple(printable(str(guide.path), keep_newlines=False) for guide in (first, second))
    # Every month where both guides have factors: each spans the ages of inciso (c) as the
    # law stood on its first day (guides.span_on), which a change of law may make differ.
    spans = [guide.span for guide in (first, second)]
    low, high = max(span.first for span in spans), min(span.last for span in spans)
    covers = [span.label for span in spans]
    if low > high:
        _fail(f"no month is in both guides: {names[0]} covers {covers[0]}, {names[1]} {covers[1]}")
    months = np.arange(low, high + 1)
    table = compare_factors(months, first.factor(months), second.factor(months))
    # A guide is its column, named by its id: "guide <id>" where the id is another column's
    # name (a guide named difference or age_years would make two columns of one name).
    others = set(table.columns) - {"factor_a", "factor_b"}
    names = tuple(f"guide {name}" if name in others else name for name in names)
    table = table.rename(columns={"factor_a": names[0], "factor_b": names[1]})
    _echo(f"difference = {names[0]} - {names[1]}")
    if spans[0] != spans[1]:
        _echo(
            f"compared from {format_age(low)} to {format_age(high)}, the months both guides "
            f"cover ({names[0]}: {covers[0]}; {names[1]}: {covers[1]})"
        )
    shown = table.head(top) if top else table
    # Every digit either guide's factors hold, as guides show prints them: a difference
    # beyond 6 decimals is not printed as 0.
    digits = show_factors(np.concatenate([first.factors, second.factors]))
    _echo(shown.to_string(index=False, float_format=digits))


@guides.command("fit")
@click.argument("guide")
@mortality_options
@cohort_option
@payments_option
@method_option
@click.option(
    "--top",
    type=_WholeRange(1),
    default=10,
    show_default=True,
    help="Ages shown where the guide departs most from equivalence.",
)
@law_file_option
def guides_fit(guide, mortality, cohort, m, method, top, law_files):
    """The interest rate that best reproduces a guide under a life table, and where it departs.

    Fitted twice: on the guide file's rows, and on every month of its table that the
    engine reads (a monthly-linear guide expanded to its 121 monthly factors); the row of the
    normal retirement age (a factor of 1 by definition) is not fitted, and not counted.
    """
    import numpy as np

    from actuarial.dates import format_age
    from actuarial.equivalence import EquivalenceError, fit_interest
    from actuarial.mortality import MortalityError
    from actuarial.pages import format_count

    cohort = _cohort_of(mortality, cohort)
    try:
        found = _guide(guide, load_law(*law_files))
        nra = found.normal_retirement_age
        on_rows = fit_interest(
            mortality, found.age_months, found.factors, nra, m, method, cohort=cohort
        )
        months = np.arange(found.span.first, nra * 12 + 1)
        on_months = fit_interest(
            mortality, months, found.factor(months), nra, m, method, cohort=cohort
        )
    except (GuideError, LawError, MortalityError, EquivalenceError) as error:
        _fail(error)
    born = f"; born {cohort}" if mortality.generational else ""
    _echo(
        f"guide: {found.id}; {mortality.describe()}{born}; payments per year: {m}; method {method}"
    )
    below = f"below {format_age(nra * 12)}"  # the rows fitted: at that age the factor is 1
    for label, fit in (
        (f"on the guide file's {format_count(len(on_rows.deviations), 'row')} {below}", on_rows),
        (
            f"on every month the engine reads ({len(on_months.deviations)} {below}, "
            f"{found.interpolation})",
            on_months,
        ),
    ):
        low, high = fit.bounds
        fits = f"rmse {fit.rmse:.6f}; largest deviation {fit.max_abs_deviation:.6f}"
        if fit.beyond is None:
            _echo(f"implied interest rate {label}: {fit.interest:.4%}; {fits}")
        else:
            lowest = "lowest" if fit.beyond == "below" else "highest"
            _echo(
                f"implied interest rate {label}: {fit.beyond} {fit.interest:.4%}, the {lowest} "
                f"rate searched ({low:.4%} to {high:.4%}): the guide fits no rate searched; "
                f"at {fit.interest:.4%}: {fits}"
            )
    worst = on_months.deviations.reindex(
        on_months.deviations["difference"].abs().sort_values(ascending=False).index
    ).head(top)
    _echo("months where the guide departs most from equivalence (guide - equivalent):")
    _echo(worst.to_string(index=False, float_format=_six_decimals))


@guides.command("subsidy")
@click.argument("guide")
@mortality_options
@cohort_option
@interest_option
@payments_option
@method_option
@law_file_option
def guides_subsidy(guide, mortality, cohort, interest, m, method, law_files):
    """By age: how far a guide's factor exceeds the equivalent one, and its present value."""
    from actuarial.equivalence import EquivalenceError, subsidy
    from actuarial.mortality import MortalityError

    cohort = _cohort_of(mortality, cohort)
    try:
        found = _guide(guide, load_law(*law_files))
        table = subsidy(
            mortality,
            found.age_months,
            found.factors,
            interest,
            found.normal_retirement_age,
            m,
            method,
            cohort=cohort,
        )
    except (GuideError, LawError, MortalityError, EquivalenceError) as error:
        _fail(error)
    born = f"; born {cohort}" if mortality.generational else ""
    _echo(
        f"guide: {found.id}; {mortality.describe()}{born}; interest {show_percent(interest)}; "
        f"payments per year: {m}; method {method}; per $1 a year of normal-retirement "
        "annuity, present value at the retirement age"
    )
    _echo(table.to_string(index=False, float_format=_six_decimals))


@cli.command()
@click.option(
    "--members",
    "members_path",
    type=_Path(path_type=Path),
    default=None,
    help="Member file, CSV or Parquet (default: the sample shipped in the package, which "
    "`actuarial examples members` writes out).",
)
@click.option(
    "--out",
    "out_dir",
    required=True,
    type=_Path(path_type=Path),
    help="Folder for index.html and one page per notebook.",
)
@click.option("--progress/--no-progress", default=True, show_default=True)
@law_options
@guide_options
@reading_options
@_writing_command
def report(members_path, out_dir, as_of, law_files, progress, guides_path, series, readings):
    """Run every notebook on these inputs and render them to HTML with their provenance
    (as many notebooks at once as there are processors).

    --out must be a new or empty folder, or one holding a previous report (replaced whole
    once the new one is written)."""
    _require_extra("report")
    from actuarial.report import ReportError, build_report

    try:
        index = build_report(
            out_dir,
            guides_path,
            series,
            members_path,
            progress=progress,
            readings=readings,
            as_of=as_of,
            law_files=law_files,
        )
    except (*USABLE_INPUT_ERRORS, ReportError) as error:
        _fail(error)
    _echo(f"report: {index}")


@cli.command()
@member_file_options
@mortality_options
@interest_option
@click.option(
    "--sensitivities/--no-sensitivities",
    default=True,
    show_default=True,
    help="Interest +-1pp, q x 0.9 and x 1.1, and each shipped guide series.",
)
@law_options
@guide_options
@reading_options
@_writing_command
def value(
    members,
    out_path,
    mortality,
    interest,
    sensitivities,
    as_of,
    law_files,
    guides_path,
    series,
    readings,
):
    """Present values at separation of every clause (batch rows plus pv_at_separation and,
    for (b) and (c), value_over_deferred), with totals, subsidy and sensitivities."""
    from actuarial.law import law_provenance
    from actuarial.mortality import MortalityError
    from actuarial.valuation import Basis, ValuationError, ValuationNote, run_valuation

    try:
        basis = Basis(mortality, interest)
        law = load_law(*law_files)
        guides = _load(guides_path, series, law)
        with _notes_printed(ValuationNote, "valuation"):
            summary = run_valuation(
                members,
                guides,
                basis,
                out_path,
                as_of,
                readings,
                with_sensitivities=sensitivities,
                law=law,
            )
    except (*USABLE_INPUT_ERRORS, MortalityError, ValuationError) as error:
        _fail(error)
    _echo(f"basis: {basis.describe()}")
    _echo("\n".join(summary.lines()))
    provenance = law_provenance(law, as_of)
    _echo(f"as of: {provenance['as_of']} (the schedules value each payment when it falls)")
    _echo("\n".join(f"law: {f['file']} sha256 {f['sha256']}" for f in provenance["law"]))
    _echo(f"guides: series '{one_line(guides.series)}' ({', '.join(g.id for g in guides)})")
    _echo(f"readings: {readings.label()}")
    _echo(f"written: {out_path}")


def _require_extra(extra: str) -> None:
    """Exit 1 with one line naming the install command when ``actuarial[extra]`` is missing."""
    from actuarial.distribution import missing_from_extra

    missing = missing_from_extra(extra)
    if missing:
        _fail(
            f"this command needs the [{extra}] extra (missing: {', '.join(missing)}); "
            f'install it with: pip install "actuarial[{extra}]"'
        )


@cli.group()
def examples():
    """Write the files the package ships as examples (to try every command without a checkout)."""


def _example_command(name: str, source: Path, described: str, detail=lambda data: ""):
    """``actuarial examples NAME``: write the shipped example ``source`` to ``--out``;
    ``detail(data)``: what the line that names the file written adds."""

    @examples.command(name, help=f"Write {described}.")
    @click.option(
        "--out",
        "out_path",
        type=_Path(path_type=Path),
        default=Path(source.name),
        show_default=True,
        help="File to write.",
    )
    @click.option("--force", is_flag=True, help="Replace OUT if it exists.")
    @_writing_command
    def write_example(out_path, force):
        if out_path.exists() and out_path.resolve() == source.resolve():
            _fail(f"{out_path} is the shipped example itself; choose another --out")
        try:  # a folder, a device, a parent that is a file: said as batch says it
            check_output(out_path, [source])
        except OutputFileError as error:
            _fail(error)
        if out_path.suffix.lower() != source.suffix:  # the bytes are of the source's format
            got = repr(out_path.suffix) if out_path.suffix else "'no extension'"
            _fail(
                f"{out_path}: the example is a {source.suffix} file: --out must end in "
                f"{source.suffix} (got {got})"
            )
        data = source.read_bytes()
        try:  # complete or not at all; without --force never over a file, even a new one
            with writing(out_path, [source], replace=force) as partial:
                partial.write_bytes(data)
        except OutputExistsError:
            _fail(f"{out_path} exists; use --force to replace it")
        except OutputFileError as error:
            _fail(error)
        _print(f"written: {out_path}{detail(data)}")

    return write_example


def _members_in(data: bytes) -> str:
    """`` (N members)``: the rows of a member file's text but its header."""
    members = sum(1 for _ in csv.reader(io.StringIO(data.decode("utf-8"), newline=""))) - 1
    return f" ({members} members)"


examples_members = _example_command(
    "members",
    shipped.EXAMPLE_MEMBERS,
    "the sample member file (synthetic members, CSV) for `batch`, `value` and `report`",
    _members_in,
)
examples_bill = _example_command(
    "bill",
    shipped.EXAMPLE_BILL,
    "the example amendment of the law (a hypothetical bill, TOML) for `--law`",
)
