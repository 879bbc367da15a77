"""The installed distribution: one version, the extras' packages, installed vs checkout."""

from __future__ import annotations

import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from click.testing import CliRunner

import actuarial
from actuarial import distribution
from actuarial.cli import cli

CHECKOUT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((CHECKOUT / "pyproject.toml").read_text(encoding="utf-8"))


def test_the_version_has_one_source_shown_by_actuarial_version():
    assert PYPROJECT["project"]["dynamic"] == ["version"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {
        "attr": "actuarial.__version__"
    }
    assert metadata.version("actuarial") == actuarial.__version__  # the install's metadata
    result = CliRunner().invoke(cli, ["--version"])
    assert result.exit_code == 0
    assert result.output == f"actuarial, version {actuarial.__version__}\n"


def test_the_license_is_an_spdx_expression_with_its_file():
    assert PYPROJECT["project"]["license"] == "MIT"
    assert (CHECKOUT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")
    # PEP 639 needs setuptools >= 77; older ones warn or fail on the string form.
    assert PYPROJECT["build-system"]["requires"] == ["setuptools>=77"]


def test_every_classifier_is_one_an_index_accepts():
    from trove_classifiers import classifiers

    declared = PYPROJECT["project"]["classifiers"]
    assert declared and [name for name in declared if name not in classifiers] == []
    assert "urls" not in PYPROJECT["project"]  # none invented


def test_the_core_needs_none_of_the_report_lab_dev_or_bench_packages():
    core = " ".join(PYPROJECT["project"]["dependencies"])
    for name in ("pytest", "jupyterlab", "papermill", "nbconvert", "matplotlib", "ipykernel"):
        assert name not in core
    extras = PYPROJECT["project"]["optional-dependencies"]
    assert set(extras) >= {"report", "lab", "dev", "bench"}


def test_a_checkout_is_not_an_installed_package():
    # The tests run from the checkout (an editable install): the report names the commit.
    assert distribution.installed_version() is None


def test_nothing_is_missing_from_an_installed_extra():
    assert distribution.missing_from_extra("report") == []  # make test installs [report]
    assert distribution.missing_from_extra("no-such-extra") == []


def test_the_missing_packages_of_an_extra_are_named_in_pyproject_order(monkeypatch):
    declared = [
        requirement.split(">")[0].split("=")[0].split("[")[0].strip()
        for requirement in PYPROJECT["project"]["optional-dependencies"]["report"]
    ]
    monkeypatch.setattr(distribution, "_installed", lambda name: name != "papermill")
    assert distribution.missing_from_extra("report") == ["papermill"]
    monkeypatch.setattr(distribution, "_installed", lambda name: False)
    assert distribution.missing_from_extra("report") == declared


@pytest.fixture
def without_papermill(monkeypatch):
    """As if the [report] extra had not been installed (papermill missing)."""
    monkeypatch.setattr(distribution, "_installed", lambda name: name != "papermill")


def test_report_without_the_report_extra_says_what_to_install_and_writes_nothing(
    without_papermill, tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["report", "--out", "out"])
    assert result.exit_code == 1
    assert result.output == (
        "error: this command needs the [report] extra (missing: papermill); "
        'install it with: pip install "actuarial[report]"\n'
    )
    assert list(tmp_path.iterdir()) == []


class FakeDistribution:
    """Installed metadata whose files lie at ``root`` (site-packages of some environment)."""

    version = "9.9.9"

    def __init__(self, root: Path):
        self.root = root

    def locate_file(self, name: str) -> Path:
        return self.root / name


def test_the_package_is_installed_when_its_metadata_locates_this_very_code(monkeypatch):
    here = Path(actuarial.__file__).resolve().parents[1]
    monkeypatch.setattr(metadata, "distribution", lambda name: FakeDistribution(here))
    assert distribution.installed_version() == "9.9.9"
    # An editable install's metadata locates files in site-packages, where there are none.
    monkeypatch.setattr(metadata, "distribution", lambda name: FakeDistribution(Path("/nowhere")))
    assert distribution.installed_version() is None


def test_the_provenance_of_an_installed_package_names_its_version_instead_of_a_commit(
    monkeypatch,
):
    from actuarial import report
    from actuarial.guides import SHIPPED_GUIDES, load_guides

    guides = load_guides(SHIPPED_GUIDES, "sult-5pct-monthly")
    monkeypatch.setattr(report, "installed_version", lambda: actuarial.__version__)
    found = report.provenance(guides, SHIPPED_GUIDES, report.EXAMPLE_MEMBERS)
    assert found.commit is None
    version = actuarial.__version__
    assert found.lines()[0] == f"actuarial {version}, installed package, version {version}"
    assert f"<p>actuarial {version}, installed package, version {version}; " in found.html()
    assert "git commit" not in found.html()
    monkeypatch.setattr(report, "installed_version", lambda: None)  # a checkout
    found = report.provenance(guides, SHIPPED_GUIDES, report.EXAMPLE_MEMBERS)
    assert found.lines()[0] == f"actuarial {version}, git commit {report.git_commit()}"
