"""The HTML report and the notebook normalization (actuarial.report, `actuarial report`).

The report tests run two tiny notebooks in a temporary folder (each starts a kernel, a few
seconds); the real notebooks are checked by nbval (`make test`).
"""

import ast
import datetime as dt
import errno
import hashlib
import html
import os
import re
import shutil
import signal
import subprocess
from pathlib import Path

import nbformat
import pytest
from click.testing import CliRunner
from conftest import exactly, folder_files, holds_input, law_entry, write_files
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

import actuarial
from actuarial import (
    MemberFileError,
    Readings,
    evaluate_frame,
    load_guides,
    notebook_runs,
    output_files,
    report,
)
from actuarial.batch import read_members
from actuarial.cli import cli
from actuarial.guides import DEFAULT_SERIES, SHIPPED_GUIDES
from actuarial.law import LawNote, shipped_law
from actuarial.notebook_runs import Kernels
from actuarial.output_files import OutputFileError
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


def test_execute_in_place_runs_normalizes_and_then_leaves_the_file_alone(notebooks, monkeypatch):
    # As `make notebooks` on the shipped notebooks: the package's own files, which no
    # command writes, are rewritten here.
    monkeypatch.setattr(output_files, "PACKAGE", notebooks)
    path = notebooks / "01_second.ipynb"
    assert output_files.package_folder_holding(path) == notebooks
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


def fail_writing_midway(monkeypatch, name: str) -> None:
    """Every write of a file whose name holds ``name`` (itself or a temporary file beside it)
    stops half-way with a full disk: half the text written, then the error."""
    write_text = Path.write_text

    def half_then_full(self, data, *args, **kwargs):
        if name not in self.name:
            return write_text(self, data, *args, **kwargs)
        write_text(self, data[: len(data) // 2], *args, **kwargs)
        raise OSError(errno.ENOSPC, "No space left on device", str(self))

    monkeypatch.setattr(Path, "write_text", half_then_full)


def test_a_notebook_rewrite_that_fails_midway_leaves_the_notebook_as_it_was(notebooks, monkeypatch):
    path = notebooks / "01_second.ipynb"
    before = path.read_bytes()
    fail_writing_midway(monkeypatch, path.name)
    message = f"{path}: cannot write (No space left on device)"
    with pytest.raises(OutputFileError, match=exactly(message)):
        execute_in_place(path)
    assert path.read_bytes() == before
    assert sorted(p.name for p in notebooks.iterdir()) == [
        "00_first.ipynb",
        "01_second.ipynb",
        "notes.ipynb",
    ]  # no temporary file left beside it


def previous_report(out: Path) -> dict:
    """A previous report in ``out`` (its marker and pages, without running a notebook), and
    its files with their text."""
    write_files(out, {"index.html": "old index", "00_first.html": "old page",
                      "mathjax/MathJax.js": "js"})  # fmt: skip
    report._mark_as_report(out)
    return folder_files(out)


def test_a_page_write_that_fails_midway_leaves_the_previous_report(
    notebooks, tmp_path, monkeypatch
):
    monkeypatch.setattr(report, "NOTEBOOKS", notebooks)
    out = tmp_path / "out"
    before = previous_report(out)
    fail_writing_midway(monkeypatch, "01_second.html")
    result = CliRunner().invoke(cli, ["report", "--out", str(out), "--no-progress"])
    assert result.exit_code == 1
    assert result.stderr == (
        f"error: {out / '01_second.html'}: cannot write (No space left on device)\n"
    )
    # The previous report, every byte of it; not the first page of the new one, nor the
    # folder it was being written in.
    assert folder_files(out) == before
    assert sorted(path.name for path in tmp_path.iterdir()) == ["notebooks", "out"]


def test_an_interrupted_report_leaves_the_previous_one_and_nothing_else(
    notebooks, tmp_path, monkeypatch
):
    out = tmp_path / "out"
    before = previous_report(out)
    render = report._render
    rendered = []

    def interrupted_at_the_second_page(notebook, title):
        rendered.append(title)
        if len(rendered) == 2:
            raise KeyboardInterrupt
        return render(notebook, title)

    monkeypatch.setattr(report, "_render", interrupted_at_the_second_page)
    with pytest.raises(KeyboardInterrupt):
        build_report(out, notebooks_dir=notebooks, progress=False)
    assert rendered == ["First $500 page", "Second page"]
    assert folder_files(out) == before
    assert sorted(path.name for path in tmp_path.iterdir()) == ["notebooks", "out"]


def test_an_interruption_kills_the_kernels_still_running_and_starts_no_other(
    notebooks, tmp_path, monkeypatch
):
    # Two notebooks at once, on any machine. The first page is interrupted while the second
    # and third notebooks sleep for ten minutes (the third may not have started yet); the
    # fourth waits for a free kernel. A kernel runs in a session of its own, which Ctrl-C
    # does not reach: the report kills it rather than wait, and starts no other.
    sleeping = [new_code_cell("import time\ntime.sleep(600)")]
    for name in "01_second", "02_third", "03_fourth":
        write_notebook(notebooks / f"{name}.ipynb", sleeping)
    monkeypatch.setattr(notebook_runs, "workers", lambda notebooks: 2)
    made = []
    monkeypatch.setattr(notebook_runs, "Kernels", lambda: made.append(Kernels()) or made[-1])

    def interrupted(notebook, title):
        raise KeyboardInterrupt

    monkeypatch.setattr(report, "_render", interrupted)
    with pytest.raises(KeyboardInterrupt):
        build_report(tmp_path / "out", notebooks_dir=notebooks, progress=False)
    (kernels,) = made
    ends = [
        "shut down" if manager.provisioner.process is None else manager.provisioner.process.poll()
        for manager in kernels.started
    ]
    # The first notebook's kernel, shut down when it ended; the second's, and the third's if
    # it had started, killed rather than left to sleep; none for the fourth.
    assert sorted(map(str, ends)) in (
        [str(-signal.SIGKILL), "shut down"],
        [str(-signal.SIGKILL), str(-signal.SIGKILL), "shut down"],
    )


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
    assert found.members_file == "members.csv (shipped sample)"
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
    before = dt.date.today()
    result = CliRunner().invoke(
        cli, ["report", "--members", str(members), "--out", str(out), "--no-progress"]
    )
    days = {before.isoformat(), dt.date.today().isoformat()}  # two if it ran across midnight
    assert result.exit_code == 0, result.output
    assert result.output.strip() == f"report: {out / 'index.html'}"
    assert sorted(path.name for path in out.iterdir()) == [
        ".actuarial-report",  # the marker: a later report may replace this folder
        "00_first.html",
        "01_second.html",
        "index.html",
        "mathjax",
    ]
    assert (out / "mathjax" / "MathJax.js").is_file()  # formulas render offline
    index = (out / "index.html").read_text()
    assert '<a href="00_first.html">First $500 page</a></td><td>ok</td>' in index
    assert '<a href="01_second.html">Second page</a></td><td>ok</td>' in index
    assert '<th>members read</th><td class="number">313</td>' in index  # key figures
    first = (out / "00_first.html").read_text()
    assert f"staff.csv {DEFAULT_SERIES} 1" in first  # ran with the inputs
    assert "guides_path =" not in first  # the parameter cells are hidden: the inputs box says
    inputs = first.split('<section class="report-inputs">')[1].split("</section>")[0]
    assert "<tr><th>member file</th><td>staff.csv (313 rows)</td></tr>" in inputs
    assert re.search(r"<tr><th>made</th><td>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC</td>", inputs)
    assert f"{DEFAULT_SERIES}: series <b>{DEFAULT_SERIES}</b> (used)" in inputs
    # The page takes no law files and no payment date (its notebook declares neither): its
    # box says so, rather than name inputs it never saw. The index names every input.
    for label in ("law files", "payment date"):
        assert f"<tr><th>{label}</th><td>{report.NOT_AN_INPUT}</td></tr>" in inputs
    index_inputs = index.split('<section class="report-inputs">')[1].split("</section>")[0]
    # The payment date by default, as in batch: the day the report was asked for.
    assert any(f"<tr><th>payment date</th><td>{day}</td></tr>" in index_inputs for day in days)
    law = shipped_law().provenance()[0]
    assert f"<tr><th>law files</th><td>{law['file']} (shipped) <code>{law['sha256'][:12]}" in (
        index_inputs
    )
    second = (out / "01_second.html").read_text()  # no parameters cell: none of the inputs
    assert f"<tr><th>member file</th><td>{report.NOT_AN_INPUT}</td></tr>" in second
    assert f"<b>{law['file']}</b> SHA-256 <code>{law['sha256']}</code>" in first  # footer
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
    for page in ("00_first.html", "index.html"):
        footer = (out / page).read_text().split('<footer class="provenance">')[1]
        assert html.escape(switched.describe()[3]) in footer  # I-4, switched
        assert html.escape(Readings().describe()[3]) not in footer
    # A page that takes no readings says so, rather than list the report's.
    footer = (out / "01_second.html").read_text().split('<footer class="provenance">')[1]
    assert f"Readings: {report.NOT_AN_INPUT}" in footer and "I-4" not in footer


def test_a_pages_footer_names_only_the_inputs_it_took(notebooks, tmp_path):
    # Under --law, pages that take no law files (00-06) said in their footer that the bill
    # was applied, and gave the report's payment date, above results of the shipped law.
    bill = tmp_path / "bill.toml"
    bill.write_text(law_entry("minimum_monthly_pension", "2027-01-01", 600, "USD a month"))
    build_report(tmp_path / "out", law_files=[bill], as_of="2027-06-01", notebooks_dir=notebooks)
    shipped = shipped_law().provenance()[0]
    shipped_line = f"<b>{shipped['file']}</b> SHA-256 <code>{shipped['sha256']}</code>"
    footers = {
        page: (tmp_path / "out" / page).read_text().split('<footer class="provenance">')[1]
        for page in ("00_first.html", "01_second.html", "index.html")
    }
    assert f"<b>bill.toml</b> SHA-256 <code>{sha256(bill)}</code>" in footers["index.html"]
    assert "payment date: <b>2027-06-01</b>" in footers["index.html"]
    for page in ("00_first.html", "01_second.html"):  # neither declares law_files nor as_of
        assert "bill.toml" not in footers[page]
        assert (
            f"{shipped_line} (the shipped law: the report's amendment files are not"
            in (footers[page])
        )
        assert f"payment date: {report.NOT_AN_INPUT}" in footers[page]
    # The first page takes the guides and the member file; the second, nothing.
    assert "guide series used: <b>" in footers["00_first.html"]
    assert "<b>members.csv (shipped sample)</b>: SHA-256" in footers["00_first.html"]
    assert f"guides: {report.NOT_AN_INPUT}" in footers["01_second.html"]
    assert f"Member file: {report.NOT_AN_INPUT}" in footers["01_second.html"]


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
    page = (out / "02_broken.html").read_text()
    assert "This cell failed. ValueError: on purpose" in page
    assert "Traceback" not in page and "papermill-error-cell" not in page
    assert '<span class="report-failed">FAILED</span>: ValueError: on purpose' in page
    index = (out / "index.html").read_text()
    assert (
        '<a href="02_broken.html">Broken</a></td><td><span class="report-failed">FAILED</span>: '
        "ValueError: on purpose (in the cell starting &quot;raise ValueError(&#x27;on purpose"
        "&#x27;)&quot;)</td>" in index
    )
    assert '<a href="01_second.html">Second page</a></td><td>ok</td>' in index


def test_report_command_exits_1_naming_the_failed_notebook(notebooks, tmp_path, monkeypatch):
    write_notebook(notebooks / "02_broken.ipynb", [new_code_cell("1 / 0")])
    monkeypatch.setattr(report, "NOTEBOOKS", notebooks)
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["report", "--out", str(out), "--no-progress"])
    assert result.exit_code == 1
    assert "02_broken.ipynb: ZeroDivisionError: division by zero" in result.output
    assert (out / "02_broken.html").is_file() and (out / "index.html").is_file()


# ----------------------------------------------------------------- --out
def test_the_valuation_page_runs_to_the_end_without_a_valid_member(tmp_path):
    """Every row invalid (as in a header-only file, checked by hand for every page): no
    subsidy by age to plot, and the page says so instead of failing."""
    lines = EXAMPLE_MEMBERS.read_text(encoding="utf-8").splitlines()
    members = tmp_path / "invalid.csv"
    members.write_text(
        "\n".join([lines[0], *(line.replace(",", ",x", 1) for line in lines[1:3])]) + "\n"
    )  # each birth date made "x..."
    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    shutil.copy(report.NOTEBOOKS / "08_value_of_choices.ipynb", notebooks)
    out = tmp_path / "out"
    build_report(out, members_path=members, notebooks_dir=notebooks, progress=False)
    page = (out / "08_value_of_choices.html").read_text(encoding="utf-8")
    assert "invalid.csv: no member to show by age" in page


FOOTER = '<footer class="provenance">made by actuarial report</footer></body></html>'


def test_out_may_be_missing_empty_or_a_previous_report(tmp_path):
    report.check_out_dir(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    report.check_out_dir(tmp_path / "empty")
    listed = tmp_path / "listed"  # its marker lists every file and folder it wrote
    write_files(listed, {"index.html": "<html></html>", "mathjax/any/file.js": "js"})
    report._mark_as_report(listed)
    report.check_out_dir(listed)
    # Reports whose marker lists less (or that have none) are known by their pages' footer
    # and by holding no file but MathJax's under mathjax/.
    for marker in [None, "", "Written by `actuarial report` ... The report wrote:\nindex.html\n"]:
        legacy = tmp_path / f"legacy-{marker is None}-{len(marker or '')}"
        write_files(
            legacy,
            {"index.html": FOOTER, "00_overview.html": FOOTER, "mathjax/MathJax.js": "js",
             "mathjax/config/TeX-AMS-MML_HTMLorMML-full.js": "js"},
        )  # fmt: skip
        if marker is not None:
            (legacy / report.MARKER).write_text(marker)
        report.check_out_dir(legacy)


@pytest.mark.parametrize(
    ("files", "holds"),
    [
        ({"index.html": "<h1>my site</h1>"}, "index.html"),  # no footer: someone else's page
        ({"index.html": FOOTER, "01_notes.html": "mine"}, "01_notes.html"),
        ({"index.html": FOOTER, "mathjax/data.txt": "mine"}, "mathjax/data.txt"),
        ({"index.html": FOOTER, "notes/a.txt": "mine"}, "notes/"),
        ({"00_overview.html": FOOTER}, "00_overview.html"),  # no index: no report
    ],
)
@pytest.mark.parametrize("marker", [None, ""])
def test_a_folder_not_listed_whole_by_a_marker_is_refused_unless_all_of_it_is_a_reports(
    tmp_path, files, holds, marker
):
    # A user's www/ holding only index.html was taken for a report and replaced: the page
    # was lost. So were files put into a previous report's mathjax/.
    write_files(tmp_path / "out", files)
    if marker is not None:
        (tmp_path / "out" / report.MARKER).write_text(marker)
    before = folder_files(tmp_path / "out")
    with pytest.raises(ReportError, match=rf"it (also )?holds {re.escape(holds)}[,;)]"):
        report.check_out_dir(tmp_path / "out")
    assert folder_files(tmp_path / "out") == before


def test_report_out_that_is_a_file_is_an_error_line_as_elsewhere(tmp_path):
    # click's usage error (exit 2, "Directory ... is a file.") before: batch, value and
    # guides derive say what is wrong in one line, exit 1.
    out = tmp_path / "members.csv"
    out.write_text("mine\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["report", "--out", str(out), "--no-progress"])
    assert (result.exit_code, result.output) == (
        1,
        f"error: {out}: --out must be a folder for the report (it is a file)\n",
    )
    assert out.read_text(encoding="utf-8") == "mine\n"


def test_out_is_refused_when_it_holds_anything_else(tmp_path):
    with pytest.raises(
        ReportError,
        match=r"guides: not a report folder \(it holds "
        r"illustrative-half-percent-per-month/, .*choose another --out",
    ):
        report.check_out_dir(SHIPPED_GUIDES)
    (tmp_path / "index.html").write_text("a page of someone else")
    (tmp_path / "members.csv").write_text("member_id\n")
    # index.html without the report's footer: someone else's page
    with pytest.raises(
        ReportError, match=r"not a report folder \(it holds index.html, members.csv\)"
    ):
        report.check_out_dir(tmp_path)
    with pytest.raises(
        ReportError,
        match=r"members.csv: --out must be a folder for the "
        r"report \(it is a file\)$",
    ):
        report.check_out_dir(tmp_path / "members.csv")
    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(
        ReportError,
        match=r"pipe: --out must be a folder for the report \(it is "
        r"a named pipe\)$",
    ):
        report.check_out_dir(tmp_path / "pipe")


def test_a_refused_out_is_left_untouched_and_nothing_runs(notebooks, tmp_path, monkeypatch):
    monkeypatch.setattr(report, "NOTEBOOKS", notebooks)
    out = tmp_path / "mine"
    out.mkdir()
    (out / "thesis.txt").write_text("not to be lost")
    result = CliRunner().invoke(cli, ["report", "--out", str(out), "--no-progress"])
    assert result.exit_code == 1
    assert f"error: {out}: not a report folder (it holds thesis.txt)" in result.output
    assert sorted(path.name for path in out.iterdir()) == ["thesis.txt"]


@pytest.mark.parametrize(
    "read", ["the member file", "a member file in a subfolder", "a guide file", "a law file"]
)
def test_report_refuses_a_previous_report_folder_holding_a_file_it_reads(
    notebooks, tmp_path, monkeypatch, make_guide, read
):
    # A previous report is replaced: the folder is emptied first, and with it whatever was
    # put there since, so the report must not read anything from it.
    monkeypatch.setattr(report, "NOTEBOOKS", notebooks)
    out = (tmp_path / "out").resolve()
    out.mkdir()
    (out / report.MARKER).write_text("")
    if read == "the member file":
        victim = out / "members.csv"
        shutil.copy(EXAMPLE_MEMBERS, victim)
        args = ["--members", victim]
    elif read == "a member file in a subfolder":
        victim = out / "data" / "members.csv"
        victim.parent.mkdir()
        shutil.copy(EXAMPLE_MEMBERS, victim)
        args = ["--members", victim]
    elif read == "a guide file":
        guide = make_guide("g", root=out / "guides")
        victim = guide / "guide.toml"
        args = ["--guides", out / "guides"]
    else:
        victim = out / "bill.toml"
        shutil.copy(Path(__file__).resolve().parents[1] / "examples" / "bill-2027.toml", victim)
        args = ["--law", victim]
    before = {path: path.read_bytes() for path in out.rglob("*") if path.is_file()}
    result = CliRunner().invoke(
        cli, ["report", *map(str, args), "--out", str(out), "--no-progress"]
    )
    assert result.exit_code == 1, result.output
    assert result.stderr == f"error: {holds_input(out, victim)}\n"
    after = {path: path.read_bytes() for path in out.rglob("*") if path.is_file()}
    assert after == before


@pytest.mark.parametrize("where", ["report", "deeper/report", "g/report"])
def test_report_refuses_an_out_inside_the_guides_folder(
    notebooks, tmp_path, monkeypatch, make_guide, where
):
    # --out my-guides/report was written, and every later run on --guides my-guides (batch,
    # report, guides validate) failed: "my-guides/report/guide.toml: guide.toml is missing".
    monkeypatch.setattr(report, "NOTEBOOKS", notebooks)
    guides = make_guide("g").parent
    before = {path: path.read_bytes() if path.is_file() else None for path in guides.rglob("*")}
    out = guides / where
    result = CliRunner().invoke(
        cli, ["report", "--guides", str(guides), "--out", str(out), "--no-progress"]
    )
    assert result.exit_code == 1, result.output
    assert result.stderr == (
        f"error: {out}: the output folder is inside the guides folder {guides}, every folder of "
        "which is read as a guide; refused: choose a folder outside it\n"
    )
    assert {p: p.read_bytes() if p.is_file() else None for p in guides.rglob("*")} == before


def test_the_provenance_says_when_the_member_file_is_the_shipped_sample(tmp_path):
    # Without --members the report ran on the shipped sample and said only "members.csv",
    # as it would of a user's own file of that name.
    guides = actuarial.load_guides(SHIPPED_GUIDES, DEFAULT_SERIES)
    own = tmp_path / "members.csv"
    shutil.copy(EXAMPLE_MEMBERS, own)
    sample = report.provenance(guides, SHIPPED_GUIDES, EXAMPLE_MEMBERS)
    assert sample.members_file == "members.csv (shipped sample)"
    assert "<tr><th>member file</th><td>members.csv (shipped sample) (313 rows)</td>" in (
        sample.inputs_html(313)
    )
    assert report.provenance(guides, SHIPPED_GUIDES, own).members_file == "members.csv"


def test_the_readings_in_the_provenance_state_the_law_in_force_on_the_payment_date():
    # Under examples/bill-2027.toml ($600 from 2027) every page's footer said the minimum
    # on the payment date was $500.00: the shipped law's, not the law the report used.
    guides = actuarial.load_guides(SHIPPED_GUIDES, DEFAULT_SERIES)
    bill = REPOSITORY / "examples" / "bill-2027.toml"
    for as_of, minimum in [
        (dt.date(2026, 12, 31), "500.00; $600.00 from 2027-01-01"),  # a later payment's too
        (dt.date(2027, 1, 1), "600.00"),
    ]:
        made = report.provenance(guides, SHIPPED_GUIDES, EXAMPLE_MEMBERS, as_of=as_of, law=bill)
        assert made.readings[3] == (
            f"I-4 Minimum pension: the monthly minimum in force on the payment date (${minimum}) "
            "on every Chapter 2 annuity [minimum_applies_to='all', default]"
        )
        assert html.escape(made.readings[3]) in made.html()


@pytest.mark.parametrize("given", [str, Path])
def test_one_law_file_is_taken_as_law_is_elsewhere(notebooks, tmp_path, monkeypatch, given):
    # law_files="bill.toml" read "b", "i", "l", "l", ".", ... as law files, "." the current
    # folder: "r: cannot read the law file (Is a directory)".
    monkeypatch.chdir(tmp_path)
    shutil.copy(REPOSITORY / "examples" / "bill-2027.toml", "bill.toml")
    index = build_report("out", law_files=given("bill.toml"), notebooks_dir=notebooks)
    inputs = index.read_text().split('<section class="report-inputs">')[1]
    digest = sha256(tmp_path / "bill.toml")
    assert f"<br>bill.toml <code>{digest[:12]}</code></td></tr>" in inputs


@pytest.mark.parametrize("option", ["--out", "--guides", "--members", "--law"])
def test_a_loop_of_symbolic_links_is_one_error_line_not_a_traceback(
    notebooks, tmp_path, monkeypatch, option
):
    # Path.resolve raised RuntimeError ("Symlink loop from ...") out of the command.
    monkeypatch.setattr(report, "NOTEBOOKS", notebooks)
    loop = tmp_path / "loop"
    loop.symlink_to(tmp_path / "back")
    (tmp_path / "back").symlink_to(loop)
    out = ["--out", str(tmp_path / "out")] if option != "--out" else []
    result = CliRunner().invoke(cli, ["report", option, str(loop), *out, "--no-progress"])
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith(f"error: {loop}: ") and result.stderr.count("\n") == 1
    if option == "--out":
        assert result.stderr == (
            f"error: {loop}: --out must be a folder for the report (it is a loop of symbolic "
            "links)\n"
        )
    assert sorted(path.name for path in tmp_path.iterdir()) == ["back", "loop", "notebooks"]


def test_a_warning_on_a_page_names_no_file_of_the_machine(tmp_path):
    # A LawNote of an amended law (notebook 07's load_law) was shown as
    # "/tmp/ipykernel_9662/3382088222.py:4: LawNote: ...", then the line of code.
    folder = tmp_path / "notebooks"
    folder.mkdir()
    write_notebook(
        folder / "00_warns.ipynb",
        [new_code_cell('import warnings\nwarnings.warn("no age is left to (c)", UserWarning)')],
    )
    build_report(tmp_path / "out", notebooks_dir=folder, progress=False)
    page = (tmp_path / "out" / "00_warns.html").read_text()
    assert "<pre>UserWarning: no age is left to (c)\n</pre>" in page
    assert "ipykernel" not in page and "warnings.warn(" not in page


def test_a_previous_report_is_replaced_whole(notebooks, tmp_path):
    out = tmp_path / "out"
    build_report(out, notebooks_dir=notebooks, progress=False)
    written = (out / report.MARKER).read_text(encoding="utf-8")
    assert "\n00_first.html\n01_second.html\nindex.html\nmathjax/\nmathjax/LICENSE\n" in written
    # A page of a notebook since removed, as the report that wrote it listed it
    (out / "99_stale.html").write_text("from a notebook since removed")
    (out / report.MARKER).write_text(written + "99_stale.html\n", encoding="utf-8")
    build_report(out, notebooks_dir=notebooks, progress=False)
    assert not (out / "99_stale.html").exists()
    assert (out / report.MARKER).read_text(encoding="utf-8") == written


@pytest.mark.parametrize(
    "added", ["my-notes.txt", "attachments/a.pdf", "00_mine.html", "mathjax/notes.txt"]
)
def test_a_previous_report_holding_a_file_it_did_not_write_is_refused_untouched(
    notebooks, tmp_path, monkeypatch, added
):
    # A report folder into which a reader had put notes was replaced: the notes were lost.
    monkeypatch.setattr(report, "NOTEBOOKS", notebooks)
    out = tmp_path / "out"
    build_report(out, notebooks_dir=notebooks, progress=False)
    write_files(out, {added: "mine"})
    shown = "attachments/" if added.startswith("attachments") else added  # a folder, by name
    before = {path: path.read_bytes() for path in out.rglob("*") if path.is_file()}
    result = CliRunner().invoke(cli, ["report", "--out", str(out), "--no-progress"])
    assert result.exit_code == 1
    assert result.stderr == (
        f"error: {out}: a previous report, but it also holds {shown}, which the "
        "report did not write and would delete: move it, or choose another --out\n"
    )
    assert {path: path.read_bytes() for path in out.rglob("*") if path.is_file()} == before


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("missing.csv", None, r"missing\.csv: cannot read the member file \(no such file\)"),
        ("members.txt", "member_id\n", r"members\.txt: a member file must end in one of"),
        ("members.csv", "member_id\nM-1\n", r"members\.csv: missing required column\(s\)"),
    ],
)
def test_report_refuses_a_member_file_it_cannot_read_before_running_anything(
    notebooks, tmp_path, name, text, message
):
    members = tmp_path / name
    if text is not None:
        members.write_text(text)
    with pytest.raises(MemberFileError, match=message):
        build_report(tmp_path / "out", members_path=members, notebooks_dir=notebooks)
    assert not (tmp_path / "out").exists()


def test_report_names_a_member_file_it_cannot_read_as_given(notebooks, tmp_path, monkeypatch):
    # It named the file by its absolute path: "/tmp/.../here/missing.csv: cannot read ...".
    monkeypatch.chdir(tmp_path)
    with pytest.raises(MemberFileError) as refused:
        build_report("out", members_path="missing.csv", notebooks_dir=notebooks)
    assert str(refused.value) == "missing.csv: cannot read the member file (no such file)"


def test_report_command_fails_with_the_guide_problem_and_exit_status_1(tmp_path):
    result = CliRunner().invoke(
        cli, ["report", "--guides", str(tmp_path), "--out", str(tmp_path / "out")]
    )
    assert result.exit_code == 1
    assert "no guide found" in result.output


# ----------------------------------------------------------------- formulas and dollars
def test_dollar_amounts_stay_text_and_formulas_get_mathjax_delimiters():
    notebook = new_notebook(
        cells=[
            new_markdown_cell(
                "# Page\n\nde quinientos dólares ($500) mensuales, efectivo el, 1ro de julio "
                "de 2013 ... de quinientos dólares (\\$500).\n\n"
                "With 48,000 and 25 years the annuity is $18,000.00; \\\\(AC \\times S\\\\).\n\n"
                "$$\nf(x) = \\ddot{a}^{(12)}_x\n$$"
            )
        ]
    )
    page = report._render(notebook, "Page")
    assert (
        "de quinientos dólares ($500) mensuales, efectivo el, 1ro de julio de 2013 ... "
        "de quinientos dólares ($500)." in page
    )
    assert "With 48,000 and 25 years the annuity is $18,000.00; \\(AC \\times S\\)." in page
    assert "\\[\nf(x) = \\ddot{a}^{(12)}_x\n\\]" in page
    config = report.MATHJAX_CONFIG
    assert 'inlineMath: [["\\\\(", "\\\\)"]]' in config and "'$'" not in config
    assert '"$"' not in config and "$$" not in config


def test_a_prose_cell_becomes_the_markdown_it_wrote():
    written = r"A minimum of $500 a month, \\(S \ge 10\\)."  # as pages.prose writes it
    cell = new_code_cell("pages.prose(template, **numbers)")
    cell.metadata["tags"] = ["prose"]
    cell.outputs = [
        new_output("display_data", {"text/markdown": written, "text/plain": "<Markdown>"})
    ]
    page = report._render(report._readers_view(new_notebook(cells=[cell])), "Page")
    assert r"<p>A minimum of $500 a month, \(S \ge 10\).</p>" in page  # a formula for MathJax
    assert "pages.prose" not in page and "jp-OutputArea jp-Cell-outputArea" not in page


def test_a_link_to_a_notebook_of_the_report_leads_to_its_page():
    # The overview linked to 01_inciso_a.ipynb and others: files the report does not hold.
    page = report._render(
        new_notebook(
            cells=[
                new_markdown_cell(
                    "# Page\n\n[a](01_inciso_a.ipynb), [guides](05_actuarial_guides.ipynb#loading),"
                    " [readings](../docs/readings.md), [web](https://example.org/02_x.ipynb),"
                    " [other](notes.ipynb), [folder](sub/03_x.ipynb)"
                )
            ]
        ),
        "Page",
    )
    hrefs = re.findall(r'<a href="([^"]*)"', page)
    assert hrefs == [
        "01_inciso_a.html",
        "05_actuarial_guides.html#loading",
        "../docs/readings.md",
        "https://example.org/02_x.ipynb",
        "notes.ipynb",
        "sub/03_x.ipynb",
    ]


def test_every_table_of_every_page_is_a_table_for_people():
    """Page 09 showed plain DataFrames: no caption, an index of row numbers (0, 2, 3, 10, ...)
    and floats as pandas prints them. Each table is a pages.Table: captioned, formatted."""
    raw = [
        f"{path.name}: cell {number}"
        for path in report.notebook_paths()
        for number, cell in enumerate(nbformat.read(path, as_version=4).cells)
        for output in cell.get("outputs", [])
        if 'class="dataframe' in str(output.get("data", {}).get("text/html", ""))
    ]
    assert raw == []


def test_every_notebook_declares_its_inputs_and_needs_no_pytest():
    """The report runs the notebooks where only the runtime dependencies are installed: no
    notebook imports pytest (assertions use math and numpy, errors ``pages.show_error``), and
    each takes its inputs from a cell tagged ``parameters``."""
    for path in report.notebook_paths():
        notebook = nbformat.read(path, as_version=4)
        code = "\n".join(cell.source for cell in notebook.cells if cell.cell_type == "code")
        assert not re.search(r"\bpytest\b", code), f"{path.name} uses pytest"
        assert report._declared_parameters(path), f"{path.name} has no cell tagged parameters"


def test_index_key_figures_count_rows_with_warnings_beside_rows_with_errors(
    tmp_path, half_percent_guides
):
    members = tmp_path / "members.csv"
    members.write_text(
        "member_id,birth_date,entry_date,separation_date,credited_service,"
        "average_compensation,group,refunded\n"
        "CLEAN,1960-01-01,1995-01-01,2025-01-01,30,40000,general,false\n"
        "LOW,1960-01-01,1995-01-01,2025-01-01,30,800,general,false\n"  # compensation: warning
        "LATE,1960-01-01,1995-01-01,2026-07-01,30,40000,general,false\n"  # after the payment
        "BAD,1960-01-01,1995-01-01,2025-01-01,-1,40000,general,false\n",  # an error
        encoding="utf-8",
    )
    figures = report._key_figures(
        half_percent_guides, members, Readings(), dt.date(2026, 6, 1), shipped_law()
    )
    summary = report._summary_html(figures)
    counts = re.findall(r"<tr><th>([^<]+)</th><td class=\"number\">([\d,]+)</td></tr>", summary)
    assert counts[:3] == [("members read", "4"), ("invalid rows", "1"), ("rows with warnings", "2")]
    header = re.findall(r"<th class=\"number\">([^<]+)</th>", summary)
    assert header[-2:] == ["rows with an error", "rows with warnings"]
    # Born 1960, 30 years of service, separated at 65: eligible under (a) and (d), the two
    # warned members on each; nothing under (b) (general group) or (c) (at 65, (a) applies).
    rows = re.findall(r"<tr><td>inciso \((\w)\)</td>(.*?)</tr>", summary)
    warned = {clause: re.findall(r">([\d,.]+)</td>", cells)[-1] for clause, cells in rows}
    assert warned == {
        clause: str(int(count)) for clause, count in figures["clauses"]["warnings"].items()
    }
    assert warned["a"] == "2"


def test_the_provenance_says_what_the_law_in_force_can_never_apply(tmp_path):
    # An amendment that empties the coverage window was in the footer as a file and its
    # SHA-256 only; the report's reader now sees the LawNote the command line prints.
    guides = actuarial.load_guides(SHIPPED_GUIDES, DEFAULT_SERIES)
    closing = tmp_path / "closing.toml"
    closing.write_text(
        "[[coverage.first_entry_before]]\neffective_from = 2028-01-01\nvalue = 1990-04-01\n"
        'unit = "date"\nsource = "Test bill"\n',
        encoding="utf-8",
    )
    bill = REPOSITORY / "examples" / "bill-2027.toml"
    with pytest.warns(LawNote):
        made = report.provenance(guides, SHIPPED_GUIDES, EXAMPLE_MEMBERS, law=[closing, bill])
    assert made.law_notes == (
        "from 2028-01-01: the coverage window is empty: no first entry is covered (I-1); in "
        "force: actuarial/law/law.toml:82: 'coverage.first_entry_on_or_after' entry 1 "
        "(effective_from 1990-04-01) = 1990-04-01 and closing.toml:1: "
        "'coverage.first_entry_before' entry 1 (effective_from 2028-01-01) = 1990-04-01",
    )
    assert str(tmp_path) not in made.html()  # the amendment by its name alone
    assert f"<li>{html.escape(made.law_notes[0])}</li>" in made.html()
    names = ["actuarial/law/law.toml", "closing.toml", "bill-2027.toml"]
    assert [name for name, _ in made.law_files] == names
    shipped = report.provenance(guides, SHIPPED_GUIDES, EXAMPLE_MEMBERS, law=bill)
    assert shipped.law_notes == () and "can never take effect" not in shipped.html()


@pytest.mark.parametrize("notebook", ["07_membership_report", "09_amendments"])
def test_the_pages_follow_the_reports_readings(tmp_path, notebook):
    """With --minimum-applies-to a, page 09 costed the bill on the default readings (gains on
    (c) and (d) from the $600 minimum) above a box saying otherwise, and page 07 said the
    minimum reaches every clause."""
    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    shutil.copy(report.NOTEBOOKS / f"{notebook}.ipynb", notebooks)
    shutil.copytree(REPOSITORY / "examples", tmp_path / "examples")
    build_report(
        tmp_path / "out",
        readings=Readings(minimum_applies_to="a"),
        as_of=dt.date(2027, 6, 1),
        law_files=[tmp_path / "examples" / "bill-2027.toml"],
        notebooks_dir=notebooks,
        progress=False,
    )
    page = html.unescape((tmp_path / "out" / f"{notebook}.html").read_text(encoding="utf-8"))
    assert "Traceback" not in page
    if notebook == "07_membership_report":
        assert "on inciso (a) annuities only [minimum_applies_to='a', switched]." in page
        assert "on every clause" not in page
        return
    # The same bill on the same date and readings, costed twice on the page: one answer.
    costed = re.search(r"(\d+) members change on (\d+) clause rows, (\$[\d,.]+) a month", page)
    own = re.search(
        r"(\d+) members change on (\d+) clause rows: \d+ gain, 0 lose, 0 start later, "
        r"0 earlier, (\$[\d,.]+)",
        page,
    )
    assert costed is not None and own is not None
    assert costed.groups() == own.groups()
    assert costed[1] == "4"  # the four (a) rows the $600 lifts: (c) and (d) keep $500


def test_the_amendments_page_costs_the_reports_own_law_files(tmp_path):
    """Page 09 compared only its example bill, whatever ``--law`` the report was given."""
    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    shutil.copy(report.NOTEBOOKS / "09_amendments.ipynb", notebooks)
    shutil.copytree(REPOSITORY / "examples", tmp_path / "examples")  # its example bill
    bill = tmp_path / "lower.toml"
    bill.write_text(law_entry("minimum_monthly_pension", "2020-01-01", 400, "USD a month"))
    build_report(
        tmp_path / "out",
        law_files=[bill],
        as_of="2026-06-01",
        notebooks_dir=notebooks,
        progress=False,
    )
    page = (tmp_path / "out" / "09_amendments.html").read_text(encoding="utf-8")
    # By hand: each row the $500 minimum lifts on the shipped inputs loses its top-up, down
    # to $400 at most.
    shipped = evaluate_frame(
        read_members(EXAMPLE_MEMBERS),
        load_guides(SHIPPED_GUIDES, DEFAULT_SERIES),
        as_of=dt.date(2026, 6, 1),
    )
    lifted = shipped.loc[shipped["minimum_topup"] > 0]
    loss = lifted["minimum_topup"].clip(upper=100.0).sum()
    assert "law: shipped + lower.toml; as of 2026-06-01; readings: defaults" in page
    assert (
        f"{lifted['member_id'].nunique()} members change on {len(lifted)} clause rows: "
        f"0 gain, {len(lifted)} lose, 0 start later, 0 earlier, -${loss:,.2f} a month in all"
    ) in page
    assert "Traceback" not in page and str(tmp_path) not in page


# What a kernel says of its sockets: the transport and where it listens.
KERNEL_SOCKETS = (
    "from ipykernel.kernelapp import IPKernelApp\n"
    "app = IPKernelApp.instance()\n"
    'print(f"transport: {app.transport} at: {app.ip}")'
)


@pytest.mark.skipif(os.name != "posix", reason="sockets as files are POSIX's")
def test_kernels_listen_on_files_not_on_ports_another_process_may_take(tmp_path):
    # Over TCP, jupyter_client picks free ports and the kernel binds them a second later; a
    # kernel of another report (two make test workers) took one in between and this one died
    # ("Address already in use"). A folder of the run holds the sockets, removed after it.
    folder = tmp_path / "notebooks"
    folder.mkdir()
    write_notebook(folder / "00_kernel.ipynb", [new_code_cell(KERNEL_SOCKETS)])
    build_report(tmp_path / "out", notebooks_dir=folder, progress=False)
    page = (tmp_path / "out" / "00_kernel.html").read_text(encoding="utf-8")
    in_place = folder / "00_kernel.ipynb"
    execute_in_place(in_place)  # make notebooks' way
    printed = nbformat.read(in_place, as_version=4).cells[0].outputs[0]["text"]
    for said in (page, printed):
        transport, where = re.search(r"transport: (\w+) at: (\S+)", said).groups()
        assert transport == "ipc"
        assert len(where) < 90 and not Path(where).parent.exists()


KERNEL_CONFIG = (
    "import matplotlib\n"
    "from IPython.paths import get_ipython_dir\n"
    'print("config:", matplotlib.get_configdir(), matplotlib.get_cachedir(), get_ipython_dir())'
)


def test_a_report_writes_nothing_into_the_users_home(tmp_path, monkeypatch):
    """Kernels kept matplotlib's and IPython's caches in the user's home: a home that could
    not be written put "mkdir -p failed for path /nonexistent/.config/matplotlib ..." and a
    temporary folder's path on pages 01-08, and a writable one was written outside --out.
    They are kept in the run's own temporary folder, removed after it."""
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    for name in ("MPLCONFIGDIR", "IPYTHONDIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    folder = tmp_path / "notebooks"
    folder.mkdir()
    write_notebook(folder / "00_config.ipynb", [new_code_cell(KERNEL_CONFIG)])
    build_report(tmp_path / "out", notebooks_dir=folder, progress=False)
    in_place = folder / "00_config.ipynb"
    execute_in_place(in_place)  # make notebooks' way
    printed = nbformat.read(in_place, as_version=4).cells[0].outputs[0]["text"]
    assert not home.exists()
    for where in printed.split()[1:]:
        assert not Path(where).exists()  # removed with the run
    page = (tmp_path / "out" / "00_config.html").read_text(encoding="utf-8")
    assert "config:" in page and str(home) not in page
