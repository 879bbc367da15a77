"""The shipped files (guides, sample members, notebooks) as package data, and the commands
that show them: ``actuarial guides list`` and ``actuarial examples members``."""

from __future__ import annotations

import csv
import resource
import subprocess
import sys
from importlib import resources
from pathlib import Path

import nbformat
import pytest
from click.testing import CliRunner
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from actuarial import shipped
from actuarial.cli import cli
from actuarial.guides import DEFAULT_SERIES, SHIPPED_GUIDES, load_every_guide
from actuarial.report import EXAMPLE_MEMBERS, NOTEBOOKS, build_report, notebook_paths

CHECKOUT = Path(__file__).resolve().parents[1]


def invoke(*args):
    return CliRunner().invoke(cli, [str(arg) for arg in args])


# ------------------------------------------------------------------- package data
def test_the_shipped_folders_are_read_through_importlib_resources():
    package = Path(str(resources.files("actuarial.shipped")))
    assert shipped.GUIDES == (package / "guides").resolve() == SHIPPED_GUIDES
    assert shipped.NOTEBOOKS == (package / "notebooks").resolve() == NOTEBOOKS
    assert (package / "examples" / "members.csv").resolve() == shipped.EXAMPLE_MEMBERS
    assert EXAMPLE_MEMBERS == shipped.EXAMPLE_MEMBERS


def test_in_a_checkout_the_shipped_folders_are_the_top_level_ones_not_copies():
    # The top-level guides/, examples/ and notebooks/ are the source of truth: the package
    # links to them (actuarial/shipped/<name> -> ../../<name>); the wheel holds copies.
    for name in ("guides", "examples", "notebooks", "docs"):
        link = CHECKOUT / "actuarial" / "shipped" / name
        assert link.is_symlink(), link
        assert link.resolve() == CHECKOUT / name
    assert shipped.GUIDES == CHECKOUT / "guides"
    assert shipped.EXAMPLE_MEMBERS == CHECKOUT / "examples" / "members.csv"
    assert shipped.DOCS == CHECKOUT / "docs"
    assert notebook_paths(shipped.NOTEBOOKS) == notebook_paths(CHECKOUT / "notebooks")


# ------------------------------------------------------------------- guides list
def test_guides_list_lists_every_shipped_guide_with_series_status_dates_and_title():
    result = invoke("guides", "list")
    assert result.exit_code == 0, result.output
    header, *rows = result.output.splitlines()
    assert header.split() == ["id", "series", "status", "from", "until", "title"]
    guides = load_every_guide(SHIPPED_GUIDES)
    assert len(rows) == len(guides) == 3
    for row, guide in zip(rows, guides, strict=True):
        assert row.startswith(guide.id + " ")
        assert row.endswith("  " + guide.title)
        default = " (default)" if guide.series == DEFAULT_SERIES else ""
        assert f"  {guide.series}{default}  " in row
        assert f"  {guide.status}  {guide.effective_from}  open end  " in row
    assert sum("(default)" in row for row in rows) == 1


def test_guides_list_reads_another_folder_and_fails_on_a_broken_one(make_guide, tmp_path):
    make_guide("board-2020", toml=lambda text: text.replace("illustrative", "adopted", 1))
    result = invoke("guides", "list", "--guides", tmp_path / "guides")
    assert result.exit_code == 1
    assert "adopted_by" in result.output  # an adopted guide must say by whom
    result = invoke("guides", "list", "--guides", tmp_path / "missing")
    assert result.exit_code == 1 and result.output.startswith("error: ")


def test_guides_list_shows_an_open_end_or_the_last_day_in_force(make_guide, tmp_path):
    make_guide(
        "g-until",
        toml=lambda text: text.replace(
            "effective_from = 1990-04-01",
            "effective_from = 1990-04-01\neffective_until = 2019-12-31",
        ),
    )
    result = invoke("guides", "list", "--guides", tmp_path / "guides")
    assert result.exit_code == 0, result.output
    assert "  1990-04-01  2019-12-31  " in result.output.splitlines()[1]


# ------------------------------------------------------------------- examples members
def test_examples_bill_writes_the_example_amendment_in_the_current_folder_once(
    tmp_path, monkeypatch
):
    # The README's `--law examples/bill-2027.toml` needed a checkout: no command wrote it.
    monkeypatch.chdir(tmp_path)
    result = invoke("examples", "bill")
    assert (result.exit_code, result.output) == (0, "written: bill-2027.toml\n")
    assert (tmp_path / "bill-2027.toml").read_bytes() == (
        CHECKOUT / "examples" / "bill-2027.toml"
    ).read_bytes()
    again = invoke("examples", "bill")
    assert (again.exit_code, again.output) == (
        1,
        "error: bill-2027.toml exists; use --force to replace it\n",
    )


def test_examples_members_writes_the_sample_member_file(tmp_path):
    out = tmp_path / "members.csv"
    result = invoke("examples", "members", "--out", out)
    assert result.exit_code == 0, result.output
    assert out.read_bytes() == (CHECKOUT / "examples" / "members.csv").read_bytes()
    with out.open(newline="", encoding="utf-8") as handle:
        members = len(list(csv.DictReader(handle)))
    assert result.output == f"written: {out} ({members} members)\n"


def test_examples_members_writes_members_csv_in_the_current_folder_by_default(
    tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    result = invoke("examples", "members")
    assert result.exit_code == 0, result.output
    assert sorted(path.name for path in tmp_path.iterdir()) == ["members.csv"]


@pytest.mark.parametrize(
    ("command", "name"),
    [("members", "ex.parquet"), ("members", "ex.txt"), ("members", "ex"), ("bill", "b.csv")],
)
def test_examples_are_written_only_under_a_name_of_their_own_format(tmp_path, command, name):
    # `examples members --out ex.parquet` wrote CSV into ex.parquet: batch then refused it
    # ("Parquet magic bytes not found").
    out = tmp_path / name
    result = invoke("examples", command, "--out", out)
    assert result.exit_code == 1
    suffix = ".csv" if command == "members" else ".toml"
    assert result.output == (
        f"error: {out}: the example is a {suffix} file: --out must end in {suffix} "
        f"(got {out.suffix or 'no extension'!r})\n"
    )
    assert not out.exists()
    upper = tmp_path / f"EX{suffix.upper()}"
    assert invoke("examples", command, "--out", upper).exit_code == 0


@pytest.mark.parametrize("command", ["members", "bill"])
def test_examples_write_where_batch_writes_and_fail_as_it_fails(tmp_path, command):
    # A missing folder was refused ("no folder new"), where batch and value make it; a
    # folder given as --out was click's usage error (exit 2), a file as the folder "no
    # folder f.csv"; each is now what the other commands say.
    suffix = ".csv" if command == "members" else ".toml"
    made = tmp_path / "new" / "deeper" / f"ex{suffix}"
    assert invoke("examples", command, "--out", made).exit_code == 0
    assert made.is_file()
    for folder in (tmp_path / f"folder{suffix}", tmp_path / "no-extension"):  # either name
        folder.mkdir()
        result = invoke("examples", command, "--out", folder, "--force")
        assert (result.exit_code, result.output) == (
            1,
            f"error: {folder}: the output is a folder; a file is expected\n",
        )
    a_file = tmp_path / "plain.txt"
    a_file.write_text("mine\n", encoding="utf-8")
    inside = a_file / f"ex{suffix}"
    result = invoke("examples", command, "--out", inside)
    assert (result.exit_code, result.output) == (
        1,
        f"error: {inside}: cannot write ({a_file} is not a folder)\n",
    )
    assert a_file.read_text(encoding="utf-8") == "mine\n"


def test_examples_members_refuses_to_overwrite_a_file_unless_forced(tmp_path):
    out = tmp_path / "members.csv"
    out.write_text("mine\n", encoding="utf-8")
    result = invoke("examples", "members", "--out", out)
    assert result.exit_code == 1
    assert result.output == f"error: {out} exists; use --force to replace it\n"
    assert out.read_text(encoding="utf-8") == "mine\n"
    result = invoke("examples", "members", "--out", out, "--force")
    assert result.exit_code == 0, result.output
    assert out.read_bytes() == shipped.EXAMPLE_MEMBERS.read_bytes()


@pytest.mark.parametrize("previous", [None, b"mine\n"])
def test_examples_members_interrupted_by_a_full_disk_leaves_no_partial_file(tmp_path, previous):
    # A file-size limit of 1,000 bytes (the sample is larger) fails the write half-way, as a
    # full disk does; before, the file was written in place and left cut off.
    out = tmp_path / "members.csv"
    force = []
    if previous is not None:
        out.write_bytes(previous)
        force = ["--force"]
    assert shipped.EXAMPLE_MEMBERS.stat().st_size > 1000

    def limit_file_size():
        resource.setrlimit(resource.RLIMIT_FSIZE, (1000, resource.RLIM_INFINITY))

    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "actuarial",
            "examples",
            "members",
            "--out",
            str(out),
            *force,
        ],
        capture_output=True,
        text=True,
        preexec_fn=limit_file_size,
    )
    assert done.returncode == 1
    assert done.stderr == f"error: {out}: cannot write (File too large)\n"
    left = sorted(path.name for path in tmp_path.iterdir())  # no temporary file either
    if previous is None:
        assert left == []
    else:
        assert left == [out.name] and out.read_bytes() == previous


def test_examples_members_never_replaces_a_file_made_while_it_writes(tmp_path, monkeypatch):
    out = tmp_path / "members.csv"
    write_bytes = Path.write_bytes

    def another_program_makes_out_first(path, data):
        out.write_text("theirs\n", encoding="utf-8")
        return write_bytes(path, data)

    monkeypatch.setattr(Path, "write_bytes", another_program_makes_out_first)
    result = invoke("examples", "members", "--out", out)
    monkeypatch.undo()
    assert result.exit_code == 1
    assert result.output == f"error: {out} exists; use --force to replace it\n"
    assert out.read_text(encoding="utf-8") == "theirs\n"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["members.csv"]


@pytest.mark.parametrize(
    ("name", "source"), [("members", shipped.EXAMPLE_MEMBERS), ("bill", shipped.EXAMPLE_BILL)]
)
def test_examples_never_writes_onto_the_shipped_file_itself(name, source):
    before = source.read_bytes()
    result = invoke("examples", name, "--out", source, "--force")
    assert result.exit_code == 1
    assert "is the shipped example itself" in result.output
    assert source.read_bytes() == before


# ------------------------------------------------------------------- report runs
def test_the_report_runs_copies_of_the_notebooks_beside_copies_of_what_they_read(tmp_path):
    # A notebook reads ../examples by relative path, as notebook 09 reads its bill, and
    # writes into its working directory: the copy's, never the notebooks folder (which, for
    # an installed package, is in site-packages).
    project = tmp_path / "project"
    (project / "examples").mkdir(parents=True)
    (project / "examples" / "bill.toml").write_text("minimum = 600\n", encoding="utf-8")
    (project / "notebooks").mkdir()
    notebook = new_notebook(
        cells=[
            new_markdown_cell("# Reads a sibling folder"),
            new_code_cell(
                "from pathlib import Path\n"
                'print(Path("../examples/bill.toml").read_text().strip())\n'
                'Path("scratch.txt").write_text("made by the notebook")'
            ),
        ]
    )
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
    nbformat.write(notebook, project / "notebooks" / "00_reads.ipynb")
    before = {path: path.read_bytes() for path in project.rglob("*") if path.is_file()}
    index = build_report(tmp_path / "out", notebooks_dir=project / "notebooks", progress=False)
    assert "minimum = 600" in (index.parent / "00_reads.html").read_text(encoding="utf-8")
    after = {path: path.read_bytes() for path in project.rglob("*") if path.is_file()}
    assert after == before  # nothing written beside the notebooks, nothing changed


def test_the_notebooks_copy_reads_the_shipped_folders_as_in_the_repository(tmp_path):
    # Relative where the copy has them (a notebook may compare with its "../guides" default),
    # absolute elsewhere (a user's own guides or member file).
    from actuarial.report import _run_path

    assert _run_path(SHIPPED_GUIDES, NOTEBOOKS) == "../guides"
    assert _run_path(EXAMPLE_MEMBERS, NOTEBOOKS) == "../examples/members.csv"
    assert _run_path(tmp_path / "staff.csv", NOTEBOOKS) == str(tmp_path / "staff.csv")
    assert _run_path(NOTEBOOKS.parent / "build" / "x.csv", NOTEBOOKS).startswith("/")
