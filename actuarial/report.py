"""The HTML report: every notebook run on the same inputs, rendered, each page with its provenance.

``build_report`` runs each ``notebooks/NN_*.ipynb`` (package data) through papermill from a
temporary copy beside copies of the shipped folders (the inputs injected as paths relative to
it, or absolute when outside them, and shown on the page relative to the project or by file
name, so that no page shows an absolute path), renders it with nbconvert
and writes ``index.html``. Every page ends with a provenance footer: package version, git
commit (or "installed package"), each guide's SHA-256, the member file's SHA-256 and the
readings in force.

``normalize_notebook`` and ``execute_in_place`` keep the committed notebooks reviewable:
outputs kept; execution counts renumbered in order, kernel metadata and timings dropped, cell
ids stable (``make notebooks``).
"""

from __future__ import annotations

import ast
import datetime as dt
import errno
import fnmatch
import html
import json
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import nbformat

import actuarial
from actuarial import shipped
from actuarial.distribution import installed_version
from actuarial.guides import (
    GuideSet,
    file_sha256,
    guides_to_read,
    load_guides,
)
from actuarial.interpretations import Readings
from actuarial.law import load_law, resolve_as_of
from actuarial.law.notes import law_notes
from actuarial.member_files import readable_member_file
from actuarial.notebook_runs import kernel_manager_class, run_at_once
from actuarial.output_files import (
    check_output_folder,
    special_kind,
    takes_paths,
    writing,
    writing_folder,
)
from actuarial.review import guides_in, readings_in_force

__all__ = [
    "EXAMPLE_MEMBERS",
    "MARKER",
    "KERNEL_NAME",
    "NOTEBOOKS",
    "Provenance",
    "ReportError",
    "build_report",
    "check_out_dir",
    "execute_in_place",
    "git_commit",
    "normalize_notebook",
    "notebook_paths",
    "notebook_title",
    "provenance",
]

REPOSITORY = Path(__file__).resolve().parents[1]
NOTEBOOKS = shipped.NOTEBOOKS  # package data, like the sample member file
EXAMPLE_MEMBERS = shipped.EXAMPLE_MEMBERS
KERNEL_NAME = "python3"
# The kernel's own log (e.g. ipykernel 7's warning about TCP transport) is console noise;
# cell errors reach us as outputs whatever the level.
KERNEL_ARGUMENTS = ["--IPKernelApp.log_level=CRITICAL"]
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": KERNEL_NAME}
NOTEBOOK_PATTERN = "[0-9][0-9]_*.ipynb"
REPORT_TITLE = "Chapter 2 annuities: report"
CELL_METADATA_KEPT = ("tags",)
_FOOTER = '<footer class="provenance">'  # every page's provenance: how a report's page is known


class ReportError(RuntimeError):
    """A notebook could not be run or rendered (which notebook, which cell, which error)."""


# --------------------------------------------------------------------- notebooks
@takes_paths("folder")
def notebook_paths(folder=NOTEBOOKS) -> list[Path]:
    """The notebooks of a folder in statute order (``NN_<topic>.ipynb``)."""
    return sorted(Path(folder).glob(NOTEBOOK_PATTERN))


def notebook_title(notebook) -> str:
    """The first heading of the first markdown cell, without its ``#`` marks."""
    for cell in notebook.cells:
        if cell.cell_type != "markdown":
            continue
        for line in cell.source.splitlines():
            if line.startswith("#"):
                return re.sub(r"\\([\\`*_{}\[\]()#+\-.!$])", r"\1", line.lstrip("#").strip())
        break
    return ""


def normalize_notebook(notebook):
    """Strip what changes from run to run and keep the outputs (in place; returns it).

    Code cells are numbered 1, 2, 3, ... in order, as a clean top-to-bottom run numbers
    them (not null: nbval reads a cell with outputs and no count as never run, and fails);
    notebook metadata keeps only the kernelspec and the language name; cell metadata keeps
    only ``tags``; cell ids become ``cell-00``, ``cell-01``, ... in order.
    """
    notebook.nbformat, notebook.nbformat_minor = 4, max(5, notebook.get("nbformat_minor", 5))
    notebook.metadata = nbformat.from_dict(
        {"kernelspec": dict(KERNELSPEC), "language_info": {"name": "python"}}
    )
    count = 0
    for index, cell in enumerate(notebook.cells):
        cell.id = f"cell-{index:02d}"
        cell.metadata = nbformat.from_dict(
            {key: cell.metadata[key] for key in CELL_METADATA_KEPT if cell.metadata.get(key)}
        )
        if cell.cell_type == "code":
            count += 1
            cell.execution_count = count
            for output in cell.outputs:
                if "execution_count" in output:
                    output.execution_count = count
                output.pop("transient", None)
    return notebook


@takes_paths("path")
def execute_in_place(path, timeout: int = 600) -> bool:
    """Run a notebook top to bottom (cwd: its folder), normalize it and save it.

    Returns whether the file changed. A failing cell raises :class:`ReportError` and the
    file is left as it was.
    """
    from nbclient.exceptions import CellExecutionError
    from nbconvert.preprocessors import ExecutePreprocessor

    path = Path(path)
    before = path.read_text(encoding="utf-8")
    notebook = nbformat.reads(before, as_version=4)
    try:
        with tempfile.TemporaryDirectory(prefix="kernels-") as sockets:
            runner = ExecutePreprocessor(
                timeout=timeout,
                kernel_name=KERNEL_NAME,
                extra_arguments=KERNEL_ARGUMENTS,
                coalesce_streams=True,  # one stream output per cell, however they were flushed
                kernel_manager_class=kernel_manager_class(sockets),  # no port taken meanwhile
            )
            runner.preprocess(notebook, {"metadata": {"path": str(path.parent)}})
    except CellExecutionError as error:
        raise ReportError(f"{path.name}: a cell failed, the file is unchanged\n{error}") from None
    normalize_notebook(notebook)
    nbformat.validate(notebook)
    after = nbformat.writes(notebook) + "\n"
    if after != before:
        _write_whole(path, after)
    return after != before


def _write_whole(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` whole or not at all: into a temporary file renamed onto it
    (:func:`~actuarial.output_files.writing`), so an interrupted run leaves the previous
    file or the complete new one, never half a page. The shipped notebooks included: this
    is how ``make notebooks`` rewrites them."""
    with writing(path, package_files=True) as temporary:
        temporary.write_text(text, encoding="utf-8")


# --------------------------------------------------------------------- provenance
@takes_paths("repository", "paths")
def git_commit(repository=REPOSITORY, paths: Iterable[str] = ()) -> str:
    """``git rev-parse HEAD`` of the repository the package runs from, or ``"unknown"``.

    A tracked file changed since that commit (under ``paths``, when given) adds " with
    uncommitted changes": what was made did not come from the commit alone.
    """
    repository = Path(repository).resolve()

    def git(*args: str) -> str | None:
        try:
            done = subprocess.run(
                ["git", "-C", str(repository), *args],
                capture_output=True,
                text=True,
                timeout=10,
                check=False,
            )
        except (OSError, subprocess.SubprocessError):
            return None
        return done.stdout.strip() if done.returncode == 0 else None

    top = git("rev-parse", "--show-toplevel")
    if top is None or Path(top).resolve() != repository:  # not a checkout of this package
        return "unknown"
    commit = git("rev-parse", "HEAD")
    if commit is None:
        return "unknown"
    changed = git("status", "--porcelain", "--untracked-files=no", "--", *paths)
    return commit + (" with uncommitted changes" if changed else "")


@dataclass(frozen=True, slots=True)
class Provenance:
    """What a report was made from and when: code version, guides, member file, readings,
    payment date, the time it was made (UTC)."""

    version: str
    commit: str | None  # None: an installed package (no checkout, no commit)
    series: str
    guides: tuple[tuple[str, str, tuple[tuple[str, str], ...]], ...]  # (id, series, files)
    members_file: str  # file name only; "members.csv (shipped sample)" for the sample
    members_sha256: str
    readings: tuple[str, ...]
    guide_details: tuple[tuple[str, str, str, str], ...] = ()  # (id, series, status, period)
    guides_folder: str = ""  # shown without an absolute path
    payment_date: str = ""
    law_files: tuple[tuple[str, str], ...] = ()  # (file name, SHA-256), in the order applied
    law_notes: tuple[str, ...] = ()  # what the law in force can never apply (law_notes)
    made_at: str = ""  # "YYYY-MM-DD HH:MM:SS UTC"
    readings_label: str = "defaults"

    @property
    def code(self) -> str:
        """Where the code came from: the git commit, or the installed package's version."""
        if self.commit is None:
            return f"installed package, version {self.version}"
        return f"git commit {self.commit}"

    def lines(self) -> list[str]:
        """The provenance as plain text lines."""
        lines = [
            f"actuarial {self.version}, {self.code}",
            f"report made {self.made_at}; payment date: {self.payment_date}",
            f"guide series used: {self.series}",
        ]
        for guide_id, series, files in self.guides:
            used = " (used)" if series == self.series else ""
            for name, digest in files:
                lines.append(f"guide {guide_id}{used}: {name} sha256 {digest}")
        lines.append(f"member file {self.members_file}: sha256 {self.members_sha256}")
        lines.append("readings in force:")
        lines.extend(f"  {line}" for line in self.readings)
        return lines

    def html(self, given: Iterable[str] | None = None) -> str:
        """The provenance footer of every page.

        ``given``: the report's inputs the page takes (as :meth:`inputs_html`); of another,
        the footer says it is not one of the page's, and of the law files, that the page
        used the shipped law alone."""
        escape = html.escape
        takes = (lambda _: True) if given is None else set(given).__contains__
        guide_rows = "".join(
            f"<tr><td>{escape(guide_id)}</td><td>{escape(series)}"
            f"{' <b>(used)</b>' if series == self.series else ''}</td><td>"
            + "<br>".join(f"{escape(name)} <code>{digest}</code>" for name, digest in files)
            + "</td></tr>"
            for guide_id, series, files in self.guides
        )
        readings = "".join(f"<li>{escape(line)}</li>" for line in self.readings)
        code = escape(self.code)
        if self.commit is not None:
            code = f"git commit <code>{escape(self.commit)}</code>"
        payment = f"<b>{escape(self.payment_date)}</b>" if takes("as_of") else NOT_AN_INPUT
        if takes("guides_path"):
            guides = (
                f"guide series used: <b>{escape(self.series)}</b>.</p>\n"
                "<table><thead><tr><th>guide</th><th>series</th><th>SHA-256 of its files</th>"
                f"</tr></thead><tbody>{guide_rows}</tbody></table>\n"
            )
        else:
            guides = f"guides: {NOT_AN_INPUT}.</p>\n"
        members = (
            f" <b>{escape(self.members_file)}</b>: SHA-256 <code>{self.members_sha256}</code>"
            if takes("members_path")
            else f": {NOT_AN_INPUT}"
        )
        law_files = self.law_files if takes("law_files") else self.law_files[:1]
        law = "; ".join(
            f"<b>{escape(name)}</b> SHA-256 <code>{digest}</code>" for name, digest in law_files
        )
        if len(law_files) < len(self.law_files):
            law += " (the shipped law: the report's amendment files are not an input of this page)"
        notes = self.law_notes if takes("law_files") else ()
        return (
            f"{_FOOTER}\n<h2>Provenance</h2>\n"
            f"<p>actuarial {escape(self.version)}, {code}; "
            f"report made <b>{escape(self.made_at)}</b>; payment date: {payment}; {guides}"
            f"<p>Member file{members}</p>\n"
            f"<p>Law files, in the order applied: {law}</p>\n"
            + (
                "<p>What the law in force holds that can never take effect (legal, and said "
                "so that a mistake is not silent):</p><ul>"
                + "".join(f"<li>{escape(note)}</li>" for note in notes)
                + "</ul>\n"
                if notes
                else ""
            )
            + (
                "<p>Readings in force (docs/readings.md) where a page does not set its "
                f"own; the clause pages compare readings side by side:</p><ul>{readings}</ul>\n"
                if takes("readings")
                else f"<p>Readings: {NOT_AN_INPUT}; where it depends on one, it says which</p>\n"
            )
            + "</footer>\n"
        )

    def inputs_html(
        self, members_rows: int | None = None, status: str = "", given: Iterable[str] | None = None
    ) -> str:
        """The short "inputs" box at the top of every page: what the page was run on.

        ``given``: the report's inputs the page takes (the names of its ``parameters`` cell;
        None: every one, the index); another input is said not to be one of the page's."""
        from actuarial.pages import format_count

        escape = html.escape
        guides = "<br>".join(
            f"{escape(guide_id)}: series <b>{escape(series)}</b>"
            f"{' (used)' if series == self.series else ''}, {escape(status_)}, {escape(period)}"
            for guide_id, series, status_, period in self.guide_details
        )
        rows = f" ({format_count(members_rows, 'row')})" if members_rows is not None else ""
        law = "<br>".join(
            f"{escape(name)}{' (shipped)' if number == 0 else ''} <code>{digest[:12]}</code>"
            for number, (name, digest) in enumerate(self.law_files)
        )
        cells = {
            "guides": (
                "guides_path",
                f"folder <code>{escape(self.guides_folder)}</code>, series "
                f"<b>{escape(self.series)}</b><br>{guides}",
            ),
            "member file": ("members_path", f"{escape(self.members_file)}{rows}"),
            "law files": ("law_files", law),
            "readings": ("readings", escape(self.readings_label)),
            "payment date": ("as_of", escape(self.payment_date)),
        }
        given = None if given is None else set(given)
        status_row = f"<tr><th>status</th><td>{status}</td></tr>" if status else ""
        return (
            '<section class="report-inputs">\n<h2>Inputs</h2>\n<table><tbody>\n'
            f"{status_row}"
            + "".join(
                f"<tr><th>{label}</th><td>"
                f"{cell if given is None or parameter in given else NOT_AN_INPUT}</td></tr>\n"
                for label, (parameter, cell) in cells.items()
            )
            + f"<tr><th>made</th><td>{escape(self.made_at)}</td></tr>\n"
            "</tbody></table>\n</section>\n"
        )


# What a page's inputs box says of a report input the page does not take (its notebook
# declares no such parameter: page 01's worked examples are on the shipped law, say).
NOT_AN_INPUT = "<i>not an input of this page</i>"


def _is_sample(path) -> bool:
    """Whether ``path`` is the shipped sample member file (links followed)."""
    try:
        return os.path.samefile(path, EXAMPLE_MEMBERS)
    except OSError:
        return False


@takes_paths("guides_path", "members_path", "law")
def provenance(
    guides: GuideSet,
    guides_path,
    members_path,
    readings: Readings | None = None,
    as_of: dt.date | None = None,
    made_at: dt.datetime | None = None,
    law=None,
) -> Provenance:
    """The provenance of a report over ``guides`` (from ``guides_path``) and a member file.

    Every guide under ``guides_path`` is listed with the SHA-256 of its files; those of the
    series used are marked. ``as_of`` is the payment date (default today), ``law`` the law
    in force (default: the shipped law; see :func:`actuarial.law.law_in_force`), ``made_at``
    defaults to now (UTC).
    """
    from actuarial.law import law_in_force, resolve_as_of

    law = law_in_force(law)
    listed = guides_in(guides_path, law)  # under the law whose ages they span
    readings = readings or Readings()
    payment_date = resolve_as_of(as_of)
    sample = " (shipped sample)" if _is_sample(members_path) else ""  # --members not given
    # Each amendment by its file's name alone (its folder is the user's own).
    law_files = tuple(
        (Path(item["file"]).name if number else item["file"], item["sha256"])
        for number, item in enumerate(law.provenance())
    )
    shown_names = {
        item["file"]: name for item, (name, _) in zip(law.provenance(), law_files, strict=True)
    }
    made_at = made_at or dt.datetime.now(dt.UTC)
    return Provenance(
        version=actuarial.__version__,
        commit=None if installed_version() else git_commit(),
        series=guides.series,
        guides=tuple(
            (guide.id, guide.series, tuple(sorted(guide.sha256().items()))) for guide in listed
        ),
        members_file=Path(members_path).name + sample,
        members_sha256=file_sha256(members_path),
        readings=tuple(readings_in_force(readings, law, law.payable_on(payment_date))),
        guide_details=tuple(
            (
                guide.id,
                guide.series,
                guide.status,
                f"in force {guide.effective_from} to {guide.effective_until or 'open end'}",
            )
            for guide in listed
        ),
        guides_folder=Path(guides_path).name,
        payment_date=payment_date.isoformat(),
        law_files=law_files,
        law_notes=tuple(map(_scrubber(shown_names), law_notes(law))),
        made_at=made_at.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC"),
        readings_label=readings.label(),
    )


# --------------------------------------------------------------------- the report
PAGE_STYLE = """<style>
footer.provenance { max-width: 1100px; margin: 2em auto; padding: 1em 2em;
  border-top: 2px solid #888; font: 13px/1.4 sans-serif; color: #333; }
footer.provenance table, section.report-inputs table, table.summary {
  border-collapse: collapse; }
footer.provenance td, footer.provenance th, section.report-inputs td,
section.report-inputs th, table.summary td, table.summary th {
  border: 1px solid #ccc; padding: 3px 8px; text-align: left; vertical-align: top; }
table.summary td.number, table.summary th.number { text-align: right; }
footer.provenance code { font-size: 12px; }
section.report-inputs { max-width: 1100px; margin: 1em auto; padding: 0.5em 1.5em;
  background: #f6f8fa; border: 1px solid #d0d7de; font: 13px/1.4 sans-serif; }
section.report-inputs h2 { font-size: 15px; margin: 0.3em 0; }
section.report-inputs th { width: 9em; background: #eef1f4; }
.report-failed { color: #a40000; font-weight: bold; }
nav.report { max-width: 1100px; margin: 1em auto; font: 14px sans-serif; }
table.report-table caption { padding: 0.3em 0; }
</style>
"""


def _page(body: str, top: str, footer: str) -> str:
    """Add the style, a link back to the index, the inputs box and the footer to a page."""
    body = body.replace("</head>", PAGE_STYLE + "</head>", 1)
    body = re.sub(
        r"(<body[^>]*>)",
        lambda match: (
            match.group(1) + '\n<nav class="report"><a href="index.html">'
            "&larr; all pages</a></nav>\n" + top
        ),
        body,
        count=1,
    )
    head, tail = body.rsplit("</body>", 1)
    return head + footer + "</body>" + tail


@dataclass(frozen=True, slots=True)
class PageEntry:
    """One page of the report as the index lists it."""

    notebook: str
    title: str
    page: str
    error: str = ""  # one line; empty when the notebook ran to the end


def _status_html(error: str) -> str:
    if not error:
        return "ok"
    return f'<span class="report-failed">FAILED</span>: {html.escape(error)}'


def _summary_html(figures: dict) -> str:
    """The key figures of the membership: counts, then one row per clause."""
    from actuarial.pages import format_money

    escape = html.escape
    counts = "".join(
        f'<tr><th>{escape(name)}</th><td class="number">{value:,}</td></tr>'
        for name, value in figures["counts"].items()
    )
    clause_rows = "".join(
        f"<tr><td>inciso ({escape(clause)})</td>"
        f'<td class="number">{int(row["eligible"]):,}</td>'
        f'<td class="number">{format_money(row["monthly_total"])}</td>'
        f'<td class="number">{format_money(row["annual_total"])}</td>'
        f'<td class="number">{int(row["lifted_by_minimum"]):,}</td>'
        f'<td class="number">{format_money(row["minimum_topup_total"])}</td>'
        f'<td class="number">{int(row["errors"]):,}</td>'
        f'<td class="number">{int(row["warnings"]):,}</td></tr>\n'
        for clause, row in figures["clauses"].iterrows()
    )
    return (
        "<h2>Key figures</h2>\n"
        f"<p>The engine over the member file, payment date: {escape(figures['payment'])}. A "
        "member may be eligible under several clauses (the member chooses), so the clause lines "
        "are not to be added into a cost of the plan. Invalid rows and rows with an error are "
        "not evaluated; rows with warnings are evaluated, on data that are possible but "
        "suspicious (data-quality warnings, counted by rule on page 07).</p>\n"
        f'<table class="summary"><caption>Members</caption><tbody>{counts}</tbody></table>\n'
        '<table class="summary" style="margin-top: 1em"><caption>By clause (amounts in USD)'
        "</caption><thead><tr><th>clause</th>"
        '<th class="number">eligible</th><th class="number">monthly total</th>'
        '<th class="number">annual total</th><th class="number">lifted by the minimum</th>'
        '<th class="number">minimum top-up, monthly</th>'
        '<th class="number">rows with an error</th>'
        '<th class="number">rows with warnings</th></tr></thead>'
        f"<tbody>\n{clause_rows}</tbody></table>\n"
    )


def _index(entries: Iterable[PageEntry], inputs: str, summary: str, footer: str) -> str:
    rows = "".join(
        f'<tr><td><a href="{html.escape(entry.page)}">{html.escape(entry.title)}</a></td>'
        f"<td>{_status_html(entry.error)}</td></tr>\n"
        for entry in entries
    )
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{html.escape(REPORT_TITLE)}</title>\n" + PAGE_STYLE + "<style>"
        "body { font: 15px/1.5 sans-serif; max-width: 1100px; margin: 2em auto; }"
        "</style>\n</head>\n<body>\n"
        f"<h1>{html.escape(REPORT_TITLE)}</h1>\n"
        "<p>Ley 447-1951, art. 2-103 (3 L.P.R.A. &sect; 766d), as amended. Each page was run "
        "on the inputs below.</p>\n" + inputs + "<h2>Pages</h2>\n"
        '<table class="summary"><thead><tr><th>page</th><th>status</th></tr></thead>'
        f"<tbody>\n{rows}</tbody></table>\n" + summary + footer + "</body>\n</html>\n"
    )


MATHJAX_FOLDER = "mathjax"
MATHJAX_URL = f"{MATHJAX_FOLDER}/MathJax.js?config=TeX-AMS-MML_HTMLorMML-full,Safe"
# What MathJax typesets: formulas between \( \) inline and \[ \] displayed, never text between
# dollar signs (amounts are dollars), and nothing inside an output, the inputs box or the
# footer (text from data). The copied MathJax has the STIX-Web fonts only: asked for by name,
# so that accents sit on their letters (the TeX fonts it would look for are not there).
MATHJAX_CONFIG = r"""MathJax.Hub.Config({
    tex2jax: {
        inlineMath: [["\\(", "\\)"]],
        displayMath: [["\\[", "\\]"]],
        processEscapes: false,
        processEnvironments: true,
        ignoreClass: "tex2jax_ignore|jp-OutputArea|report-inputs|provenance"
    },
    "HTML-CSS": {
        availableFonts: ["STIX-Web"], preferredFont: "STIX-Web", webFont: "STIX-Web",
        imageFont: null
    },
    displayAlign: "center",
    messageStyle: "none"
});"""


def _mathjax_source():
    """The MathJax a report copies: the static files of ``jupyter_server_mathjax``."""
    from importlib import resources

    return resources.files("jupyter_server_mathjax") / "static"


def _copy_mathjax(out_dir: Path) -> None:
    """MathJax beside the pages, so that formulas render offline (no CDN)."""
    from importlib import resources

    with resources.as_file(_mathjax_source()) as source:
        shutil.copytree(source, out_dir / MATHJAX_FOLDER, dirs_exist_ok=True)


# nbconvert's lab page, without the require.js it fetches from a CDN for widgets (none here),
# and with our MathJax configuration instead of nbconvert's (which takes $ as a delimiter).
PAGE_TEMPLATE = (
    """{%- extends 'index.html.j2' -%}
{%- block html_head_js_requirejs -%}{%- endblock html_head_js_requirejs -%}
{%- block html_head_js_mathjax -%}
<script type="text/x-mathjax-config">
"""
    + MATHJAX_CONFIG
    + """
</script>
<script src="{{ resources.mathjax_url }}"></script>
{%- endblock html_head_js_mathjax -%}
"""
)


def _markdown_to_html(source: str, renderer) -> str:
    r"""Markdown cells to HTML, formulas delimited for :data:`MATHJAX_CONFIG`.

    nbconvert's parser reads ``$...$`` as a formula and writes every formula back between
    dollar signs; here text between single dollar signs stays text (``\$`` and ``$`` both
    give a dollar sign), and the formulas written ``\\(...\\)``, ``\\[...\\]`` or ``$$...$$``
    in a notebook are written ``\(...\)`` or ``\[...\]`` for MathJax.
    """
    from nbconvert.filters.markdown_mistune import MarkdownWithMath, MathInlineParser

    class Inline(MathInlineParser):
        DEFAULT_RULES = tuple(
            rule for rule in MathInlineParser.DEFAULT_RULES if rule != "inline_math_tex"
        )

    return MarkdownWithMath(renderer=renderer, inline=Inline(hard_wrap=False)).render(source)


def _page_link(url: str) -> str:
    """A link as a page of the report needs it: one to a notebook of the report
    (``01_inciso_a.ipynb``, ``05_actuarial_guides.ipynb#section``) leads to its page
    (``01_inciso_a.html``), the report holding the pages and not the notebooks."""
    target, hash_mark, fragment = url.partition("#")
    if "/" not in target and fnmatch.fnmatchcase(target, NOTEBOOK_PATTERN):
        return Path(target).with_suffix(".html").name + hash_mark + fragment
    return url


def _exporter():
    from jinja2 import DictLoader, pass_context
    from nbconvert import HTMLExporter
    from nbconvert.filters.markdown_mistune import IPythonRenderer

    class Renderer(IPythonRenderer):
        def link(self, text: str, url: str, title: str | None = None) -> str:
            return super().link(text, _page_link(url), title)

        def inline_math(self, body: str) -> str:
            return rf"\({self.escape_html(body)}\)"

        def block_math(self, body: str) -> str:
            return rf"\[{self.escape_html(body)}\]"

    class Exporter(HTMLExporter):
        @pass_context
        def markdown2html(self, context, source):
            cell = context.get("cell", {})
            renderer = Renderer(
                escape=False,
                attachments=cell.get("attachments", {}),
                embed_images=self.embed_images,
                path=context.get("resources", {}).get("metadata", {}).get("path", ""),
                anchor_link_text=self.anchor_link_text,
                exclude_anchor_links=self.exclude_anchor_links,
                **self.lexer_options,
            )
            return _markdown_to_html(source, renderer)

    return Exporter(
        template_name="lab",
        extra_loaders=[DictLoader({"actuarial_page.html.j2": PAGE_TEMPLATE})],
        template_file="actuarial_page.html.j2",
        exclude_input_prompt=True,
        exclude_output_prompt=True,
        mathjax_url=MATHJAX_URL,
    )


def _render(notebook, title: str) -> str:
    body, _ = _exporter().from_notebook_node(notebook, resources={"metadata": {"name": title}})
    return body


def _shown_path(path: Path, notebooks_dir: Path) -> str:
    """A path as a page may show it: relative to the notebooks folder when it lies in the
    project that holds them (``../guides``), else its name only (no absolute path)."""
    if path.is_relative_to(notebooks_dir.parent):
        return Path(os.path.relpath(path, notebooks_dir)).as_posix()
    return path.name


def _show_parameters(notebook, shown: dict) -> None:
    """Rewrite papermill's injected-parameters cell for display (the run used real paths)."""
    for cell in notebook.cells:
        if "injected-parameters" in cell.metadata.get("tags", []):
            cell.source = "\n".join(
                [
                    "# Parameters injected by `actuarial report` (paths outside the project "
                    "shown by name; SHA-256 in the footer)",
                    *(f"{key} = {_python_literal(value)}" for key, value in shown.items()),
                ]
            )


def _python_literal(value) -> str:
    """A parameter as Python source: text in double quotes, other values by repr."""
    return json.dumps(value, ensure_ascii=False) if isinstance(value, str) else repr(value)


def _declared_parameters(path: Path) -> set[str]:
    """Names assigned in the notebook's cell tagged ``parameters`` (none without one)."""
    notebook = nbformat.read(path, as_version=4)
    for cell in notebook.cells:
        if "parameters" in cell.metadata.get("tags", []):
            names = set()
            for node in ast.parse(cell.source).body:
                if isinstance(node, ast.Assign):
                    targets = node.targets
                elif isinstance(node, ast.AnnAssign):
                    targets = [node.target]
                else:
                    continue
                names.update(target.id for target in targets if isinstance(target, ast.Name))
            return names
    return set()


ANSI_ESCAPE = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def _failure(notebook) -> str:
    """The error of a failed notebook in one line: type, first line of the message, the cell."""
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                source = cell.source.strip().splitlines()
                first = source[0] if source else ""
                message = ANSI_ESCAPE.sub("", str(output.evalue)).strip().splitlines()
                evalue = message[0] if message else ""
                return f"{output.ename}: {evalue} (in the cell starting {first!r})"
    return "execution failed"


HIDDEN_TAGS = {"parameters", "injected-parameters", "papermill-error-cell-tag"}
PROSE_TAG = "prose"  # a code cell that writes a paragraph (actuarial.pages.prose): shown as it


def _readers_view(notebook):
    """The notebook as a reader sees it (in place; returns it): no parameter cells (the inputs
    box shows them), no papermill error banners, each prose cell as the markdown it wrote (the
    same renderer and MathJax as the written prose), and an error as its message, not a
    traceback."""
    notebook.cells = [
        cell for cell in notebook.cells if not HIDDEN_TAGS & set(cell.metadata.get("tags", []))
    ]
    for index, cell in enumerate(notebook.cells):
        if PROSE_TAG in cell.metadata.get("tags", []):
            written = [
                output["data"]["text/markdown"]
                for output in cell.get("outputs", [])
                if "text/markdown" in output.get("data", {})
            ]
            if written:
                notebook.cells[index] = nbformat.v4.new_markdown_cell(
                    "\n\n".join(written),
                    id=cell.id,  # normalized: the same on every run
                )
            else:  # the cell failed: its code stays to be seen with the error
                cell.metadata["transient"] = {"remove_source": False}
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                message = ANSI_ESCAPE.sub("", f"{output.ename}: {output.evalue}")
                output.traceback = [f"This cell failed. {message}"]
            elif output.get("output_type") == "stream" and output.get("name") == "stderr":
                output.text = WARNING_LOCATION.sub(r"\g<warning>\n", output.text)
    return notebook


# A warning as Python prints it: "<file>:<line>: <Category>: <message>", then the line of
# code. The file is the kernel's cell (/tmp/ipykernel_<pid>/<hash>.py) or a module: a path
# of the machine. A page shows "<Category>: <message>" (a LawNote of an amended law, say).
WARNING_LOCATION = re.compile(
    r"^[^\n]*?:\d+: (?P<warning>[A-Za-z_]\w*(?:Warning|Note): [^\n]*)\n(?:  [^\n]*\n)?",
    re.MULTILINE,
)


def _scrubber(replacements: dict[str, str]):
    """A function that replaces, in a page, each path of the machine by what may be shown
    (longest first, so that a folder's path does not cut a longer one)."""
    ordered = sorted(((k, v) for k, v in replacements.items() if k), key=lambda kv: -len(kv[0]))

    def scrub(text: str) -> str:
        for path, shown in ordered:
            text = text.replace(path, shown)
        return text

    return scrub


# --------------------------------------------------------------------- the output folder
MARKER = ".actuarial-report"
PAGE_NAME = re.compile(r"index\.html|[0-9][0-9]_[^/]*\.html")  # the pages a report writes


@takes_paths("out_dir")
def check_out_dir(out_dir) -> None:
    """Refuse an ``--out`` folder that a report must not overwrite.

    A missing or empty folder is used; a folder holding a previous report and nothing else
    is replaced. What the report wrote is what our marker file lists, every file and folder
    at every depth. A report whose marker lists less (one written before the full list, or
    before the marker) is recognized by what it holds: ``index.html`` and ``NN_*.html``
    pages, each with the report's provenance footer, and under ``mathjax/`` only files of
    the MathJax the report copies. Anything else (a guides folder, a user's ``index.html``,
    a file put into a report folder since, even inside ``mathjax/``) raises
    :class:`ReportError`: it would be lost.
    """
    out_dir = Path(out_dir)
    try:
        os.stat(out_dir)
        loop = False
    except OSError as error:
        loop = error.errno == errno.ELOOP
    if not out_dir.exists() and not loop:
        return
    if loop or not out_dir.is_dir():
        kind = "a loop of symbolic links" if loop else special_kind(out_dir) or "a file"
        raise ReportError(f"{out_dir}: --out must be a folder for the report (it is {kind})")
    held = _held(out_dir)
    if not held:
        return
    written = _written_by_report(out_dir)
    if written is not None:
        others = [path for path in held if path not in written]
    else:
        others = _not_of_a_report(out_dir, held)
    if not others:
        return
    others = _topmost(others)
    shown = ", ".join(others[:5]) + (", ..." if len(others) > 5 else "")
    if written is not None or (MARKER in held and "index.html" in held):
        raise ReportError(
            f"{out_dir}: a previous report, but it also holds {shown}, which the report did "
            "not write and would delete: move it, or choose another --out"
        )
    raise ReportError(
        f"{out_dir}: not a report folder (it holds {shown}); the report is written only to a "
        "new or empty folder, or over a previous report: choose another --out"
    )


def _topmost(paths: list[str]) -> list[str]:
    """The paths (in order) but those inside a folder among them: the folder names them."""
    kept: list[str] = []
    for path in paths:  # in order, a folder comes just before what it holds
        if not (kept and kept[-1].endswith("/") and path.startswith(kept[-1])):
            kept.append(path)
    return kept


def _held(folder: Path) -> list[str]:
    """Every file and folder in ``folder``, at every depth, as relative paths (a folder's
    ending in ``/``; a link is an entry, never followed), in order."""
    held = []
    for parent, folders, files in os.walk(folder):
        relative = Path(parent).relative_to(folder)
        held += [(relative / name).as_posix() + "/" for name in folders]
        held += [(relative / name).as_posix() for name in files]
    return sorted(held)


def _not_of_a_report(folder: Path, held: list[str]) -> list[str]:
    """What ``folder`` holds that no report writes (for a report whose marker does not list
    everything it wrote): a name outside the layout, a page without the report's footer, a
    file under ``mathjax/`` that the copied MathJax does not hold. A folder without
    ``index.html`` is no report at all."""
    mathjax = _mathjax_files()
    others = []
    for path in held:
        if path in (MARKER, f"{MATHJAX_FOLDER}/"):
            continue
        if path.startswith(f"{MATHJAX_FOLDER}/"):
            ours = path.removeprefix(f"{MATHJAX_FOLDER}/") in mathjax
        else:  # a page at the top, with the report's footer
            ours = bool(PAGE_NAME.fullmatch(path)) and _has_provenance(folder / path)
        if not ours:
            others.append(path)
    if "index.html" not in held:
        return others or [path for path in held if path != MARKER]
    return others


def _has_provenance(page: Path) -> bool:
    """Whether ``page`` is a file holding the report's provenance footer."""
    try:
        with page.open("rb") as file:
            return _FOOTER.encode() in file.read()
    except OSError:
        return False


def _mathjax_files() -> frozenset[str]:
    """The files and folders of the MathJax a report copies (:func:`_copy_mathjax`), as
    relative paths: those of the ``jupyter_server_mathjax`` installed, none without it."""
    from importlib import resources

    try:
        static = _mathjax_source()
    except ModuleNotFoundError:
        return frozenset()
    with resources.as_file(static) as source:
        return frozenset(_held(source))


_MARKER_TEXT = (
    "Written by `actuarial report`: this folder is replaced by the next report written to "
    "it, unless it then holds anything else. The report wrote these files and folders:\n"
)


def _written_by_report(folder: Path) -> frozenset[str] | None:
    """The paths the marker lists as written by the report; None for a marker without the
    full list (a report before it) or one that cannot be read, or no marker."""
    try:
        text = (folder / MARKER).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    if not text.startswith(_MARKER_TEXT):
        return None
    return frozenset([MARKER, *(line for line in text[len(_MARKER_TEXT) :].splitlines() if line)])


def _mark_as_report(folder: Path) -> None:
    """The marker that makes ``folder`` a report folder (:func:`check_out_dir`), listing
    every file and folder in it (written last, then)."""
    names = [path for path in _held(folder) if path != MARKER]
    (folder / MARKER).write_text(
        _MARKER_TEXT + "".join(f"{name}\n" for name in names), encoding="utf-8"
    )


# --------------------------------------------------------------------- building it
def _key_figures(guides, members_path: Path, readings: Readings, as_of, law) -> dict:
    """Members evaluated, eligible and amounts by clause, rows with errors and rows with
    data-quality warnings (the index)."""
    from actuarial.batch import read_members
    from actuarial.engine import evaluate_frame
    from actuarial.review import clause_summary, membership_counts

    results = evaluate_frame(
        read_members(members_path),
        guides,
        as_of=as_of,
        readings=readings,
        source=members_path.name,
        law=law,
    )
    return {
        "counts": membership_counts(results).to_dict(),
        "clauses": clause_summary(results),
        "payment": as_of.isoformat(),
    }


def _run_folder(scratch: Path, notebooks_dir: Path) -> Path:
    """A copy of the notebooks to run, beside copies of the folders they read by relative
    path (``../guides``, ``../examples``, ``../docs``, as in the repository): the notebooks
    run there, so nothing is ever written beside the originals (for an installed package, in
    site-packages). Returns the copy's notebooks folder, their working directory."""
    root = scratch / "run"
    skipped = shutil.ignore_patterns("__pycache__")
    for source in _folders_read(notebooks_dir):
        if source.is_dir():
            shutil.copytree(source, root / source.name, ignore=skipped)
    run_dir = root / "notebooks"
    run_dir.mkdir(parents=True)
    for path in notebook_paths(notebooks_dir):
        shutil.copyfile(path, run_dir / path.name)
    return run_dir


def _run_path(path: Path, notebooks_dir: Path) -> str:
    """An input as the notebooks' copy reads it: relative to the notebooks folder when it lies
    in a folder :func:`_run_folder` copies beside them (``../guides``), else absolute."""
    for folder in _folders_read(notebooks_dir):
        if path.is_relative_to(folder):
            return Path(os.path.relpath(path, notebooks_dir)).as_posix()
    return str(path)


def _real(path) -> Path:
    """``path`` absolute, its links resolved (a loop of links as it is: the checks name it)."""
    return Path(os.path.realpath(path))


def _folders_read(notebooks_dir: Path) -> list[Path]:
    """The folders beside the notebooks that they read by relative path (``../guides``)."""
    return [notebooks_dir.parent / name for name in shipped.FOLDERS if name != "notebooks"]


@takes_paths("out_dir", "guides_path", "members_path", "notebooks_dir", "law_files")
def build_report(
    out_dir,
    guides_path=None,
    series: str | None = None,
    members_path=None,
    notebooks_dir=None,
    progress: bool = True,
    readings: Readings | None = None,
    as_of: dt.date | None = None,
    law_files=(),
) -> Path:
    """Run every notebook with the same inputs and write one HTML page each plus index.html.

    ``guides_path`` defaults to the shipped guides (series ``DEFAULT_SERIES``),
    ``members_path`` to ``examples/members.csv``; ``law_files`` are amendment files (a path
    or a list) applied in order to the shipped law; ``as_of`` is the payment date (default:
    today, as in ``batch``).
    The guides and law files are validated, the member file read and ``out_dir`` checked
    (:func:`check_out_dir`; it may hold nothing the report reads, since it is replaced)
    before any notebook runs. Notebooks receive ``guides_path``,
    ``series``, ``members_path``, ``law_files``, ``as_of`` and ``readings`` (those their
    ``parameters`` cell declares; paths relative to the notebooks folder for the shipped
    folders, else absolute; ``readings`` as a dict for ``Readings(**readings)``). Returns the
    path of ``index.html``. A failing notebook is still rendered, marked failed in the index;
    then :class:`ReportError` names it. The notebooks run as many at once as there are
    processors (:func:`~actuarial.notebook_runs.run_at_once`), each from a temporary copy
    (:func:`_run_folder`): nothing is written beside the notebooks (for an installed package,
    site-packages) nor anywhere but ``out_dir``, which is written as a temporary folder
    beside it and put in its place whole (:func:`~actuarial.output_files.writing_folder`):
    a run that fails to write or is interrupted leaves the previous report as it was.
    """
    import papermill
    from papermill.exceptions import PapermillExecutionError
    from tqdm import tqdm

    # Links resolved as os.path.realpath does, a loop of links left for the checks to name
    # (Path.resolve raised RuntimeError: a traceback on the command line).
    notebooks_dir = _real(notebooks_dir or NOTEBOOKS)
    out_dir = _real(out_dir)
    guides_path, series = guides_to_read(guides_path, series)
    guides_path = _real(guides_path)
    members_path = Path(members_path or EXAMPLE_MEMBERS)
    readable_member_file(members_path)  # a problem names the file as given
    members_path = _real(members_path)
    paths = notebook_paths(notebooks_dir)
    if not paths:
        raise ReportError(f"{notebooks_dir}: no notebooks named {NOTEBOOK_PATTERN}")
    readings = readings or Readings()
    if isinstance(law_files, str | os.PathLike):  # one file, as law= takes it elsewhere
        law_files = [law_files]  # not each character of its name a file ("." among them)
    law_paths = [_real(path) for path in law_files]
    law = load_law(*law_paths)  # every file validated before anything runs
    guides = load_guides(guides_path, series, law=law)  # the ages of that law
    # The folder is replaced by the new report: nothing read may lie in it.
    check_output_folder(
        out_dir,
        [
            members_path,
            *guides.files,  # every guide file read under guides_path
            *law_paths,
            *paths,  # the notebooks, and the folders copied beside them for their run
            *_folders_read(notebooks_dir),
        ],
        guide_folders=[guides_path],  # a report there would be read as a guide next time
    )
    check_out_dir(out_dir)  # then: nothing else in it to lose
    as_of = resolve_as_of(as_of)
    figures = _key_figures(guides, members_path, readings, as_of, law)
    made = provenance(guides, guides_path, members_path, readings, as_of, law=law)
    members_rows = figures["counts"]["members read"]
    inputs = {
        "guides_path": _run_path(guides_path, notebooks_dir),
        "series": guides.series,
        "members_path": _run_path(members_path, notebooks_dir),
        "law_files": [_run_path(path, notebooks_dir) for path in law_paths],
        "as_of": as_of.isoformat(),
        "readings": readings.as_dict(),
    }
    shown = {
        **inputs,
        "guides_path": _shown_path(guides_path, notebooks_dir),
        "members_path": _shown_path(members_path, notebooks_dir),
        "law_files": [_shown_path(path, notebooks_dir) for path in law_paths],
    }
    # Written into a folder of its own, put in place of --out whole once every page is.
    with writing_folder(out_dir) as folder, tempfile.TemporaryDirectory() as scratch:
        _copy_mathjax(folder)
        entries, failures = [], []
        scrub = _scrubber(
            {
                inputs["guides_path"]: shown["guides_path"],
                inputs["members_path"]: shown["members_path"],
                str(guides_path): shown["guides_path"],
                **{str(path): _shown_path(path, notebooks_dir) for path in law_paths},
                **{
                    relative: _shown_path(path, notebooks_dir)
                    for relative, path in zip(inputs["law_files"], law_paths, strict=True)
                },
                str(members_path): shown["members_path"],
                str(notebooks_dir): "notebooks",
                str(REPOSITORY): ".",
                str(out_dir): out_dir.name,
                str(Path(scratch).resolve()) + "/": "",
            }
        )
        run_dir = _run_folder(Path(scratch), notebooks_dir)

        def execute(path: Path, kernel_manager_class):
            """Run one notebook's copy; its executed notebook and the error that stopped it."""
            declared = _declared_parameters(path)
            parameters = {key: value for key, value in inputs.items() if key in declared}
            executed = Path(scratch) / path.name
            try:
                notebook = papermill.execute_notebook(
                    run_dir / path.name,
                    executed,
                    parameters=parameters,
                    kernel_name=KERNEL_NAME,
                    language="python",
                    extra_arguments=KERNEL_ARGUMENTS,
                    # The kernel's working folder (nbclient), not papermill's cwd: that one
                    # changes this process's, which the other notebooks' threads share.
                    resources={"metadata": {"path": str(run_dir)}},
                    progress_bar=False,
                    coalesce_streams=True,  # as execute_in_place: not split by flush timing
                    kernel_manager_class=kernel_manager_class,
                )
                error = ""
            except PapermillExecutionError:
                notebook = nbformat.read(executed, as_version=4)
                error = scrub(_failure(notebook))
            _show_parameters(notebook, {key: shown[key] for key in parameters})
            return notebook, error

        with (
            run_at_once(execute, paths) as executed,
            tqdm(total=len(paths), desc="notebooks", unit="notebook", disable=not progress) as bar,
        ):
            for path, (notebook, error) in zip(paths, executed, strict=True):
                bar.set_postfix_str(path.name)
                if error:
                    failures.append(f"{path.name}: {error}")
                notebook = _readers_view(normalize_notebook(notebook))
                title = notebook_title(notebook) or path.stem
                page = path.with_suffix(".html").name
                given = _declared_parameters(path)  # the inputs the page took
                top = made.inputs_html(members_rows, _status_html(error), given)
                body = _render(notebook, title)
                footer = made.html(given)
                (folder / page).write_text(scrub(_page(body, top, footer)), encoding="utf-8")
                entries.append(PageEntry(path.name, title, page, error))
                bar.update()
        index = out_dir / "index.html"  # its path once the folder is in place
        failed = sum(bool(entry.error) for entry in entries)
        status = "every page ran to the end" if not failed else f"{failed} page(s) FAILED"
        index_html = _index(
            entries,
            made.inputs_html(members_rows, html.escape(status)),
            _summary_html(figures),
            made.html(),
        )
        (folder / index.name).write_text(scrub(index_html), encoding="utf-8")
        _mark_as_report(folder)
    if failures:
        raise ReportError(
            f"{len(failures)} notebook(s) failed (pages written to {out_dir}):\n"
            + "\n".join(failures)
        )
    return index
