"""The readings of the statute the engine takes where the text is silent (I-1 to I-8).

Each switchable interpretation of ``docs/readings.md`` is one field of
:class:`Readings`, read in exactly one place of the engine. Every result carries the
``Readings`` it used.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields

from actuarial.dates import LEAP_DAY_RULES

__all__ = ["INTERPRETATIONS", "MINIMUM_SCOPES", "Interpretation", "Readings"]

MINIMUM_SCOPES = ("all", "a")


@dataclass(frozen=True, slots=True)
class Interpretation:
    """One named reading: its id, title, default, the switch and the switched reading."""

    id: str
    title: str
    default: str
    switch: str | None
    alternative: str = ""


INTERPRETATIONS = (
    Interpretation(
        "I-1",
        "Coverage window",
        "first entry on or after 1990-04-01 and before 2000-01-01 (April 1 included)",
        "april_first_is_covered",
        "first entry after 1990-04-01 and before 2000-01-01 (April 1 excluded)",
    ),
    Interpretation(
        "I-2",
        "Clause (d) «65 años de servicio acreditado»",
        "read as 65 years of age (a drafting slip)",
        "deferred_reads_age",
        "literal: separation before 65 years of credited service",
    ),
    Interpretation(
        "I-3",
        "Refund",
        "a refund bars (a), (c), (d) and also (b)",
        "refund_bars_high_risk",
        "a refund bars (a), (c), (d) but not (b), on which the text is silent",
    ),
    Interpretation(
        "I-4",
        "Minimum pension",
        "$500 monthly minimum on every Chapter 2 annuity paid on or after 2013-07-01",
        "minimum_applies_to",
        "$500 monthly minimum on inciso (a) annuities only, paid on or after 2013-07-01",
    ),
    Interpretation(
        "I-5",
        "Minimum service for (d)",
        "10 years, as in clause (a)",
        "deferred_minimum_service",
        "{deferred_minimum_service:g} years",
    ),
    Interpretation(
        "I-6",
        "Ages",
        "anniversary rule; born Feb 29: birthday on Feb 28 in common years",
        "leap_day_birthday",
        "anniversary rule; born Feb 29: birthday on Mar 1 in common years",
    ),
    Interpretation(
        "I-7", "Choice", "every clause is reported, eligible or not; the member chooses", None
    ),
    Interpretation(
        "I-8",
        "Not in this text",
        "average compensation and credited service are inputs (frozen at 2013-06-30)",
        None,
    ),
)


# Spanish titles, defaults and switched readings, for explanations with --lang es.
SPANISH = {
    "I-1": (
        "Período de cobertura",
        "ingreso desde el 1990-04-01 y antes del 2000-01-01 (incluye el 1 de abril)",
        "ingreso después del 1990-04-01 y antes del 2000-01-01 (excluye el 1 de abril)",
    ),
    "I-2": (
        "Inciso (d) «65 años de servicio acreditado»",
        "se lee como 65 años de edad (error de redacción)",
        "literal: separación antes de 65 años de servicio acreditado",
    ),
    "I-3": (
        "Reembolso",
        "el reembolso impide (a), (c), (d) y también (b)",
        "el reembolso impide (a), (c), (d) pero no (b), sobre el que el texto calla",
    ),
    "I-4": (
        "Pensión mínima",
        "mínimo de $500 mensuales en toda anualidad del Capítulo 2 pagada desde el 2013-07-01",
        "mínimo de $500 mensuales solo en anualidades del inciso (a), pagadas desde el 2013-07-01",
    ),
    "I-5": (
        "Servicio mínimo para (d)",
        "10 años, como en el inciso (a)",
        "{deferred_minimum_service:g} años",
    ),
    "I-6": (
        "Edades",
        "regla del aniversario; nacidos el 29 de febrero: cumpleaños el 28 de febrero en años "
        "comunes",
        "regla del aniversario; nacidos el 29 de febrero: cumpleaños el 1 de marzo en años comunes",
    ),
    "I-7": (
        "Elección",
        "se informan todos los incisos, elegibles o no; el participante elige",
        "",
    ),
    "I-8": (
        "Fuera de este texto",
        "la retribución promedio y el servicio acreditado son datos (congelados al 2013-06-30)",
        "",
    ),
}


@dataclass(frozen=True, slots=True)
class Readings:
    """Switches for the readings of docs/readings.md; the defaults are the toolkit's readings.

    - ``april_first_is_covered`` (I-1): a member who entered on 1990-04-01 is covered.
    - ``deferred_reads_age`` (I-2): clause (d)'s «65 años de servicio acreditado» means age;
      ``False`` takes the literal text (separation before 65 years of service).
    - ``refund_bars_high_risk`` (I-3): a refund bars clause (b) as well.
    - ``minimum_applies_to`` (I-4): ``"all"`` clauses or only clause ``"a"``.
    - ``deferred_minimum_service`` (I-5): years of service clause (d) needs (0 = literal).
    - ``leap_day_birthday`` (I-6): ``"feb28"`` or ``"mar1"`` for Feb 29 births.
    """

    april_first_is_covered: bool = True
    deferred_reads_age: bool = True
    refund_bars_high_risk: bool = True
    minimum_applies_to: str = "all"
    deferred_minimum_service: float = 10.0
    leap_day_birthday: str = "feb28"

    def __post_init__(self) -> None:
        for name in ("april_first_is_covered", "deferred_reads_age", "refund_bars_high_risk"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"'{name}' must be True or False (got {getattr(self, name)!r})")
        if self.minimum_applies_to not in MINIMUM_SCOPES:
            raise ValueError(
                f"'minimum_applies_to' must be in {list(MINIMUM_SCOPES)} "
                f"(got {self.minimum_applies_to!r})"
            )
        if self.leap_day_birthday not in LEAP_DAY_RULES:
            raise ValueError(
                f"'leap_day_birthday' must be in {list(LEAP_DAY_RULES)} "
                f"(got {self.leap_day_birthday!r})"
            )
        service = self.deferred_minimum_service
        if (
            isinstance(service, bool)
            or not isinstance(service, int | float)
            or not (0 <= service <= 65)
        ):
            raise ValueError(f"'deferred_minimum_service' must be in [0, 65] (got {service!r})")

    def as_dict(self) -> dict:
        """The switches as a plain mapping (for JSON, reports and Parquet metadata)."""
        return asdict(self)

    def changed(self) -> dict:
        """The switches that differ from the defaults."""
        default = Readings()
        return {
            f.name: getattr(self, f.name)
            for f in fields(self)
            if getattr(self, f.name) != getattr(default, f.name)
        }

    def label(self) -> str:
        """Short tag for result rows: ``"defaults"`` or the switched readings."""
        changed = self.changed()
        if not changed:
            return "defaults"
        return ";".join(f"{name}={value}" for name, value in changed.items())

    def describe(self, lang: str = "en") -> list[str]:
        """One line per interpretation, with the reading in force (``lang``: en or es)."""
        if lang not in ("en", "es"):
            raise ValueError(f"'lang' must be in ['en', 'es'] (got {lang!r})")
        values = self.as_dict()
        default = Readings().as_dict()
        lines = []
        for item in INTERPRETATIONS:
            title, default_text, alternative = (
                SPANISH[item.id] if lang == "es" else (item.title, item.default, item.alternative)
            )
            if item.switch is None:
                lines.append(f"{item.id} {title}: {default_text}")
                continue
            switched = values[item.switch] != default[item.switch]
            text = alternative.format(**values) if switched else default_text
            state = (
                ("cambiada" if switched else "por defecto")
                if lang == "es"
                else ("switched" if switched else "default")
            )
            lines.append(
                f"{item.id} {title}: {text} [{item.switch}={values[item.switch]!r}, {state}]"
            )
        return lines
