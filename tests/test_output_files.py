"""Output files: never over an input, never half-written or mixed, nothing left behind.

Tests run as root here, so permissions cannot refuse a write: failures of the file system
are injected (an ``OSError`` raised where the system would raise it).
"""

from __future__ import annotations

import dataclasses
import errno
import fcntl
import importlib
import inspect
import os
import pkgutil
import re
import shutil
import signal
import socket
import stat
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from conftest import (
    HALF_PERCENT_GUIDE,
    VALID_MEMBER,
    folder_files,
    holds_input,
    refused_as_input,
    write_files,
)

import actuarial
from actuarial import output_files, shipped
from actuarial.batch import run_batch
from actuarial.cli import cli
from actuarial.members import parse_members
from actuarial.output_files import (
    TEMPORARY_MARK,
    EmptyPathError,
    OutputExistsError,
    OutputFileError,
    check_output,
    check_output_folder,
    package_folder_holding,
    remove_stale_temporaries,
    temporary_files,
    writing,
    writing_folder,
)
from actuarial.synthetic import generate_members

SAMPLE = Path("examples/members.csv").resolve()
ACTUARIAL = [sys.executable, "-m", "actuarial"]


def names(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.iterdir())


def run(members, guides, out, **options):
    return run_batch(members, guides, out, progress=False, **options)


# ------------------------------------------------------------ the output is never an input
def _same_path(folder, source):
    return source


def _dotted_path(folder, source):
    return folder / "." / source.name


def _symlink(folder, source):
    (folder / "link.csv").symlink_to(source)
    return folder / "link.csv"


def _relative_symlink(folder, source):
    (folder / "sub").mkdir()
    (folder / "sub" / "link.csv").symlink_to(Path("..") / source.name)
    return folder / "sub" / "link.csv"


def _symlink_chain(folder, source):
    (folder / "one.csv").symlink_to(source)
    (folder / "two.csv").symlink_to(folder / "one.csv")
    return folder / "two.csv"


def _hard_link(folder, source):
    os.link(source, folder / "hard.csv")
    return folder / "hard.csv"


@pytest.mark.parametrize(
    "make_out",
    [_same_path, _dotted_path, _symlink, _relative_symlink, _symlink_chain, _hard_link],
)
def test_an_output_that_is_the_input_is_refused_before_reading_it(
    half_percent_guides, tmp_path, make_out
):
    source = tmp_path / "members.csv"
    # Not a member file at all: reading it would fail with another message.
    source.write_bytes(b"\x00\xff not a member file")
    before = source.read_bytes()
    out = make_out(tmp_path, source)
    with pytest.raises(OutputFileError, match="the output is the input") as raised:
        run(source, half_percent_guides, out)
    assert str(raised.value).startswith(f"{out}: ")
    assert source.read_bytes() == before
    assert not any(TEMPORARY_MARK in name for name in names(tmp_path))


def test_an_output_that_is_the_parquet_input_is_refused(half_percent_guides, tmp_path):
    source = tmp_path / "members.parquet"
    pd.read_csv(SAMPLE, dtype=str).to_parquet(source)
    before = source.read_bytes()
    (tmp_path / "link.parquet").symlink_to(source)
    for out in (source, tmp_path / "link.parquet"):
        with pytest.raises(OutputFileError, match="the output is the input"):
            run(source, half_percent_guides, out)
    assert source.read_bytes() == before


def test_an_output_that_is_a_guide_file_is_refused(make_guide, tmp_path):
    from actuarial.guides import load_guides

    folder = make_guide()
    guides = load_guides(folder)
    table = folder / "reduction.csv"
    before = table.read_bytes()
    with pytest.raises(OutputFileError, match="the output is the input"):
        run(SAMPLE, guides, table)
    assert table.read_bytes() == before


def test_cli_refuses_to_replace_the_member_file(tmp_path):
    source = tmp_path / "m.csv"
    shutil.copy(SAMPLE, source)
    before = source.read_bytes()
    done = subprocess.run(
        [*ACTUARIAL, "batch", str(source), "--out", str(source)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert done.returncode == 1
    assert done.stderr == refused_as_input(source)
    assert source.read_bytes() == before


# --------------------------------------------------- failures: one line naming the path
def test_an_output_folder_is_refused(half_percent_guides, tmp_path):
    out = tmp_path / "out.csv"
    out.mkdir()
    message = f"{out}: the output is a folder; a file is expected"
    with pytest.raises(OutputFileError, match="^" + message + "$"):
        run(SAMPLE, half_percent_guides, out)


def special_file(path: Path, kind: str) -> None:
    """A named pipe or a socket at ``path``: neither needs root."""
    if kind == "a named pipe":
        os.mkfifo(path)
    else:
        listening = socket.socket(socket.AF_UNIX)
        listening.bind(str(path))
        listening.close()  # the socket file stays


@pytest.mark.parametrize("kind", ["a named pipe", "a socket"])
@pytest.mark.parametrize("replace", [True, False])
def test_an_output_that_is_a_pipe_or_a_socket_is_refused_and_left_as_it_is(tmp_path, kind, replace):
    out = tmp_path / "out.csv"
    special_file(out, kind)
    message = f"{out}: the output is {kind}, not a file; refused: it would be replaced by one"
    with pytest.raises(OutputFileError, match=f"^{message}$"), writing(out, replace=replace):
        pytest.fail("the block ran")
    assert stat.S_ISFIFO(out.lstat().st_mode) or stat.S_ISSOCK(out.lstat().st_mode)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["out.csv"]


def test_a_device_as_the_output_is_refused_before_anything_is_written():
    message = "/dev/null: the output is a character device, not a file; refused: it would be "
    with pytest.raises(OutputFileError, match=f"^{message}replaced by one$"):
        check_output(Path("/dev/null"))


def test_cli_refuses_a_pipe_as_any_output_even_with_force(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    special_file(tmp_path / "members.csv", "a named pipe")
    (tmp_path / "guide").mkdir()
    special_file(tmp_path / "guide" / "reduction.csv", "a named pipe")
    for arguments, out in (
        (["examples", "members", "--force"], "members.csv"),
        (["batch", SAMPLE, "--out", "members.csv"], "members.csv"),
        (["guides", "derive", "--mortality", "sult", "--interest", "0.05", "--out", "guide"],
         "guide/reduction.csv"),
    ):  # fmt: skip
        result = CliRunner().invoke(cli, [str(arg) for arg in arguments], catch_exceptions=False)
        assert result.exit_code == 1
        assert result.output == (
            f"error: {out}: the output is a named pipe, not a file; refused: it would be "
            "replaced by one\n"
        )
    assert stat.S_ISFIFO((tmp_path / "members.csv").lstat().st_mode)
    assert stat.S_ISFIFO((tmp_path / "guide" / "reduction.csv").lstat().st_mode)


def test_the_package_and_its_shipped_folders_hold_their_files_and_only_theirs(tmp_path):
    package = Path(actuarial.__file__).resolve().parent
    assert package_folder_holding(package / "law" / "law.toml") == package
    for name in shipped.FOLDERS:
        folder = shipped.folder(name)
        assert package_folder_holding(folder / "new" / "file.csv") == folder
    (tmp_path / "link").symlink_to(shipped.GUIDES)  # a link into them is followed
    assert package_folder_holding(tmp_path / "link" / "x.csv") == shipped.GUIDES
    assert package_folder_holding(tmp_path / "x.csv") is None
    assert package_folder_holding(package.parent / "elsewhere.csv") is None


@pytest.mark.parametrize(
    ("arguments", "out"),
    [
        (["examples", "members", "--force", "--out"], shipped.GUIDES / "zz-output.csv"),
        (["examples", "members", "--force", "--out"], shipped.GUIDES / "sult-5pct-monthly"
         / "reduction.csv"),
        (["guides", "derive", "--mortality", "sult", "--interest", "0.07", "--out"],
         shipped.GUIDES / "sult-5pct-monthly"),
        (["batch", SAMPLE, "--out"], shipped.DOCS / "zz-output.csv"),
        (["value", SAMPLE, "--mortality", "sult", "--interest", "0.05", "--no-sensitivities",
          "--out"], shipped.NOTEBOOKS / "zz-output.parquet"),
        (["report", "--no-progress", "--out"], shipped.EXAMPLES / "zz-report"),
        (["examples", "bill", "--force", "--out"],
         Path(actuarial.__file__).resolve().parent / "law" / "law.toml"),
    ],
    ids=["new-file", "guide-file", "guide", "batch", "value", "report", "law"],
)  # fmt: skip
def test_no_command_writes_into_the_package_or_its_shipped_folders(arguments, out):
    before = {path: path.stat().st_mtime_ns for path in out.parent.rglob("*")}
    result = CliRunner().invoke(cli, [*map(str, arguments), str(out)])
    holder = package_folder_holding(out)
    assert result.exit_code == 1, result.output
    assert result.output.endswith(
        f": the output is inside the package's own files ({holder}); refused: they are never "
        "replaced or added to\n"
    )
    assert {path: path.stat().st_mtime_ns for path in out.parent.rglob("*")} == before


@pytest.mark.parametrize("depth", [1, 2])
def test_an_output_whose_parent_is_a_file_is_refused(half_percent_guides, tmp_path, depth):
    (tmp_path / "plain").write_text("x")
    out = tmp_path / "plain" / ("sub/" * (depth - 1)) / "out.csv"
    with pytest.raises(OutputFileError) as raised:
        run(SAMPLE, half_percent_guides, out)
    assert str(raised.value) == f"{out}: cannot write ({tmp_path / 'plain'} is not a folder)"


@pytest.mark.parametrize(
    ("code", "reason"),
    [
        (errno.EACCES, "Permission denied"),
        (errno.EROFS, "Read-only file system"),
        (errno.ENOSPC, "No space left on device"),
        (errno.EDQUOT, "Disk quota exceeded"),
    ],
)
@pytest.mark.parametrize("where", ["create", "rename"])
def test_a_refusal_of_the_file_system_is_one_line_naming_the_output(
    half_percent_guides, tmp_path, monkeypatch, code, reason, where
):
    out = tmp_path / "out.csv"
    out.write_text("previous\n")
    real_open, real_replace = os.open, os.replace

    def refusing_open(path, flags, *args):
        if TEMPORARY_MARK in str(path) and flags & os.O_CREAT:
            raise OSError(code, os.strerror(code), str(path))
        return real_open(path, flags, *args)

    def refusing_replace(source, target):
        raise OSError(code, os.strerror(code), str(source))

    if where == "create":
        monkeypatch.setattr(output_files.os, "open", refusing_open)
    else:
        monkeypatch.setattr(output_files.os, "replace", refusing_replace)
    with pytest.raises(OutputFileError) as raised:
        run(SAMPLE, half_percent_guides, out)
    monkeypatch.setattr(output_files.os, "replace", real_replace)
    assert str(raised.value) == f"{out}: cannot write ({reason})"
    assert out.read_text() == "previous\n"
    assert names(tmp_path) == ["out.csv"]


@pytest.mark.parametrize("named", ["temporary", "none", "input"])
def test_a_failure_in_the_block_is_named_as_the_output_only_if_about_it(
    tmp_path, monkeypatch, named
):
    monkeypatch.chdir(tmp_path)  # the output given relative, the failure named absolute
    out, source = Path("out.csv"), Path("members.csv")
    out.write_text("previous\n")
    with pytest.raises((OSError, OutputFileError)) as raised, writing(out, [source]) as temporary:
        path = {"temporary": str(temporary.resolve()), "none": None, "input": str(source)}[named]
        raise OSError(errno.EIO, "Input/output error", path)
    if named == "input":  # not worded as a failure to write the output
        assert not isinstance(raised.value, OutputFileError)
        assert raised.value.filename == str(source)
    else:
        assert str(raised.value) == f"{out}: cannot write (Input/output error)"
    assert out.read_text() == "previous\n"
    assert names(tmp_path) == ["out.csv"]


@pytest.mark.parametrize("out_name", ["out.csv", "out.parquet"])
def test_a_full_disk_while_writing_keeps_the_previous_output(
    half_percent_guides, tmp_path, monkeypatch, out_name
):
    """ENOSPC raised by the writer itself (Arrow writes in a thread)."""
    from actuarial import batch

    out = tmp_path / out_name
    out.write_bytes(b"previous")

    class Full:
        def __init__(self, *args, **kwargs):
            pass

        def add_key_value_metadata(self, metadata):
            pass

        def write_table(self, table):
            raise OSError(errno.ENOSPC, "No space left on device")

        def close(self):
            pass

    monkeypatch.setattr(pq, "ParquetWriter", Full)
    monkeypatch.setattr(batch.pa_csv, "CSVWriter", Full)
    with pytest.raises(OutputFileError, match=r"cannot write \(No space left on device\)$"):
        run(SAMPLE, half_percent_guides, out)
    assert out.read_bytes() == b"previous"
    assert names(tmp_path) == [out_name]


@pytest.mark.parametrize(
    ("make_problem", "message"),
    [
        (lambda out: out.mkdir(), "the output is a folder; a file is expected"),
        (
            lambda out: (out.parent / "file").write_text("x"),
            "cannot write",
        ),
    ],
)
def test_cli_file_system_errors_are_one_error_line_exit_1(tmp_path, make_problem, message):
    out = tmp_path / "out.csv"
    make_problem(out)
    target = out if out.exists() else tmp_path / "file" / "out.csv"
    done = subprocess.run(
        [*ACTUARIAL, "batch", str(SAMPLE), "--out", str(target), "--no-progress"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1 and done.stderr.startswith(f"error: {target}: ")
    assert message in done.stderr and "Traceback" not in done.stderr


# ------------------------------------------------------------- nothing is left behind
def test_a_successful_run_leaves_only_the_output(half_percent_guides, tmp_path):
    for name in ("out.csv", "out.parquet", "out.csv"):  # the second csv run replaces the first
        run(SAMPLE, half_percent_guides, tmp_path / name)
    assert names(tmp_path) == ["out.csv", "out.parquet"]


def test_a_run_that_fails_cleanly_leaves_nothing(half_percent_guides, tmp_path, member):
    bad = tmp_path / "bad.csv"
    bad.write_text("member_id,birth_date\nA,1960-01-01\n")
    with pytest.raises(ValueError, match="missing required column"):
        run(bad, half_percent_guides, tmp_path / "out.csv")
    assert names(tmp_path) == ["bad.csv"]


def test_a_failure_inside_the_block_removes_every_temporary_file(tmp_path):
    outs = [tmp_path / "guide.toml", tmp_path / "reduction.csv"]
    with pytest.raises(RuntimeError), writing(outs) as temporaries:
        for temporary in temporaries:
            temporary.write_text("half")
        raise RuntimeError("stop")
    assert names(tmp_path) == []


def test_two_outputs_are_renamed_together(tmp_path):
    outs = [tmp_path / "guide.toml", tmp_path / "reduction.csv"]
    with writing(outs) as temporaries:
        for temporary, text in zip(temporaries, ("toml", "csv"), strict=True):
            temporary.write_text(text)
            assert temporary.name.startswith(".") and TEMPORARY_MARK in temporary.name
        assert names(tmp_path) == sorted(t.name for t in temporaries)
    assert [out.read_text() for out in outs] == ["toml", "csv"]
    assert names(tmp_path) == ["guide.toml", "reduction.csv"]


def test_without_replace_an_existing_output_is_refused_before_anything_is_written(tmp_path):
    out = tmp_path / "members.csv"
    out.write_text("mine\n")
    exists = pytest.raises(OutputExistsError, match=r"members\.csv: exists; refused: it would be")
    with exists, writing(out, replace=False):
        raise AssertionError("the block must not run")
    assert out.read_text() == "mine\n"
    assert names(tmp_path) == ["members.csv"]


def test_without_replace_an_output_made_while_the_run_writes_is_kept(tmp_path):
    out = tmp_path / "members.csv"
    with pytest.raises(OutputExistsError), writing(out, replace=False) as partial:
        partial.write_text("ours\n")
        out.write_text("theirs\n")  # another program takes the name meanwhile
    assert out.read_text() == "theirs\n"
    assert names(tmp_path) == ["members.csv"]  # our temporary file removed


def test_without_replace_a_new_output_is_written_whole(tmp_path):
    out = tmp_path / "members.csv"
    with writing(out, replace=False) as partial:
        partial.write_text("ours\n")
    assert out.read_text() == "ours\n"
    assert names(tmp_path) == ["members.csv"]


def test_an_output_folder_may_not_be_or_hold_an_input_at_any_depth(tmp_path):
    out = tmp_path / "out"
    (out / "a" / "b").mkdir(parents=True)
    beside = tmp_path / "out-2" / "members.csv"  # a name that only begins like the folder's
    beside.parent.mkdir()
    beside.write_text("x")
    link = tmp_path / "link"
    link.symlink_to(out / "a")
    check_output_folder(out, [beside, tmp_path / "members.csv", None])
    for source in (out, out / "members.csv", out / "a" / "b" / "t.csv", link / "t.csv"):
        with pytest.raises(OutputFileError) as raised:
            check_output_folder(out, [beside, source])
        assert str(raised.value) == holds_input(out, source)


# --------------------------------------------------------- temporary files of dead runs
def test_the_temporary_file_of_a_dead_run_is_removed_by_the_next_run(half_percent_guides, tmp_path):
    out = tmp_path / "out.csv"
    stale = tmp_path / f".out.csv{TEMPORARY_MARK}0123456789abcdef"
    stale.write_text("half a run")
    other = tmp_path / f".other.csv{TEMPORARY_MARK}0123456789abcdef"  # another output's
    other.write_text("not ours to remove")
    run(SAMPLE, half_percent_guides, out)
    assert names(tmp_path) == sorted([other.name, "out.csv"])


def test_the_temporary_file_of_a_live_run_is_kept(tmp_path):
    out = tmp_path / "out.csv"
    live = tmp_path / f".out.csv{TEMPORARY_MARK}live"
    live.write_text("being written")
    holder = os.open(live, os.O_RDONLY)
    fcntl.flock(holder, fcntl.LOCK_EX)
    try:
        assert remove_stale_temporaries(out) == []
        assert live.exists()
    finally:
        os.close(holder)
    assert remove_stale_temporaries(out) == [live]
    assert temporary_files(out) == []


# ------------------------------------------------------------------ output folders
PREVIOUS = {"index.html": "old", "00_a.html": "old page", "mathjax/tex.js": "js"}
NEW = {"index.html": "new", "01_b.html": "new page"}


@pytest.mark.parametrize("exchange", ["in one step", "moved aside first"])
@pytest.mark.parametrize("previous", [None, {}, PREVIOUS])
def test_a_folder_is_put_in_place_whole_when_written(tmp_path, monkeypatch, exchange, previous):
    if exchange == "moved aside first":  # a system or file system without renameat2
        monkeypatch.setattr(output_files, "_exchange", lambda first, second: False)
    out = tmp_path / "report"
    if previous is not None:
        out.mkdir()
        write_files(out, previous)
    with writing_folder(out) as folder:
        assert folder.parent == tmp_path and folder.name.startswith(f".report{TEMPORARY_MARK}")
        write_files(folder, NEW)
        assert folder_files(out) == (previous or {})  # untouched until the block ends
    assert folder_files(out) == NEW
    assert names(tmp_path) == ["report"]


def test_two_folders_are_exchanged_in_one_step_here(tmp_path):
    """The machine the tests run on exchanges folders itself: the one-step path is the one
    tested above, not only the fallback."""
    write_files(tmp_path / "a", {"1": "one"})
    write_files(tmp_path / "b", {"2": "two"})
    assert output_files._exchange(tmp_path / "a", tmp_path / "b")
    assert folder_files(tmp_path / "a") == {"2": "two"}
    assert folder_files(tmp_path / "b") == {"1": "one"}


@pytest.mark.parametrize("stop", [RuntimeError("stop"), KeyboardInterrupt()])
def test_a_folder_whose_writing_stops_leaves_the_previous_one_and_nothing_else(tmp_path, stop):
    out = tmp_path / "report"
    write_files(out, PREVIOUS)
    with pytest.raises(type(stop)), writing_folder(out) as folder:
        write_files(folder, NEW)
        raise stop
    assert folder_files(out) == PREVIOUS
    assert names(tmp_path) == ["report"]


def test_a_write_refused_in_a_folder_names_the_path_it_was_to_have(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the folder given relative, the failure named absolute
    out = Path("report")
    write_files(out, PREVIOUS)
    with pytest.raises(OutputFileError) as raised, writing_folder(out) as folder:
        (folder / "pages").mkdir()
        page = folder.resolve() / "pages" / "a.html"
        raise OSError(errno.ENOSPC, "No space left on device", str(page))
    page = out / "pages" / "a.html"
    assert str(raised.value) == f"{page}: cannot write (No space left on device)"
    assert folder_files(out) == PREVIOUS
    assert names(tmp_path) == ["report"]


def test_a_failure_elsewhere_in_the_block_keeps_its_own_path(tmp_path):
    out, scratch = tmp_path / "report", tmp_path / "scratch" / "page.ipynb"
    write_files(out, PREVIOUS)
    refused = OSError(errno.ENOSPC, "No space left on device", str(scratch))
    with pytest.raises(OSError) as raised, writing_folder(out) as folder:
        write_files(folder, NEW)
        raise refused
    assert raised.value is refused  # not worded as a failure to write the report
    assert folder_files(out) == PREVIOUS
    assert names(tmp_path) == ["report"]


def test_a_folder_that_cannot_be_put_in_place_is_one_line_naming_it(tmp_path, monkeypatch):
    out = tmp_path / "report"
    write_files(out, PREVIOUS)

    def refused(first, second):
        raise OSError(errno.EXDEV, "Invalid cross-device link", str(second))

    monkeypatch.setattr(output_files, "_exchange", refused)
    with pytest.raises(OutputFileError) as raised, writing_folder(out) as folder:
        write_files(folder, NEW)
    assert str(raised.value) == f"{out}: cannot write (Invalid cross-device link)"
    assert folder_files(out) == PREVIOUS
    assert names(tmp_path) == ["report"]


def test_a_folder_through_a_link_is_written_in_the_linked_folder(tmp_path):
    target = tmp_path / "reports" / "2026"
    write_files(target, PREVIOUS)
    link = tmp_path / "latest"
    link.symlink_to(target)
    with writing_folder(link) as folder:
        assert folder.parent == target.parent
        write_files(folder, NEW)
    assert link.is_symlink() and folder_files(target) == NEW
    assert names(target.parent) == ["2026"]


def _a_mount_point(monkeypatch, out: Path) -> None:
    is_mount = os.path.ismount
    monkeypatch.setattr(os.path, "ismount", lambda path: Path(path) == out or is_mount(path))


def _a_folder_not_ours(monkeypatch, folder: Path) -> None:
    """Creating anything directly in ``folder`` is refused (the tests run as root)."""
    create = output_files._create_locked

    def refused(out, **kwargs):
        if out.parent == folder:
            raise PermissionError(errno.EACCES, "Permission denied", str(out))
        return create(out, **kwargs)

    monkeypatch.setattr(output_files, "_create_locked", refused)


@pytest.mark.parametrize(
    "why", ["a mount point", "its folder not ours to write", "the current folder"]
)
@pytest.mark.parametrize("previous", [{}, PREVIOUS])
def test_a_folder_that_cannot_be_renamed_is_written_from_inside(
    tmp_path, monkeypatch, why, previous
):
    out = tmp_path / "report"
    (out / "mathjax").mkdir(parents=True)  # a folder of the previous report, empty or not
    write_files(out, previous)
    if why == "a mount point":
        _a_mount_point(monkeypatch, out)
    elif why == "its folder not ours to write":
        _a_folder_not_ours(monkeypatch, tmp_path)
    else:  # `report --out .` replaced it: the shell that ran it was left in a deleted folder
        monkeypatch.chdir(out)
    with writing_folder(out) as folder:
        assert folder.parent == out and folder.name.startswith(f".report{TEMPORARY_MARK}")
        write_files(folder, NEW)
        assert folder_files(out) == {f"{folder.name}/{k}": v for k, v in NEW.items()} | previous
    assert folder_files(out) == NEW
    assert names(out) == sorted(NEW) and names(tmp_path) == ["report"]
    if why == "the current folder":
        assert os.path.samefile(os.curdir, out) and names(Path(os.curdir)) == sorted(NEW)


@pytest.mark.parametrize("stop", [RuntimeError("stop"), KeyboardInterrupt()])
def test_a_folder_written_from_inside_that_stops_is_left_as_it_was(tmp_path, monkeypatch, stop):
    out = tmp_path / "report"
    write_files(out, PREVIOUS)
    _a_mount_point(monkeypatch, out)
    with pytest.raises(type(stop)), writing_folder(out) as folder:
        write_files(folder, NEW)
        raise stop
    assert folder_files(out) == PREVIOUS
    assert names(out) == ["00_a.html", "index.html", "mathjax"]


def test_the_temporary_folder_of_a_dead_run_is_removed_and_a_live_one_kept(tmp_path):
    out = tmp_path / "report"
    dead = tmp_path / f".report{TEMPORARY_MARK}dead"
    write_files(dead, {"index.html": "half a run", "mathjax/tex.js": "js"})
    live = tmp_path / f".report{TEMPORARY_MARK}live"
    write_files(live, {"index.html": "being written"})
    holder = os.open(live, os.O_RDONLY | os.O_DIRECTORY)
    fcntl.flock(holder, fcntl.LOCK_EX)
    try:
        with writing_folder(out) as folder:
            write_files(folder, NEW)
        assert names(tmp_path) == sorted(["report", live.name])
    finally:
        os.close(holder)
    assert remove_stale_temporaries(out) == [live]
    assert names(tmp_path) == ["report"]


# ------------------------------------------------- concurrent runs and interrupted runs
@pytest.fixture(scope="module")
def large_members(tmp_path_factory):
    """Two different member files, large enough that a run lasts a while."""
    folder = tmp_path_factory.mktemp("large")
    paths = []
    for seed in (1, 2):
        path = folder / f"members-{seed}.csv"
        frame = generate_members(200_000, seed=seed, invalid_fraction=0.01)
        frame.to_csv(path, index=False, date_format="%Y-%m-%d")
        paths.append(path)
    return paths


def _batch(members, out, *extra):
    return [*ACTUARIAL, "batch", str(members), "--out", str(out), "--no-progress", *extra]


@pytest.mark.parametrize("out_name", ["out.csv", "out.parquet"])
def test_two_runs_on_one_output_give_one_complete_run(large_members, tmp_path, out_name):
    out = tmp_path / out_name
    references = []
    for number, members in enumerate(large_members):
        reference = tmp_path / f"reference-{number}{out.suffix}"
        subprocess.run(
            _batch(members, reference, "--chunk-rows", "20000"), check=True, capture_output=True
        )
        references.append(reference.read_bytes())
    runs = [
        subprocess.Popen(_batch(m, out, "--chunk-rows", "20000"), stdout=subprocess.DEVNULL)
        for m in large_members
    ]
    started = time.monotonic()
    assert [process.wait(timeout=300) for process in runs] == [0, 0]
    assert time.monotonic() - started < 300
    assert out.read_bytes() in references  # one whole run, byte for byte
    if out.suffix == ".parquet":
        assert pq.read_table(out).num_rows > 0  # readable
    assert not temporary_files(out)


def _ctrl_c_as_in_a_terminal():
    """Ctrl-C's default action in the run, as in a terminal's foreground job: a parent that
    ignores it (a shell's background job, a CI runner) would pass that on, and Python then
    never raises KeyboardInterrupt."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _start_and_wait_for_temporary(command, out, timeout=120):
    process = subprocess.Popen(
        command,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        preexec_fn=_ctrl_c_as_in_a_terminal,
    )
    deadline = time.monotonic() + timeout
    while not temporary_files(out):
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            pytest.fail("the run ended before its temporary file was seen")
        time.sleep(0.01)
    time.sleep(0.05)  # into the chunks: 20,000 of them to go, many seconds of work
    return process


@pytest.mark.parametrize(("sent", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
@pytest.mark.parametrize("out_name", ["out.csv", "out.parquet"])
def test_an_interrupted_run_leaves_the_previous_output_and_nothing_else(
    large_members, tmp_path, sent, status, out_name
):
    out = tmp_path / out_name
    subprocess.run(_batch(SAMPLE, out), check=True, capture_output=True)
    previous = out.read_bytes()
    process = _start_and_wait_for_temporary(
        _batch(large_members[0], out, "--chunk-rows", "10"), out
    )
    process.send_signal(sent)
    _, error = process.communicate(timeout=120)
    assert process.returncode == status
    assert b"Traceback" not in error
    assert out.read_bytes() == previous
    assert names(tmp_path) == [out_name]


@pytest.mark.parametrize("out_name", ["out.csv", "out.parquet"])
def test_a_killed_run_leaves_the_previous_output_and_the_next_run_cleans_up(
    large_members, tmp_path, out_name
):
    out = tmp_path / out_name
    subprocess.run(_batch(SAMPLE, out), check=True, capture_output=True)
    previous = out.read_bytes()
    process = _start_and_wait_for_temporary(
        _batch(large_members[0], out, "--chunk-rows", "10"), out
    )
    process.kill()
    process.wait(timeout=60)
    assert out.read_bytes() == previous
    left = temporary_files(out)
    assert len(left) == 1 and left[0].name.startswith(f".{out_name}{TEMPORARY_MARK}")
    subprocess.run(_batch(SAMPLE, out), check=True, capture_output=True)
    assert out.read_bytes() == previous  # the same input again: the same output
    assert names(tmp_path) == [out_name]


# ------------------------------------------------------------ no path is ever ""
# A parameter that takes a path, by its name or its annotation: a new public function with
# one is checked below, or the walk fails until it is.
PATH_PARAMETER = re.compile(
    r"path|paths|folder|out|outs|repository|sources|amendments|files|law|"
    r".*_(path|paths|dir|folder|file|files)"
)

# Parameters of that name that are no path to check: why.
NOT_PATHS = {
    ("actuarial.output_files.check_paths", "paths"): "the check itself (takes_paths's)",
    ("actuarial.output_files.cannot_write", "path"): "words a message; opens nothing",
    ("actuarial.mortality.age_rows", "path"): "names the file in messages; reads `reader`",
    ("actuarial.law.coverage.law_dates", "law"): "a Law, never a path",
    ("actuarial.law.minimum.later_minimums", "law"): "a Law, never a path",
    ("actuarial.law.minimum.minimum_changes", "law"): "a Law, never a path",
    ("actuarial.law.minimum.minimum_on", "law"): "a Law, never a path",
    ("actuarial.law.minimum.minimum_since", "law"): "a Law, never a path",
    ("actuarial.law.notes.law_notes", "law"): "a Law, never a path",
    ("actuarial.law.notes.never_in_force", "law"): "a Law, never a path",
    ("actuarial.law.notes.replaced_entries", "law"): "a Law, never a path",
    ("actuarial.guides.check_guides_under", "law"): "a Law, never a path",
    ("actuarial.law.parameters.LawOn.__init__", "law"): "a Law, never a path",
}


def _public_functions():
    """Every public function and method of the package's modules (``__all__``): (qualified
    name, function); the values that hold paths (dataclasses, errors) are not called."""
    found = {}
    for info in pkgutil.walk_packages(actuarial.__path__, "actuarial."):
        module = importlib.import_module(info.name)
        for name in getattr(module, "__all__", ()):
            value = getattr(module, name)
            if inspect.isfunction(value):
                found[f"{value.__module__}.{value.__qualname__}"] = value
            elif inspect.isclass(value) and value.__module__.startswith("actuarial"):
                generated_init = dataclasses.is_dataclass(value) or issubclass(value, Exception)
                for attribute, member in vars(value).items():
                    function = getattr(member, "__func__", member)
                    public = not attribute.startswith("_") or (
                        attribute == "__init__" and not generated_init
                    )
                    if public and inspect.isfunction(function):
                        found[f"{value.__module__}.{function.__qualname__}"] = getattr(
                            value, attribute
                        )
    return found


def _path_parameters():
    """(qualified name, function, parameter) of every public parameter that takes a path."""
    for qualified, function in sorted(_public_functions().items()):
        for parameter in inspect.signature(function).parameters.values():
            annotation = str(parameter.annotation)
            named = PATH_PARAMETER.fullmatch(parameter.name) or "Path" in annotation
            if named and annotation != "bool" and (qualified, parameter.name) not in NOT_PATHS:
                yield qualified, function, parameter.name


PATH_PARAMETERS = list(_path_parameters())


@pytest.fixture
def a_folder_to_keep(tmp_path, monkeypatch):
    """The current folder, holding a file and a guide: what "" would read or replace."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "kept.csv").write_text("kept\n", encoding="utf-8")
    shutil.copytree(HALF_PERCENT_GUIDE, tmp_path / HALF_PERCENT_GUIDE.name)
    return folder_files(tmp_path)


def _delegates(guides):
    """The calls of the functions that pass their path on to one that checks it."""
    from actuarial import engine, review, valuation

    frame = pd.DataFrame([VALID_MEMBER])
    basis = valuation.Basis("sult", 0.05)
    out = Path("out.csv").resolve()
    return {
        ("actuarial.batch.run_batch", "members_path"): lambda empty: run(empty, guides, out),
        ("actuarial.batch.run_batch", "out_path"): lambda empty: run(SAMPLE, guides, empty),
        ("actuarial.batch.run_batch", "law"): lambda empty: run(SAMPLE, guides, out, law=empty),
        ("actuarial.engine.evaluate", "law"): lambda empty: engine.evaluate(
            VALID_MEMBER, guides, law=empty
        ),
        ("actuarial.engine.evaluate_frame", "law"): lambda empty: engine.evaluate_frame(
            frame, guides, law=empty
        ),
        ("actuarial.engine.evaluate_members", "law"): lambda empty: engine.evaluate_members(
            parse_members(frame), guides, law=empty
        ),
        ("actuarial.law.parameters.law_provenance", "law"): lambda empty: actuarial.law_provenance(
            empty
        ),
        ("actuarial.review.law_numbers", "law"): lambda empty: review.law_numbers(empty),
        ("actuarial.valuation.value_frame", "law"): lambda empty: valuation.value_frame(
            frame, guides, basis, law=empty
        ),
        ("actuarial.valuation.sensitivities", "law"): lambda empty: valuation.sensitivities(
            frame, guides, basis, series={}, law=empty
        ),
        ("actuarial.valuation.member_present_values", "law"): lambda empty: (
            valuation.member_present_values(VALID_MEMBER, guides, basis, law=empty)
        ),
        ("actuarial.valuation.member_choices", "law"): lambda empty: valuation.member_choices(
            VALID_MEMBER, guides, basis, law=empty
        ),
    }


def _is_varargs(function, name):
    parameter = inspect.signature(function).parameters[name]
    return parameter.kind is parameter.VAR_POSITIONAL


def _given(function, name, value):
    """``function`` called with ``value`` for the parameter ``name`` (its items for
    ``*name``), None for the others it requires: the path is checked before any is used."""
    parameters = inspect.signature(function).parameters.values()
    if _is_varargs(function, name):
        before = [None for p in parameters if p.kind < p.VAR_POSITIONAL]  # self, say
        return function(*before, *value)
    required = [p.name for p in parameters if p.default is p.empty and p.kind != p.VAR_KEYWORD]
    return function(**{**dict.fromkeys(required), name: value})


def test_the_public_functions_take_paths_in_many_places():
    assert len(PATH_PARAMETERS) >= 40  # the test below reaches every one of them


@pytest.mark.parametrize(
    ("qualified", "function", "name"),
    PATH_PARAMETERS,
    ids=[f"{qualified} {name}" for qualified, _, name in PATH_PARAMETERS],
)
def test_an_empty_path_is_refused_by_every_public_function_naming_its_parameter(
    qualified, function, name, a_folder_to_keep, half_percent_guides
):
    # Path("") is "."; build_report("") wrote its report into the current folder,
    # members_path="" read the sample members instead, derive_guide("") wrote a guide there.
    delegates = _delegates(half_percent_guides)
    checked = name in getattr(function, "path_parameters", ())
    assert checked or (qualified, name) in delegates, (
        f"{qualified}: its path parameter {name!r} is not checked: @takes_paths({name!r})"
    )
    first = ([""], f"{name}[0]") if _is_varargs(function, name) else ("", name)
    for empty, shown in [first, (["kept.csv", ""], f"{name}[1]")]:
        if not checked and empty != "":
            continue  # what it passes the path on to checks lists (the calls above)
        with pytest.raises(EmptyPathError) as raised:
            _given(function, name, empty) if checked else delegates[qualified, name](empty)
        assert str(raised.value) == (
            f"'{shown}' is an empty path: give a file or folder ('.' for the current one)"
        )
    assert folder_files(Path.cwd()) == a_folder_to_keep


def test_a_write_that_fails_removes_the_folders_it_made_and_no_other(tmp_path):
    # A guides derive that failed for lack of space left its new, empty folder behind.
    out = tmp_path / "new" / "deeper" / "guide" / "reduction.csv"
    (tmp_path / "new").mkdir()
    full = pytest.raises(OutputFileError, match=r"cannot write \(No space left on device\)$")
    with full, writing(out):
        raise OSError(errno.ENOSPC, "No space left on device")
    assert names(tmp_path) == ["new"] and names(tmp_path / "new") == []
    with pytest.raises(KeyboardInterrupt), writing(out):
        raise KeyboardInterrupt
    assert names(tmp_path / "new") == []
    with writing(out) as partial:
        partial.write_text("written")
    assert out.read_text() == "written"


def test_a_guide_derive_that_fails_leaves_no_folder(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from actuarial.cli import cli

    def full(source, target):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "replace", full)  # the guide's files put in place
    folder = tmp_path / "guides" / "derived"
    derive = ["guides", "derive", "--mortality", "sult", "--interest", "0.05", "--out", folder]
    result = CliRunner().invoke(cli, [str(argument) for argument in derive])
    assert result.exit_code == 1, result.output
    assert "cannot write (No space left on device)" in result.output
    assert names(tmp_path) == []
