"""The product cites only what it ships: the statute, readings and reference values in docs/."""

from __future__ import annotations

import dataclasses
import json
import re
import tomllib
import unicodedata
from pathlib import Path

import pytest

import actuarial

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"

# What the repository ships and may cite from: top-level Markdown files and these folders.
SHIPPED_FOLDERS = ("actuarial", "notebooks", "guides", "docs", "examples", "tests", "benchmarks")
SKIPPED_PARTS = {"__pycache__", ".ipynb_checkpoints"}
GENERATED = ROOT / "benchmarks" / "data"  # the benchmarks' generated inputs (gitignored)
TEXT_SUFFIXES = {".py", ".md", ".ipynb", ".toml", ".csv", ".cfg", ".txt", ".html", ".json", ""}

# The team's reference material outside the repository, which a user who clones it lacks.
UNSHIPPED_CITATION = re.compile(
    r"\.\./shared|shared/statute|shared/reference|CLAUSES\.md|translation\.en\.md"
    r"|seccion-2-chapter2-annuities"
)
# A repository path under docs/ (not part of a longer word or URL such as readthedocs.io/).
DOCS_PATH = re.compile(r"(?<![\w./-])docs/[\w./-]*[\w/]")
# A relative Markdown link target inside docs/: [text](file.md) or [text](file.md#anchor).
MARKDOWN_LINK = re.compile(r"\]\(([^)#:\s]+)(?:#[^)]*)?\)")


def shipped_text_files() -> list[Path]:
    files = sorted(ROOT.glob("*.md"))
    for folder in SHIPPED_FOLDERS:
        files += sorted(
            path
            for path in (ROOT / folder).rglob("*")
            if path.is_file()
            and path.suffix in TEXT_SUFFIXES
            and not SKIPPED_PARTS.intersection(path.parts)
            and not path.is_relative_to(GENERATED)
        )
    return [path for path in files if path != Path(__file__).resolve()]


def relative(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def normalized(text: str) -> str:
    """Text with Unicode composed and every run of whitespace a single space."""
    return " ".join(unicodedata.normalize("NFC", text).split())


SHIPPED = shipped_text_files()


def test_shipped_files_are_found_in_every_shipped_folder():
    found = {relative(path).split("/")[0] for path in SHIPPED}
    assert {"README.md", "actuarial", "notebooks", "guides", "docs", "examples"} <= found


def test_no_shipped_file_cites_the_team_reference_outside_the_repository():
    citations = [
        f"{relative(path)}:{number}: {line.strip()[:120]}"
        for path in SHIPPED
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if UNSHIPPED_CITATION.search(line)
    ]
    assert citations == [], "cite docs/ instead:\n" + "\n".join(citations)


def test_every_docs_path_cited_in_the_product_exists():
    cited = {
        (relative(path), match.group().rstrip("."))
        for path in SHIPPED
        for match in DOCS_PATH.finditer(path.read_text(encoding="utf-8"))
    }
    assert len(cited) >= 10  # README, package, notebooks, tests and guides all cite docs/
    missing = [f"{where}: {target}" for where, target in cited if not (ROOT / target).exists()]
    assert sorted(missing) == []


def test_every_relative_link_inside_docs_resolves():
    links = [
        (relative(page), target)
        for page in DOCS.glob("*.md")
        for target in MARKDOWN_LINK.findall(page.read_text(encoding="utf-8"))
    ]
    assert links
    broken = [f"{page}: {target}" for page, target in links if not (DOCS / target).exists()]
    assert broken == []


LAW_PAGES = ("statute.es.md", "statute.en.md", "readings.md", "reference-values.md")


def test_docs_index_lists_the_pages_on_the_law_and_the_reference_values():
    index = (DOCS / "README.md").read_text(encoding="utf-8")
    assert [name for name in LAW_PAGES if f"]({name})" not in index] == []


# Sentences of art. 2-103 (3 L.P.R.A. § 766d), verbatim, one or more from each inciso, with
# the text's own slips (the comma after «efectivo el», «años de servicio acreditado» in (d)).
STATUTE_SENTENCES = [
    "(a) Anualidad por años de servicios.— El retiro será opcional para los nuevos "
    "participantes que ingresen por primera vez al Sistema después del 1ro de abril de 1990, "
    "a partir de la fecha en que cumplan sesenta y cinco (65) años de edad, hubieren "
    "completado un mínimo de diez (10) años de servicios acreditados y no hubieren solicitado "
    "ni recibido el reembolso de sus aportaciones acumuladas.",
    "El importe de la anualidad será el uno y medio por ciento (1.5%) de la retribución "
    "promedio, multiplicado por el número de años de servicios acreditados.",
    "de quinientos dólares ($500) mensuales, efectivo el, 1ro de julio de 2013.",
    "recibirá efectivo el 1ro. de julio de 2013 el aumento necesario para que su pensión sea "
    "de quinientos dólares ($500).",
    "tendrán la opción de acogerse a una anualidad por retiro a partir de la fecha en que "
    "cumplan cincuenta y cinco (55) años de edad y hubieren completado treinta (30) años de "
    "servicio acreditado.",
    "El importe de esta anualidad será igual al setenta y cinco por ciento (75%) de la "
    "retribución promedio.",
    "Estos participantes podrán acogerse a una anualidad por retiro al completar treinta (30) "
    "años de servicio acreditable sin haber cumplido los cincuenta y cinco (55) años, en cuyo "
    "caso, el importe de esta anualidad será igual al sesenta y cinco por ciento (65%) de la "
    "retribución promedio.",
    "cuya separación del servicio ocurriese al cumplir cincuenta y cinco (55) años de edad y "
    "hubieren completado un mínimo de veinticinco (25) años de servicio acreditado, tendrán "
    "derecho a recibir la anualidad por años de servicio que se dispone en el inciso (a) de "
    "esta sección, con una reducción actuarial que será calculada a base de las Guías "
    "Actuariales adoptadas por la Junta de Síndicos.",
    "(d) Anualidad por retiro diferida.— Los participantes que ingresen por primera vez al "
    "Sistema después del 1ro de abril de 1990, cuya separación del servicio ocurriese antes de "
    "cumplir los sesenta y cinco (65) años de servicio acreditado",
    "tendrán derecho a recibir una anualidad por retiro diferida al cumplir sesenta y cinco "
    "(65) años. Dicha anualidad se calculará de acuerdo a la fórmula establecida en el inciso "
    "(a) de esta sección.",
]


@pytest.mark.parametrize("sentence", STATUTE_SENTENCES, ids=lambda s: s[:40])
def test_spanish_statute_page_holds_the_text_verbatim(sentence):
    assert normalized(sentence) in normalized((DOCS / "statute.es.md").read_text("utf-8"))


def test_spanish_statute_page_names_its_source():
    text = normalized((DOCS / "statute.es.md").read_text("utf-8"))
    assert "Ley Núm. 447 de 15 de mayo de 1951" in text and "3 L.P.R.A. § 766d" in text


def test_english_translation_has_every_clause_and_defers_to_the_spanish():
    text = (DOCS / "statute.en.md").read_text("utf-8")
    assert "working translation" in text and "Spanish governs" in text
    headings = re.findall(r"^## \(([a-d])\)", text, flags=re.MULTILINE)
    assert headings == ["a", "b", "c", "d"]


def _statute_page(name: str) -> str:
    """A page of the statute as plain text: no blockquote marks, no bold, whitespace single."""
    text = (DOCS / name).read_text(encoding="utf-8")
    return normalized(re.sub(r"^> ?", "", text, flags=re.MULTILINE).replace("**", ""))


def _notebook_quotations():
    """(notebook, quotation) of every blockquote of the notebooks' Markdown: the statute, in
    Spanish or in English, each clause of a block apart, its parts between '...' elisions."""
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] != "markdown":
                continue
            quoted = [
                line[1:].strip() if line.startswith(">") else ""  # a line of its own ends one
                for line in "".join(cell["source"]).splitlines()
            ]
            for block in re.split(r"\n\n+", "\n".join(quoted)):
                text = normalized(block.replace("**", "").replace("\\$", "$"))
                for part in re.split(r"\.\.\.|…", text):
                    if part.strip(" .,"):
                        yield path.name, part.strip(" .,")


ENGLISH_LABEL = re.compile(r"^\(([a-d])\) ([^.—]+)\. ")  # "(a) Annuity for years of service. "


def test_every_statute_quotation_of_the_notebooks_is_the_shipped_text_or_translation():
    """The pages quote the Spanish of docs/statute.es.md and the translation they name,
    docs/statute.en.md, word for word (they once showed another English translation)."""
    spanish, english = _statute_page("statute.es.md"), _statute_page("statute.en.md")
    quotations = list(_notebook_quotations())
    assert len({name for name, _ in quotations}) >= 9  # every page that quotes the law
    wrong = []
    for name, quotation in quotations:
        label = ENGLISH_LABEL.match(quotation)
        if label and f"## ({label[1]}) {label[2]}" in english:  # a heading of the translation
            quotation = quotation[label.end() :]
        elif re.match(r"\([a-d]\) ", quotation) and quotation[4:] in spanish:
            quotation = quotation[4:]  # "(c) Los participantes ...": the clause, its title elided
        if quotation not in spanish and quotation not in english:
            wrong.append(f"{name}: {quotation[:80]}")
    assert wrong == []


def test_the_readme_lists_every_package_of_every_extra_and_of_the_core():
    """The README's table of extras, and its list of the core's packages, name each
    dependency of pyproject.toml (the bench row once lacked openfisca-core)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    readme = (ROOT / "README.md").read_text("utf-8")

    def names(requirements):
        return {re.match(r"[\w.-]+", requirement)[0].lower() for requirement in requirements}

    table = readme.split("| extra | brings | for |", 1)[1].split("\n\n", 1)[0]
    rows = dict(re.findall(r"^\| `(\w+)` \| ([^|]+) \|", table, flags=re.MULTILINE))
    extras = project["optional-dependencies"]
    assert sorted(rows) == sorted(extras)
    missing = {
        extra: sorted(name for name in names(required) if name not in rows[extra].lower())
        for extra, required in extras.items()
    }
    assert missing == dict.fromkeys(extras, [])
    core = re.search(r"The core needs ([^.]+)\.", " ".join(readme.split()))[1].lower()
    assert sorted(name for name in names(project["dependencies"]) if name not in core) == []


def test_readings_page_explains_every_reading_and_names_every_switch():
    text = (DOCS / "readings.md").read_text("utf-8")
    sections = re.findall(r"^### (I-\d+) ", text, flags=re.MULTILINE)
    assert sections == [f"I-{number}" for number in range(1, 10)]
    switches = [field.name for field in dataclasses.fields(actuarial.Readings)]
    assert [name for name in switches if f"`{name}" not in text] == []


# A folder of the repository the installed package does not ship (MANIFEST.in, pyproject):
# docs/ is read installed too, where a path into one of them leads nowhere.
UNSHIPPED_FOLDER = re.compile(r"(?<![\w./-])(tests|benchmarks)/")


def _shipped_text_lines():
    """(place, line) of every page of docs/ and of every notebook (its cells and outputs:
    the report's pages), which the installed package ships."""
    for path in sorted(DOCS.rglob("*.md")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            yield f"{relative(path)}:{number}", line
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            yield f"{relative(path)}:{number}", line


def test_docs_cite_no_file_the_installed_package_lacks():
    """docs/reference-values.md named the test of each value (tests/test_*.py::...), and
    page 00 a test file for each clause, which the wheel does not ship: the tests cite the
    page (below), the page cites the sources."""
    citations = [
        f"{place}: {line.strip()[:120]}"
        for place, line in _shipped_text_lines()
        if UNSHIPPED_FOLDER.search(line)
    ]
    assert citations == [], "cite the published source or docs/ instead:\n" + "\n".join(citations)


READINGS_RANGE = re.compile(r"\bI-1 to I-(\d+)")


def test_every_range_of_the_readings_names_them_all():
    """Page 00 and page 04 said "the readings I-1 to I-8" once I-9 was declared."""
    from actuarial.interpretations import INTERPRETATIONS

    last = len(INTERPRETATIONS)
    files = [*sorted(ROOT.glob("*.md")), *sorted((ROOT / "actuarial").rglob("*.py"))]
    lines = [
        (f"{relative(path)}:{number}", line)
        for path in files
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
    ]
    stale = [
        f"{place}: {line.strip()[:120]}"
        for place, line in [*lines, *_shipped_text_lines()]
        for found in READINGS_RANGE.findall(line)
        if int(found) != last
    ]
    assert stale == [], f"the readings are I-1 to I-{last}:\n" + "\n".join(stale)


PUBLISHED_SOURCE = re.compile(r"# Source: .*(SULT|ILT|Life Table|equivalent)")


def test_every_test_source_comment_on_a_published_value_cites_the_reference_page():
    comments = [
        f"{relative(path)}: {line.strip()}"
        for path in sorted((ROOT / "tests").glob("test_*.py"))
        if path != Path(__file__).resolve()
        for line in path.read_text("utf-8").splitlines()
        if PUBLISHED_SOURCE.search(line)
    ]
    assert comments
    assert [line for line in comments if "docs/reference-values.md" not in line] == []


def test_valuation_page_states_the_ages_and_size_a_rates_file_may_have():
    from actuarial import mortality

    text = normalized((DOCS / "valuation.md").read_text("utf-8"))
    assert f"consecutive integer ages, each from 0 to {mortality.MAX_RATES_AGE}" in text
    assert isinstance(mortality.CSV_RATES_LIMIT, int)
    assert "`actuarial.mortality.CSV_RATES_LIMIT`" in text


def test_reference_values_page_states_the_last_age_at_which_sult_and_ilt_close():
    from actuarial import mortality

    text = normalized((DOCS / "reference-values.md").read_text("utf-8"))
    for table in (mortality.sult(), mortality.ilt()):
        assert table.q(table.max_age) == 1.0
        assert f"`q_{table.max_age} = 1`" in text


def test_each_tolerance_on_the_reference_page_is_a_number():
    """A row of 1000 A_x kept "the same test" as its tolerance when the columns changed."""
    text = (DOCS / "reference-values.md").read_text(encoding="utf-8")
    wrong, column = [], None
    for line in text.splitlines():
        cells = [cell.strip() for cell in re.split(r"(?<!\\)\|", line.strip().strip("|"))]
        if not line.startswith("|"):
            column = None
        elif "tolerance" in cells:
            column = cells.index("tolerance")
        elif column is not None and not set(line) <= set("|- "):
            tolerance = cells[column] if column < len(cells) else ""
            number = r"\d[\d.e-]*( relative)?"
            if not re.fullmatch(rf"{number}(; {number})*|exact \(as published\)", tolerance):
                wrong.append(line)
    assert wrong == []
