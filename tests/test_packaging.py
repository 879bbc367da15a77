"""The package as its users get it: built from a clean copy of the checkout, installed from
its wheel into fresh virtual environments, run from an empty folder outside any checkout.

Slow (a few minutes: two builds, two installs from pip's cache, one report): marked
``packaging``, so ``pytest -m packaging`` runs it alone and ``-m "not packaging"`` skips it.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import actuarial
from actuarial.report import notebook_paths

pytestmark = pytest.mark.packaging

CHECKOUT = Path(__file__).resolve().parents[1]
NOT_IN_THE_CORE = ("pytest", "jupyterlab", "papermill", "nbconvert", "matplotlib")
# The modules that may need the [report] extra to be imported; every other module imports
# with the core alone (matplotlib, papermill, nbconvert imported lazily if at all).
REPORT_MODULES = {"actuarial.report"}
IMPORT_EVERY_MODULE = """
import importlib, json, pkgutil, actuarial
failed = {}
for module in pkgutil.walk_packages(actuarial.__path__, "actuarial."):
    try:
        importlib.import_module(module.name)
    except ImportError as error:
        failed[module.name] = (error.name or str(error)).split(".")[0]
print(json.dumps(failed))
"""
# The README's member (a firefighter separated at 57y8m: inciso (c) and (d) open to him).
MEMBER = [
    "--birth-date", "1958-06-15", "--entry-date", "1991-01-02",
    "--separation-date", "2016-03-01", "--service", "25", "--compensation", "24000",
    "--group", "firefighter",
]  # fmt: skip
# A payment date of its own: the default, today, may change between the installed run and
# the checkout's (a make test that crossed midnight UTC failed on it).
AS_OF = ["--as-of", "2026-07-01"]
SHIPPED_IDS = sorted(path.name for path in (CHECKOUT / "guides").iterdir() if path.is_dir())
# The commands run, installed and from the checkout, whose outputs must be equal.
COMMANDS = {
    "version": ["--version"],
    "evaluate": ["evaluate", *MEMBER, *AS_OF],
    "evaluate-es": ["evaluate", *MEMBER, *AS_OF, "--lang", "es"],
    "evaluate-json": ["evaluate", *MEMBER, *AS_OF, "--json"],
    "guides-list": ["guides", "list"],
    **{f"guides-show-{guide_id}": ["guides", "show", guide_id] for guide_id in SHIPPED_IDS},
    "guides-fit": ["guides", "fit", "illustrative-half-percent-per-month", "--mortality", "sult"],
    "examples-members": ["examples", "members"],
    "examples-bill": ["examples", "bill"],
    "batch": ["batch", "members.csv", "--out", "results.csv", "--no-progress", *AS_OF],
    "batch-bill": [
        "batch", "members.csv", "--law", "bill-2027.toml", "--out", "bill.csv", "--no-progress",
        *AS_OF,
    ],  # the README's amendment, outside a checkout
    "value": [
        "value", "members.csv", "--out", "values.csv", "--interest", "0.045", *AS_OF,
        "--mortality", "soa:3397+soa:3399@50/soa:3398+soa:3400@50", "--improvement", "mp-2020",
    ],  # the README's valuation: SOA tables and improvement scales shipped with pymort
}  # fmt: skip


def run(command, cwd, check=True) -> subprocess.CompletedProcess:
    """Run a command as a user would: no PYTHONPATH pointing into the checkout."""
    environment = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    done = subprocess.run(
        [str(part) for part in command],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        check=False,
    )
    if check and done.returncode != 0:
        raise AssertionError(f"{command} failed ({done.returncode}):\n{done.stdout}{done.stderr}")
    return done


@dataclass
class Built:
    sdist: Path
    wheel: Path
    log: str


@dataclass
class Installed:
    """A fresh virtual environment with the wheel installed, and what was run in it."""

    venv: Path
    folder: Path  # the empty folder the commands ran from
    results: dict[str, subprocess.CompletedProcess] = field(default_factory=dict)
    packages: set[str] = field(default_factory=set)  # pip list of the core install
    package: Path | None = None  # the installed actuarial/ folder, in site-packages
    before_report: list[str] = field(default_factory=list)  # the folder before the report
    package_unchanged: bool = False  # site-packages as it was before the report

    @property
    def actuarial(self) -> Path:
        return self.venv / "bin" / "actuarial"

    @property
    def python(self) -> Path:
        return self.venv / "bin" / "python"


def clean_copy(destination: Path) -> Path:
    """The checkout's files as a clean clone would hold them, with uncommitted edits: the
    tracked and untracked files that .gitignore does not exclude (links kept as links)."""
    listed = run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], CHECKOUT
    ).stdout
    for name in filter(None, listed.split("\0")):
        source, target = CHECKOUT / name, destination / name
        if not source.is_symlink() and not source.exists():
            continue  # deleted, not yet committed
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():
            target.symlink_to(os.readlink(source))
        else:
            shutil.copy2(source, target)
    return destination


@pytest.fixture(scope="module")
def scratch():
    """A folder of this module's own: pytest removes old basetemps, even a running one's
    when other pytest sessions share the machine, and this module runs for minutes."""
    with tempfile.TemporaryDirectory(prefix="actuarial-packaging-") as folder:
        yield Path(folder)


@pytest.fixture(scope="module")
def built(scratch) -> Built:
    """``python -m build``: the sdist from a clean copy, then the wheel from the sdist."""
    root = scratch / "build"
    root.mkdir()
    source = clean_copy(root / "source")
    done = run([sys.executable, "-m", "build", "--outdir", root / "dist", source], root)
    (sdist,) = (root / "dist").glob("*.tar.gz")
    (wheel,) = (root / "dist").glob("*.whl")
    return Built(sdist, wheel, done.stdout + done.stderr)


@pytest.fixture(scope="module")
def core(built, scratch) -> Installed:
    """The wheel with its core dependencies only; every command run from an empty folder."""
    root = scratch / "core"
    root.mkdir()
    installed = Installed(root / "venv", root / "empty")
    installed.folder.mkdir()
    run([sys.executable, "-m", "venv", installed.venv], root)
    run([installed.python, "-m", "pip", "install", "--quiet", built.wheel], root)
    listed = run([installed.python, "-m", "pip", "list", "--format=json"], root).stdout
    installed.packages = {package["name"].lower() for package in json.loads(listed)}
    for name, arguments in COMMANDS.items():
        installed.results[name] = run([installed.actuarial, *arguments], installed.folder)
    installed.results["import-every-module"] = run(
        [installed.python, "-c", IMPORT_EVERY_MODULE], installed.folder
    )
    installed.results["report-without-extra"] = run(
        [installed.actuarial, "report", "--out", "report"], installed.folder, check=False
    )
    return installed


@dataclass
class Ran:
    folder: Path
    results: dict[str, subprocess.CompletedProcess]


@pytest.fixture(scope="module")
def from_checkout(scratch) -> Ran:
    """The same commands run by the checkout's code (the editable install of make test),
    from an empty folder of their own."""
    folder = scratch / "checkout-run"
    folder.mkdir()
    command = [sys.executable, "-m", "actuarial"]
    results = {name: run([*command, *arguments], folder) for name, arguments in COMMANDS.items()}
    return Ran(folder, results)


@pytest.fixture(scope="module")
def with_report(core, built) -> Installed:
    """The core install plus the [report] extra; ``actuarial report`` from the same folder."""
    core.before_report = sorted(path.name for path in core.folder.iterdir())
    run([core.python, "-m", "pip", "install", "--quiet", f"{built.wheel}[report]"], core.folder)
    where = run([core.python, "-c", "import actuarial; print(actuarial.__file__)"], core.folder)
    core.package = Path(where.stdout.strip()).parent
    snapshot = files_of(core.package)
    core.results["report"] = run(
        [core.actuarial, "report", "--out", "report", "--no-progress"], core.folder, check=False
    )
    core.package_unchanged = files_of(core.package) == snapshot
    return core


def files_of(folder: Path) -> dict[str, tuple[int, int]]:
    """Every file under ``folder`` (Python's byte-code caches aside) with size and mtime."""
    return {
        str(path.relative_to(folder)): (path.stat().st_size, path.stat().st_mtime_ns)
        for path in folder.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }


# ------------------------------------------------------------------------ the build
def test_the_sdist_and_the_wheel_build_without_a_setuptools_warning(built):
    assert built.sdist.name == f"actuarial-{actuarial.__version__}.tar.gz"
    assert built.wheel.name == f"actuarial-{actuarial.__version__}-py3-none-any.whl"
    assert "Deprecat" not in built.log, built.log
    assert "is absent from the `packages` configuration" not in built.log, built.log


def test_the_wheel_holds_the_guides_the_sample_the_notebooks_and_every_data_file(built):
    with zipfile.ZipFile(built.wheel) as wheel:
        held = {name: wheel.read(name) for name in wheel.namelist()}
    expected = {}  # name in the wheel -> the file in the checkout (the source of truth)
    for folder in ("guides", "examples", "docs"):  # every file (the bill notebook 09 reads)
        for path in sorted((CHECKOUT / folder).rglob("*")):
            if path.is_file():
                expected[f"actuarial/shipped/{path.relative_to(CHECKOUT).as_posix()}"] = path
    for path in notebook_paths(CHECKOUT / "notebooks"):
        expected[f"actuarial/shipped/notebooks/{path.name}"] = path
    for folder, folders, files in os.walk(CHECKOUT / "actuarial"):  # law data, tables...
        folders[:] = [name for name in folders if name != "__pycache__"]
        for name in files:
            if Path(name).suffix in (".py", ".toml", ".csv", ".json"):
                path = Path(folder) / name
                expected[path.relative_to(CHECKOUT).as_posix()] = path
    for name, path in expected.items():
        assert name in held, f"{name} is missing from the wheel"
        assert held[name] == path.read_bytes(), f"{name} differs from {path}"
    shipped = {name for name in held if name.startswith("actuarial/shipped/")}
    assert shipped - set(expected) == set(), "files shipped that are not in the checkout"
    assert not any(name.startswith(("tests/", "benchmarks/", "notebooks/")) for name in held)
    assert "actuarial-0.1.0.dist-info/licenses/LICENSE" in held


def test_the_metadata_renders_on_an_index(built):
    done = run([sys.executable, "-m", "twine", "check", "--strict", built.sdist, built.wheel], "/")
    assert done.stdout.count("PASSED") == 2, done.stdout
    with zipfile.ZipFile(built.wheel) as wheel:
        metadata = wheel.read(f"actuarial-{actuarial.__version__}.dist-info/METADATA").decode()
    assert "License-Expression: MIT" in metadata
    assert "Description-Content-Type: text/markdown" in metadata
    assert "Classifier: Programming Language :: Python :: 3.11" in metadata
    assert "Project-URL" not in metadata and "Home-page" not in metadata  # none invented
    assert "Provides-Extra: report" in metadata and "Provides-Extra: lab" in metadata


# ------------------------------------------------------------------- the core install
def test_the_core_install_holds_none_of_the_extras(core):
    assert "actuarial" in core.packages
    assert core.packages.isdisjoint(NOT_IN_THE_CORE), core.packages & set(NOT_IN_THE_CORE)


def test_every_module_but_the_reports_imports_with_the_core_alone(core):
    failed = json.loads(core.results["import-every-module"].stdout)
    assert set(failed) <= REPORT_MODULES, failed
    assert set(failed.values()) <= {"nbformat", "papermill", "nbconvert", "matplotlib"}, failed


@pytest.mark.parametrize("name", list(COMMANDS))
def test_an_installed_command_prints_what_the_checkout_prints(core, from_checkout, name):
    installed, checkout = core.results[name], from_checkout.results[name]
    assert installed.stdout == checkout.stdout
    assert installed.stdout.strip()


def test_the_installed_version_is_the_package_version(core):
    assert core.results["version"].stdout == f"actuarial, version {actuarial.__version__}\n"


def test_the_installed_batch_writes_what_the_checkout_writes(core, from_checkout):
    # Both ran `examples members`, then `batch members.csv --out results.csv`.
    sample = (CHECKOUT / "examples" / "members.csv").read_bytes()
    assert (core.folder / "members.csv").read_bytes() == sample
    installed = core.folder / "results.csv"
    with installed.open(newline="", encoding="utf-8") as handle:
        rows = {int(result["row"]) for result in csv.DictReader(handle)}
    assert rows == set(range(1, sample.count(b"\n")))  # every member, none lost
    assert installed.read_bytes() == (from_checkout.folder / "results.csv").read_bytes()


def test_the_installed_valuation_writes_what_the_checkout_writes(core, from_checkout):
    installed = (core.folder / "values.csv").read_bytes()
    assert installed.count(b"\n") > 1000  # a row per member and clause
    assert installed == (from_checkout.folder / "values.csv").read_bytes()


def test_report_without_the_report_extra_says_what_to_install_and_writes_nothing(core):
    done = core.results["report-without-extra"]
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1
    assert 'pip install "actuarial[report]"' in done.stderr
    assert not (core.folder / "report").exists()


# ------------------------------------------------------------------ with [report]
def test_the_installed_report_writes_into_out_only_and_names_the_installed_package(
    with_report,
):
    done = with_report.results["report"]
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout == f"report: {with_report.folder / 'report' / 'index.html'}\n"
    after = sorted(path.name for path in with_report.folder.iterdir())
    assert after == sorted([*with_report.before_report, "report"])
    assert with_report.package_unchanged, "the report wrote into site-packages"
    report = with_report.folder / "report"
    notebooks = notebook_paths(CHECKOUT / "notebooks")
    pages = sorted(path.name for path in report.glob("*.html"))
    assert pages == sorted([*(path.with_suffix(".html").name for path in notebooks), "index.html"])
    index = (report / "index.html").read_text(encoding="utf-8")
    assert f"actuarial {actuarial.__version__}, installed package, version " in index
    assert "git commit" not in index
    for page in report.glob("*.html"):  # no absolute path of the machine in any page
        text = page.read_text(encoding="utf-8")
        assert str(with_report.folder) not in text and str(with_report.package) not in text
