"""The HTML report and the notebook normalization (actuarial.report, `actuarial report`).

The report tests run two tiny notebooks in a temporary folder (each starts a kernel, a few
seconds); the real notebooks are checked by nbval (`make test`).
"""

import ast
import hashlib
import html
import re
import shutil
import subprocess

import nbformat
import pytest
from click.testing import CliRunner
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

import actuarial
from actuarial import MemberFileError, Readings, report
from actuarial.cli import cli
from actuarial.guides import DEFAULT_SERIES, SHIPPED_GUIDES
from actuarial.report import (
    EXAMPLE_MEMBERS,
    REPOSITORY,
    ReportError,
    build_report,
    execute_in_place,
    git_commit,
    normalize_notebook,
    notebook_title,
)

SHIPPED_IDS = [
    "illustrative-half-percent-per-month",
    "pub2010-general-unisex-4.5pct",
    "sult-5pct-monthly",
]


def sha256(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def write_notebook(path, cells) -> None:
    notebook = new_notebook(cells=cells)
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
    nbformat.write(notebook, path)


@pytest.fixture
def notebooks(tmp_path):
    """Two small notebooks: one with a parameters cell that uses every input, one without."""
    folder = tmp_path / "notebooks"
    folder.mkdir()
    parameters = new_code_cell(
        'guides_path = "../guides"\nseries = "illustrative-half-percent-per-month"\n'
        'members_path = "../examples/members.csv"\nreadings = {}'
    )
    parameters.metadata["tags"] = ["parameters"]
    write_notebook(
        folder / "00_first.ipynb",
        [
            new_markdown_cell("# First \\$500 page\n\nSome text."),
            parameters,
            new_code_cell(
                "from pathlib import Path\nfrom actuarial import Readings, load_guides\n"
                "guides = load_guides(guides_path, series)\n"
                "print(Path(members_path).name, guides.series, len(guides))\n"
                'print("readings:", Readings(**readings).label())'
            ),
        ],
    )
    write_notebook(
        folder / "01_second.ipynb",
        [new_markdown_cell("## Second page"), new_code_cell("print(6 * 7)")],
    )
    (folder / "notes.ipynb").write_text("not a report notebook: no NN_ prefix")
    return folder


# ----------------------------------------------------------------- normalization
def executed_notebook():
    cell = new_code_cell("1 + 1", execution_count=7)
    cell.outputs = [new_output("execute_result", {"text/plain": "2"}, execution_count=7)]
    cell.metadata = {"tags": ["parameters"], "execution": {"iopub.status.busy": "2024-01-01"}}
    cell.id = "a1b2c3"
    notebook = new_notebook(
        cells=[new_markdown_cell("# Title"), cell, new_code_cell("x = 1", execution_count=9)]
    )
    notebook.metadata = {
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
        "language_info": {"name": "python", "version": "3.11.9"},
        "papermill": {"duration": 1.5},
    }
    return notebook


def test_normalize_numbers_code_cells_in_order_and_drops_run_metadata():
    notebook = normalize_notebook(executed_notebook())
    assert [cell.id for cell in notebook.cells] == ["cell-00", "cell-01", "cell-02"]
    assert [cell.get("execution_count") for cell in notebook.cells] == [None, 1, 2]
    assert notebook.cells[1].outputs[0].execution_count == 1
    assert notebook.cells[1].outputs[0].data == {"text/plain": "2"}  # outputs are kept
    assert notebook.cells[1].metadata == {"tags": ["parameters"]}
    assert notebook.metadata == {
        "kernelspec": {
            "display_name": "Python 3 (ipykernel)",
            "language": "python",
            "name": "python3",
        },
        "language_info": {"name": "python"},
    }
    nbformat.validate(notebook)


def test_normalize_is_idempotent():
    once = nbformat.writes(normalize_notebook(executed_notebook()))
    twice = nbformat.writes(normalize_notebook(nbformat.reads(once, as_version=4)))
    assert once == twice


def test_notebook_title_is_the_first_heading_without_markdown_escapes():
    notebook = new_notebook(cells=[new_markdown_cell("Intro\n## Inciso (a): the \\$500 minimum")])
    assert notebook_title(notebook) == "Inciso (a): the $500 minimum"
    assert notebook_title(new_notebook(cells=[new_code_cell("# a comment")])) == ""


def test_execute_in_place_runs_normalizes_and_then_leaves_the_file_alone(notebooks):
    path = notebooks / "01_second.ipynb"
    assert execute_in_place(path) is True
    notebook = nbformat.read(path, as_version=4)
    assert notebook.cells[1].outputs[0].text == "42\n"
    assert notebook.cells[1].execution_count == 1
    assert execute_in_place(path) is False  # a second run changes nothing


def test_execute_in_place_leaves_a_failing_notebook_unchanged(tmp_path):
    path = tmp_path / "00_fails.ipynb"
    write_notebook(path, [new_code_cell("raise ValueError('broken on purpose')")])
    before = path.read_text()
    with pytest.raises(ReportError, match="00_fails.ipynb: a cell failed, the file is unchanged"):
        execute_in_place(path)
    assert path.read_text() == before


# ----------------------------------------------------------------- provenance
def test_git_commit_is_unknown_outside_a_checkout_of_the_package(tmp_path):
    assert git_commit(tmp_path) == "unknown"
    assert re.fullmatch(r"[0-9a-f]{40}( with uncommitted changes)?|unknown", git_commit())


def test_git_commit_says_when_a_tracked_file_has_changed_since(tmp_path):
    def git(*args):
        identity = ["-c", "user.name=test", "-c", "user.email=test@example.org"]
        subprocess.run(
            ["git", "-C", str(tmp_path), *identity, *args], check=True, capture_output=True
        )

    git("init", "-q")
    (tmp_path / "notebook.ipynb").write_text("{}")
    git("add", "notebook.ipynb")
    git("commit", "-q", "-m", "first")
    (tmp_path / "untracked.txt").write_text("not part of the code")
    clean = git_commit(tmp_path)
    assert re.fullmatch(r"[0-9a-f]{40}", clean)
    (tmp_path / "notebook.ipynb").write_text('{"changed": true}')
    assert git_commit(tmp_path) == clean + " with uncommitted changes"
    assert git_commit(tmp_path, paths=["elsewhere"]) == clean  # only changes under paths


def test_provenance_lists_every_guide_with_the_sha256_of_its_files():
    guides = actuarial.load_guides(SHIPPED_GUIDES, "sult-5pct-monthly")
    found = report.provenance(guides, SHIPPED_GUIDES, EXAMPLE_MEMBERS)
    assert [guide_id for guide_id, _, _ in found.guides] == SHIPPED_IDS
    files = dict(found.guides[2][2])
    assert files == {
        name: sha256(SHIPPED_GUIDES / "sult-5pct-monthly" / name)
        for name in ("guide.toml", "reduction.csv")
    }
    assert found.members_file == "members.csv"
    assert found.members_sha256 == sha256(EXAMPLE_MEMBERS)
    assert found.readings == tuple(Readings().describe())
    assert "guide sult-5pct-monthly (used): reduction.csv sha256 " + files["reduction.csv"] in (
        found.lines()
    )


# ----------------------------------------------------------------- the report
def test_report_writes_an_index_and_one_page_per_notebook_with_provenance(
    notebooks, tmp_path, monkeypatch
):
    members = tmp_path / "data" / "staff.csv"
    members.parent.mkdir()
    shutil.copy(EXAMPLE_MEMBERS, members)
    monkeypatch.setattr(report, "NOTEBOOKS", notebooks)
    out = tmp_path / "out"
    result = CliRunner().invoke(
        cli, ["report", "--members", str(members), "--out", str(out), "--no-progress"]
    )
    assert result.exit_code == 0, result.output
    assert result.output.strip() == f"report: {out / 'index.html'}"
    assert sorted(path.name for path in out.iterdir()) == [
        "00_first.html",
        "01_second.html",
        "index.html",
        "mathjax",
    ]
    assert (out / "mathjax" / "MathJax.js").is_file()  # formulas render offline
    index = (out / "index.html").read_text()
    assert '<a href="00_first.html">First $500 page</a>' in index
    assert '<a href="01_second.html">Second page</a>' in index
    first = (out / "00_first.html").read_text()
    assert f"staff.csv {DEFAULT_SERIES} 1" in first  # ran with the inputs
    assert "<b>staff.csv</b>: SHA-256 <code>" + sha256(members) in first
    for guide_id in SHIPPED_IDS:
        for name in ("guide.toml", "reduction.csv"):
            assert sha256(SHIPPED_GUIDES / guide_id / name) in first
    for line in Readings().describe():
        assert html.escape(line) in first
    assert f"actuarial {actuarial.__version__}, git commit <code>{git_commit()}" in first
    assert "42" in (out / "01_second.html").read_text()
    assert 'src="mathjax/MathJax.js?config=' in first
    for page in out.glob("*.html"):  # no absolute path of the machine in any page
        text = page.read_text()
        assert "libs/mathjax" not in text  # MathJax from the report folder, not a CDN
        assert not re.search(r"<script[^>]* src=\"(https?:)?//", text)  # no script fetched
        for folder in (REPOSITORY, tmp_path, notebooks):
            assert str(folder) not in text, (page.name, folder)


def test_report_passes_the_reading_switches_to_the_notebooks_and_the_footer(
    notebooks, tmp_path, monkeypatch
):
    monkeypatch.setattr(report, "NOTEBOOKS", notebooks)
    out = tmp_path / "out"
    arguments = ["report", "--out", str(out), "--no-progress", "--minimum-applies-to", "a"]
    result = CliRunner().invoke(cli, arguments)
    assert result.exit_code == 0, result.output
    first = (out / "00_first.html").read_text()
    assert "readings: minimum_applies_to=a" in first  # the notebook ran with the switch
    switched = Readings(minimum_applies_to="a")
    for page in ("00_first.html", "01_second.html", "index.html"):
        footer = (out / page).read_text().split('<footer class="provenance">')[1]
        assert html.escape(switched.describe()[3]) in footer  # I-4, switched
        assert html.escape(Readings().describe()[3]) not in footer


def test_the_injected_parameters_are_shown_as_python_that_gives_the_values_used():
    cell = new_code_cell("# Parameters\nreadings = {}")
    cell.metadata["tags"] = ["injected-parameters"]
    notebook = new_notebook(cells=[cell])
    shown = {"members_path": "staff.csv", "readings": Readings(minimum_applies_to="a").as_dict()}
    report._show_parameters(notebook, shown)
    assignments = ast.parse(cell.source).body  # Python a reader can run, giving the values
    assert {node.targets[0].id: ast.literal_eval(node.value) for node in assignments} == shown
    assert cell.source.startswith("# Parameters injected by `actuarial report`")


def test_report_still_renders_a_failing_notebook_and_names_it(notebooks, tmp_path):
    write_notebook(
        notebooks / "02_broken.ipynb",
        [new_markdown_cell("# Broken"), new_code_cell("raise ValueError('on purpose')")],
    )
    (notebooks / "00_first.ipynb").unlink()
    out = tmp_path / "out"
    with pytest.raises(ReportError, match=r"02_broken.ipynb: ValueError: on purpose"):
        build_report(out, notebooks_dir=notebooks, progress=False)
    assert "on purpose" in (out / "02_broken.html").read_text()
    assert (out / "index.html").is_file()


def test_report_refuses_a_missing_member_file_before_running_anything(notebooks, tmp_path):
    with pytest.raises(MemberFileError, match=r"missing\.csv: cannot read the member file"):
        build_report(
            tmp_path / "out", members_path=tmp_path / "missing.csv", notebooks_dir=notebooks
        )
    assert not (tmp_path / "out").exists()


def test_report_command_fails_with_the_guide_problem_and_exit_status_1(tmp_path):
    result = CliRunner().invoke(
        cli, ["report", "--guides", str(tmp_path), "--out", str(tmp_path / "out")]
    )
    assert result.exit_code == 1
    assert "no guide found" in result.output
