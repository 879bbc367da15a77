"""The HTML report: every notebook run on the same inputs, rendered, each page with its provenance.

``build_report`` runs each ``notebooks/NN_*.ipynb`` (package data) through papermill from a
temporary copy (the inputs injected as absolute paths, and shown on the page relative to the
project or by file name, so that no page shows an absolute path), renders it with nbconvert
and writes ``index.html``. Every page ends with a provenance footer: package version, git
commit (or "installed package"), each guide's SHA-256, the member file's SHA-256 and the
readings in force.

``normalize_notebook`` and ``execute_in_place`` keep the committed notebooks reviewable:
outputs kept; execution counts renumbered in order, kernel metadata and timings dropped, cell
ids stable (``make notebooks``).
"""

from __future__ import annotations

import ast
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
from actuarial.guides import DEFAULT_SERIES, SHIPPED_GUIDES, GuideSet, file_sha256, load_guides
from actuarial.interpretations import Readings
from actuarial.members import MemberFileError
from actuarial.review import guides_in

__all__ = [
    "EXAMPLE_MEMBERS",
    "KERNEL_NAME",
    "NOTEBOOKS",
    "Provenance",
    "ReportError",
    "build_report",
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
CELL_METADATA_KEPT = ("tags",)


class ReportError(RuntimeError):
    """A notebook could not be run or rendered (which notebook, which cell, which error)."""


# --------------------------------------------------------------------- notebooks
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
    runner = ExecutePreprocessor(
        timeout=timeout,
        kernel_name=KERNEL_NAME,
        extra_arguments=KERNEL_ARGUMENTS,
        coalesce_streams=True,  # one stream output per cell, however the prints were flushed
    )
    try:
        runner.preprocess(notebook, {"metadata": {"path": str(path.parent)}})
    except CellExecutionError as error:
        raise ReportError(f"{path.name}: a cell failed, the file is unchanged\n{error}") from None
    normalize_notebook(notebook)
    nbformat.validate(notebook)
    after = nbformat.writes(notebook) + "\n"
    if after != before:
        path.write_text(after, encoding="utf-8")
    return after != before


# --------------------------------------------------------------------- provenance
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
    """What a report was made from: code version, guides, member file, readings."""

    version: str
    commit: str | None  # None: an installed package (no checkout, no commit)
    series: str
    guides: tuple[tuple[str, str, tuple[tuple[str, str], ...]], ...]  # (id, series, files)
    members_file: str  # file name only
    members_sha256: str
    readings: tuple[str, ...]

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

    def html(self) -> str:
        """The provenance footer of every page."""
        escape = html.escape
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
        return (
            '<footer class="provenance">\n<h2>Provenance</h2>\n'
            f"<p>actuarial {escape(self.version)}, {code}; "
            f"guide series used: <b>{escape(self.series)}</b>.</p>\n"
            "<table><thead><tr><th>guide</th><th>series</th><th>SHA-256 of its files</th>"
            f"</tr></thead><tbody>{guide_rows}</tbody></table>\n"
            f"<p>Member file <b>{escape(self.members_file)}</b>: SHA-256 "
            f"<code>{self.members_sha256}</code></p>\n"
            "<p>Readings in force (docs/readings.md) where a page does not set its "
            f"own; the clause pages compare readings side by side:</p><ul>{readings}</ul>\n"
            "</footer>\n"
        )


def provenance(
    guides: GuideSet, guides_path, members_path, readings: Readings | None = None
) -> Provenance:
    """The provenance of a report over ``guides`` (from ``guides_path``) and a member file.

    Every guide under ``guides_path`` is listed with the SHA-256 of its files; those of the
    series used are marked.
    """
    listed = guides_in(guides_path)
    return Provenance(
        version=actuarial.__version__,
        commit=None if installed_version() else git_commit(),
        series=guides.series,
        guides=tuple(
            (guide.id, guide.series, tuple(sorted(guide.sha256().items()))) for guide in listed
        ),
        members_file=Path(members_path).name,
        members_sha256=file_sha256(members_path),
        readings=tuple((readings or Readings()).describe()),
    )


# --------------------------------------------------------------------- the report
PAGE_STYLE = """<style>
footer.provenance { max-width: 1100px; margin: 2em auto; padding: 1em 2em;
  border-top: 2px solid #888; font: 13px/1.4 sans-serif; color: #333; }
footer.provenance table { border-collapse: collapse; }
footer.provenance td, footer.provenance th { border: 1px solid #ccc; padding: 2px 6px;
  text-align: left; }
footer.provenance code { font-size: 12px; }
nav.report { max-width: 1100px; margin: 1em auto; font: 14px sans-serif; }
</style>
"""


def _page(body: str, footer: str) -> str:
    """Add the style, a link back to the index and the footer to a rendered notebook."""
    body = body.replace("</head>", PAGE_STYLE + "</head>", 1)
    body = re.sub(
        r"(<body[^>]*>)",
        lambda match: (
            match.group(1) + '\n<nav class="report"><a href="index.html">'
            "&larr; all notebooks</a></nav>\n"
        ),
        body,
        count=1,
    )
    head, tail = body.rsplit("</body>", 1)
    return head + footer + "</body>" + tail


def _index(entries: Iterable[tuple[str, str, str]], footer: str) -> str:
    items = "".join(
        f'<tr><td><a href="{html.escape(page)}">{html.escape(title)}</a></td>'
        f"<td><code>{html.escape(name)}</code></td></tr>\n"
        for name, title, page in entries
    )
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        "<title>actuarial: Chapter 2 annuities, notebooks</title>\n" + PAGE_STYLE + "<style>"
        "body { font: 15px/1.5 sans-serif; max-width: 1100px; margin: 2em auto; }"
        "table.notebooks td { padding: 4px 12px; border-bottom: 1px solid #ddd; }</style>\n"
        "</head>\n<body>\n<h1>Chapter 2 annuities: notebooks</h1>\n"
        "<p>Ley 447-1951, art. 2-103 (3 L.P.R.A. &sect; 766d), as amended. Each notebook "
        "was run on the inputs below.</p>\n"
        f'<table class="notebooks"><tbody>\n{items}</tbody></table>\n'
        + footer
        + "</body>\n</html>\n"
    )


MATHJAX_FOLDER = "mathjax"
MATHJAX_URL = f"{MATHJAX_FOLDER}/MathJax.js?config=TeX-AMS-MML_HTMLorMML-full,Safe"


def _copy_mathjax(out_dir: Path) -> None:
    """MathJax beside the pages, so that formulas render offline (no CDN)."""
    from importlib import resources

    static = resources.files("jupyter_server_mathjax") / "static"
    with resources.as_file(static) as source:
        shutil.copytree(source, out_dir / MATHJAX_FOLDER, dirs_exist_ok=True)


# nbconvert's lab page, without the require.js it fetches from a CDN for widgets (none here).
PAGE_TEMPLATE = """{%- extends 'index.html.j2' -%}
{%- block html_head_js_requirejs -%}{%- endblock html_head_js_requirejs -%}
"""


def _render(notebook, title: str) -> str:
    from jinja2 import DictLoader
    from nbconvert import HTMLExporter

    exporter = HTMLExporter(
        template_name="lab",
        extra_loaders=[DictLoader({"actuarial_page.html.j2": PAGE_TEMPLATE})],
        template_file="actuarial_page.html.j2",
        exclude_input_prompt=True,
        exclude_output_prompt=True,
        mathjax_url=MATHJAX_URL,
    )
    body, _ = exporter.from_notebook_node(notebook, resources={"metadata": {"name": title}})
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


def _failure(notebook) -> str:
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                source = cell.source.strip().splitlines()
                first = source[0] if source else ""
                return f"{output.ename}: {output.evalue} (in the cell starting {first!r})"
    return "execution failed"


def _run_folder(scratch: Path, notebooks_dir: Path) -> Path:
    """A copy of the notebooks to run, beside copies of the folders they read by relative
    path (``../guides``, ``../examples``, ``../docs``, as in the repository): the notebooks
    run there, so nothing is ever written beside the originals (for an installed package, in
    site-packages). Returns the copy's notebooks folder, their working directory."""
    root = scratch / "run"
    for name in shipped.FOLDERS:
        source = notebooks_dir.parent / name
        if name != "notebooks" and source.is_dir():
            shutil.copytree(source, root / name, ignore=shutil.ignore_patterns("__pycache__"))
    run_dir = root / "notebooks"
    run_dir.mkdir(parents=True)
    for path in notebook_paths(notebooks_dir):
        shutil.copyfile(path, run_dir / path.name)
    return run_dir


def build_report(
    out_dir,
    guides_path=None,
    series: str | None = None,
    members_path=None,
    notebooks_dir=None,
    progress: bool = True,
    readings: Readings | None = None,
) -> Path:
    """Run every notebook with the same inputs and write one HTML page each plus index.html.

    ``guides_path`` defaults to the shipped guides (series ``DEFAULT_SERIES``),
    ``members_path`` to ``examples/members.csv``. The guides are validated and the member file
    checked before any notebook runs. Notebooks receive ``guides_path``, ``series`` and
    ``members_path`` (those their ``parameters`` cell declares) as absolute paths, and
    ``readings`` (default: the default readings) as a dict of the
    switches, for ``Readings(**readings)``. Returns the path of ``index.html``. A failing
    notebook is still rendered; then :class:`ReportError` names it. Each notebook runs from a
    temporary copy, in a temporary folder: nothing is written beside the notebooks (for an
    installed package, site-packages) nor anywhere but ``out_dir``.
    """
    import papermill
    from papermill.exceptions import PapermillExecutionError
    from tqdm import tqdm

    notebooks_dir = Path(notebooks_dir or NOTEBOOKS).resolve()
    out_dir = Path(out_dir).resolve()
    if guides_path is None:
        guides_path, series = SHIPPED_GUIDES, series or DEFAULT_SERIES
    guides_path = Path(guides_path).resolve()
    guides = load_guides(guides_path, series)
    members_path = Path(members_path or EXAMPLE_MEMBERS).resolve()
    if not members_path.is_file():
        raise MemberFileError(f"{members_path}: cannot read the member file (no such file)")
    paths = notebook_paths(notebooks_dir)
    if not paths:
        raise ReportError(f"{notebooks_dir}: no notebooks named {NOTEBOOK_PATTERN}")
    readings = readings or Readings()
    footer = provenance(guides, guides_path, members_path, readings).html()
    inputs = {
        "guides_path": str(guides_path),
        "series": guides.series,
        "members_path": str(members_path),
        "readings": readings.as_dict(),
    }
    shown = {
        **inputs,
        "guides_path": _shown_path(guides_path, notebooks_dir),
        "members_path": _shown_path(members_path, notebooks_dir),
    }
    out_dir.mkdir(parents=True, exist_ok=True)
    _copy_mathjax(out_dir)
    entries, failures = [], []
    with (
        tempfile.TemporaryDirectory() as scratch,
        tqdm(paths, desc="notebooks", unit="notebook", disable=not progress) as bar,
    ):
        run_dir = _run_folder(Path(scratch), notebooks_dir)
        for path in bar:
            bar.set_postfix_str(path.name)
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
                    cwd=run_dir,
                    progress_bar={"leave": False, "desc": path.stem} if progress else False,
                )
            except PapermillExecutionError:
                notebook = nbformat.read(executed, as_version=4)
                failures.append(f"{path.name}: {_failure(notebook)}")
            _show_parameters(notebook, {key: shown[key] for key in parameters})
            title = notebook_title(notebook) or path.stem
            page = path.with_suffix(".html").name
            (out_dir / page).write_text(
                _page(_render(normalize_notebook(notebook), title), footer), encoding="utf-8"
            )
            entries.append((path.name, title, page))
    index = out_dir / "index.html"
    index.write_text(_index(entries, footer), encoding="utf-8")
    if failures:
        raise ReportError(
            f"{len(failures)} notebook(s) failed (pages written to {out_dir}):\n"
            + "\n".join(failures)
        )
    return index
