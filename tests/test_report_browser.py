"""The report as its readers see it: every page in headless Chromium, after MathJax.

Two reports are rendered: on the shipped inputs (``make report``) and on a user's own guide
folder (series ``jcs``, one adopted guide whose title holds TeX and HTML) with a member file
whose member id is ``$x^2$ <b>bold</b>``, an amendment of the law and a payment date (the
README's own-guide example, with --law and --as-of). Every page is
loaded in Debian's ``chromium`` through playwright, and the assertions are on the rendered DOM
text: the statute quoted intact with its dollar amounts, no "Math Processing Error", no
traceback, the data strings shown literally, formulas typeset by MathJax, every image loaded.

Marked ``browser`` (``pytest -m browser`` runs it alone). Without a Chromium it is skipped
with a message, except under CI (``CI=true``), where it fails.
"""

from __future__ import annotations

import os
import shutil

import browser  # tests/browser.py: Chromium through playwright (also `make screens`)
import pytest
from click.testing import CliRunner

from actuarial.cli import cli
from actuarial.report import EXAMPLE_MEMBERS, REPOSITORY, build_report

pytestmark = pytest.mark.browser

USER_GUIDE_TITLE = "Junta guide $x^2$ <b>bold</b>"
USER_MEMBER_ID = "$x^2$ <b>bold</b>"
PAGES = [
    "00_overview.html",
    "01_inciso_a.html",
    "02_inciso_b.html",
    "03_inciso_c.html",
    "04_inciso_d.html",
    "05_actuarial_guides.html",
    "06_reduction_review.html",
    "07_membership_report.html",
    "08_value_of_choices.html",
    "09_amendments.html",
    "index.html",
]
WITH_FORMULAS = [
    "01_inciso_a.html",
    "02_inciso_b.html",
    "03_inciso_c.html",
    "04_inciso_d.html",
    "06_reduction_review.html",
    "08_value_of_choices.html",
]
# The minimum-pension sentences of inciso (a), as the pages must show them (Spanish, English).
MINIMUM_ES = (
    "se fija una pensión mínima para los participantes que se retiraron de acuerdo con las "
    "disposiciones de este Capítulo 2 de quinientos dólares ($500) mensuales, efectivo el, 1ro "
    "de julio de 2013. Todo pensionado que esté recibiendo una pensión menor de quinientos "
    "dólares ($500) mensuales, recibirá efectivo el 1ro. de julio de 2013 el aumento necesario "
    "para que su pensión sea de quinientos dólares ($500)."
)
MINIMUM_EN = (
    "a minimum pension of five hundred dollars ($500) a month is set, effective July 1, 2013, "
    "for the participants who retired under the provisions of this Chapter 2."
)
# Hand checks in the prose of the clause pages, dollar amounts and all.
HAND_CHECKS = {
    "01_inciso_a.html": "give $270.00 a month. Paid from 2015 the minimum lifts it to $500.00.",
    "02_inciso_b.html": "With $48,000: 75% is $3,000.00 a month and 65% is $2,600.00",
    "03_inciso_c.html": "With $48,000 and 25 years the unreduced annuity is $18,000.00 a year, "
    "$1,500.00 a month",
    "04_inciso_d.html": "one that started in March 2012 was $275.00 until the minimum took effect",
    "08_value_of_choices.html": "By hand: 1.5% x $30,000 x 27 = $12,150.00 a year; the factor at "
    "58y0m is 1 - 84 x 0.005 = 0.58, so inciso (c) pays $587.25 a month",
}


@pytest.fixture(scope="module")
def chromium():
    found = browser.find_chromium()
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        found = None
    if found is None:
        message = (
            "BROWSER TEST NOT RUN: no Chromium (apt-get install chromium) or no playwright "
            "(pip install -e '.[dev]'); the report was not checked in a browser"
        )
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message + " (CI must run it)")
        pytest.skip(message)
    return found


@pytest.fixture(scope="module")
def shipped(chromium, tmp_path_factory):
    """The report on the shipped inputs, loaded page by page, with screenshots (as
    ``make screens`` takes them) beside it in ``screens``."""
    out = tmp_path_factory.mktemp("shipped") / "report"
    build_report(out, progress=False)
    return out, browser.load_report(out, out.parent / "screens")


@pytest.fixture(scope="module")
def own_guides(chromium, tmp_path_factory):
    """The README's own-guide example, run from the user's folder with relative paths."""
    home = tmp_path_factory.mktemp("user")
    guide = home / "my-guides" / "jcs-2021"
    guide.mkdir(parents=True)
    (guide / "guide.toml").write_text(
        'id = "jcs-2021"\nseries = "jcs"\n'
        f'title = "{USER_GUIDE_TITLE}"\n'
        'status = "adopted"\nadopted_by = "Junta de Síndicos"\nadopted_on = 2020-11-15\n'
        "effective_from = 2021-01-01\nnormal_retirement_age = 65\n"
        'interpolation = "monthly-linear"\nsource = "made by the browser test"\n',
        encoding="utf-8",
    )
    rows = [f"{age},0,{0.45 + 0.055 * (age - 55):.6f}" for age in range(55, 65)]
    (guide / "reduction.csv").write_text(
        "age_years,age_months,factor\n" + "\n".join(rows) + "\n65,0,1.000000\n", encoding="utf-8"
    )
    members = EXAMPLE_MEMBERS.read_text(encoding="utf-8").splitlines()
    members.append(f"{USER_MEMBER_ID},1960-05-01,1995-01-01,2022-05-01,-1,50000,general,false")
    (home / "members.csv").write_text("\n".join(members) + "\n", encoding="utf-8")
    shutil.copy(REPOSITORY / "examples" / "bill-2027.toml", home / "bill.toml")
    cwd = os.getcwd()
    os.chdir(home)
    try:
        result = CliRunner().invoke(
            cli,
            [
                "report",
                "--guides",
                "my-guides",
                "--series",
                "jcs",
                "--members",
                "members.csv",
                "--law",
                "bill.toml",
                "--as-of",
                "2027-06-01",
                "--out",
                "build/jcs",
                "--no-progress",
            ],
        )
    finally:
        os.chdir(cwd)
    assert result.exit_code == 0, result.output
    out = home / "build" / "jcs"
    return out, browser.load_report(out), home


def test_every_page_is_rendered_on_the_shipped_inputs(shipped):
    out, pages = shipped
    assert sorted(pages) == sorted(PAGES)


@pytest.mark.parametrize("page", PAGES)
def test_no_page_shows_a_math_error_a_traceback_a_broken_image_or_link(shipped, own_guides, page):
    for report in (shipped[1], own_guides[1]):
        rendered = report[page]
        assert "Math Processing Error" not in rendered.text
        assert rendered.math_errors == 0
        assert "Traceback" not in rendered.text and "FAILED" not in rendered.text
        assert all(image["loaded"] for image in rendered.images), rendered.images
        assert rendered.failed_requests == [] and rendered.network_requests == []
        assert rendered.broken_links == []  # a link between notebooks is one between pages


@pytest.mark.parametrize("page", ["00_overview.html", "01_inciso_a.html"])
def test_the_overview_and_inciso_a_quote_the_minimum_pension_intact(shipped, page):
    text = " ".join(shipped[1][page].text.split())
    assert MINIMUM_ES in text
    assert MINIMUM_EN in text


@pytest.mark.parametrize(("page", "sentence"), HAND_CHECKS.items())
def test_hand_checks_keep_their_dollar_amounts(shipped, page, sentence):
    assert sentence in " ".join(shipped[1][page].text.split())


@pytest.mark.parametrize("page", WITH_FORMULAS)
def test_formulas_are_typeset_by_mathjax(shipped, page):
    rendered = shipped[1][page]
    assert rendered.math_elements >= 5
    assert "\\(" not in rendered.prose and "\\times" not in rendered.prose  # no TeX left as text


def test_text_from_data_is_shown_literally_never_typeset_or_parsed_as_html(own_guides):
    _, pages, _ = own_guides
    assert USER_MEMBER_ID in pages["07_membership_report.html"].text
    assert USER_GUIDE_TITLE in pages["06_reduction_review.html"].text
    for rendered in pages.values():
        assert "x^2" not in rendered.text.replace("$x^2$", "")  # never without its dollars


def test_the_own_guide_report_shows_its_inputs_and_no_path_of_the_machine(own_guides):
    out, pages, home = own_guides
    index = " ".join(pages["index.html"].text.split())
    assert "folder my-guides, series jcs" in index
    assert "jcs-2021: series jcs (used), adopted, in force 2021-01-01 to open end" in index
    assert "member file members.csv (314 rows)" in index
    assert "law files actuarial/law/law.toml (shipped)" in index and "bill.toml" in index
    assert "payment date 2027-06-01" in index
    assert "status every page ran to the end" in index
    for path in out.glob("*.html"):
        html = path.read_text(encoding="utf-8")
        for folder in (home, REPOSITORY, home.resolve()):
            assert str(folder) not in html, (path.name, folder)


def test_make_screens_writes_one_screenshot_per_page(shipped):
    screens = shipped[0].parent / "screens"
    shots = sorted(path.name for path in screens.glob("*.png"))
    assert shots == sorted(name.replace(".html", ".png") for name in PAGES)
    assert all((screens / shot).stat().st_size > 10_000 for shot in shots)
