"""The readings of the statute the engine takes where the text is silent (I-1 to I-9).

Each switchable interpretation (written up in ``docs/``) is one field of :class:`Readings`,
declared once in :data:`INTERPRETATIONS` with its wording (English and Spanish templates
filled with the law in force) and its command-line switch, and read in exactly one function
of the law (``applied_in``). Every result carries the ``Readings`` it used.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, fields

import numpy as np

from actuarial.dates import LEAP_DAY_RULES
from actuarial.law.conditions import render
from actuarial.shown_text import as_given, decimal_shown

__all__ = ["INTERPRETATIONS", "MINIMUM_SCOPES", "Interpretation", "Readings", "Switch"]

MINIMUM_SCOPES = ("all", "a")


@dataclass(frozen=True, slots=True)
class Switch:
    """How a reading is switched on the command line (options are generated from this)."""

    option: str  # click declaration: "--on/--off" for a flag pair, "--name" otherwise
    help: str  # template filled with the law in force
    choices: tuple[str, ...] | None = None
    range: tuple[float, float] | None = None  # a number in [low, high]; None default allowed


@dataclass(frozen=True, slots=True)
class Interpretation:
    """One named reading: id, wording in English and Spanish, the switch, where applied."""

    id: str
    title: str
    default: str  # templates: {law[name]}, {pct[name]}, and the switches' values
    alternative: str
    title_es: str
    default_es: str
    alternative_es: str
    switch: str | None
    cli: Switch | None
    applied_in: str  # the one function that applies it

    def text(
        self, lang: str, switched: bool, law_values: Mapping, switches: Mapping, later: str = ""
    ) -> tuple:
        """(title, reading in force) in ``lang``, filled with the law values in force;
        ``later``: the minimums of later payment dates, as :data:`LATER_MINIMUM` writes them."""
        title, default, alternative = (
            (self.title_es, self.default_es, self.alternative_es)
            if lang == "es"
            else (self.title, self.default, self.alternative)
        )
        return (
            render(title, law_values),
            render(
                alternative if switched else default, law_values, **switches, later_minimums=later
            ),
        )


COVERED = "{law[coverage.first_entry_on_or_after]}"
UNCOVERED = "{law[coverage.first_entry_before]}"
MINIMUM = "${law[minimum_monthly_pension]:,.2f}"
# Each minimum a later payment may get ("; $600.00 from 2027-01-01"): I-4 judges the
# minimum on each annuity's payment date, which may fall after the date the text is of.
LATER_MINIMUMS = "{later_minimums}"
LATER_MINIMUM = {"en": "; {minimum} from {day}", "es": "; {minimum} desde el {day}"}


def later_minimums_text(lang: str, later_minimums) -> str:
    """``later_minimums`` ((day, amount), ...) as :data:`LATER_MINIMUMS` states them."""
    return "".join(
        LATER_MINIMUM[lang].format(
            minimum=render(MINIMUM, {"minimum_monthly_pension": amount}), day=day
        )
        for day, amount in later_minimums
    )


def values_today() -> tuple[dict, tuple]:
    """The shipped law's values today and the minimums it sets from later dates: what a
    text of no member and no law file states (the readings, the CLI's help)."""
    from actuarial.law.minimum import later_minimums
    from actuarial.law.parameters import shipped_law

    law, today = shipped_law(), dt.date.today()
    return law.values_in_force(today), later_minimums(law, max(today, law.first_date()))


INTERPRETATIONS = (
    Interpretation(
        "I-1",
        "Coverage window",
        f"first entry on or after {COVERED} and before {UNCOVERED} (its first day included)",
        f"first entry after {COVERED} and before {UNCOVERED} (its first day excluded)",
        "Período de cobertura",
        f"ingreso desde el {COVERED} y antes del {UNCOVERED} (incluye su primer día)",
        f"ingreso después del {COVERED} y antes del {UNCOVERED} (excluye su primer día)",
        "april_first_is_covered",
        Switch(
            "--april-first-covered/--april-first-excluded",
            f"I-1: a member who first entered on {COVERED} is covered.",
        ),
        "actuarial.law.coverage.first_day_included",
    ),
    Interpretation(
        "I-2",
        "Clause (d) «sesenta y cinco (65) años de servicio acreditado»",
        "read as {law[deferred.age]} years of age (a drafting slip)",
        "literal: separation before {law[deferred.age]} years of credited service",
        "Inciso (d) «sesenta y cinco (65) años de servicio acreditado»",
        "se lee como {law[deferred.age]} años de edad (error de redacción)",
        "literal: separación antes de {law[deferred.age]} años de servicio acreditado",
        "deferred_reads_age",
        Switch(
            "--deferred-reads-age/--deferred-reads-service",
            "I-2: inciso (d)'s «años de servicio acreditado» read as age, or literally.",
        ),
        "actuarial.law.clauses.deferred_separated_before",
    ),
    Interpretation(
        "I-3",
        "Refund",
        "a refund bars (a), (c), (d) and also (b)",
        "a refund bars (a), (c), (d) but not (b), on which the text is silent",
        "Reembolso",
        "el reembolso impide (a), (c), (d) y también (b)",
        "el reembolso impide (a), (c), (d) pero no (b), sobre el que el texto calla",
        "refund_bars_high_risk",
        Switch(
            "--refund-bars-high-risk/--refund-allows-high-risk",
            "I-3: a refund of contributions bars inciso (b) too.",
        ),
        "actuarial.law.clauses.high_risk_refund",
    ),
    Interpretation(
        "I-4",
        "Minimum pension",
        f"the monthly minimum in force on the payment date ({MINIMUM}{LATER_MINIMUMS}) on every "
        "Chapter 2 annuity",
        f"the monthly minimum in force on the payment date ({MINIMUM}{LATER_MINIMUMS}) on "
        "inciso (a) annuities only",
        "Pensión mínima",
        f"la pensión mínima mensual vigente en la fecha de pago ({MINIMUM}{LATER_MINIMUMS}) en "
        "toda anualidad del Capítulo 2",
        f"la pensión mínima mensual vigente en la fecha de pago ({MINIMUM}{LATER_MINIMUMS}) "
        "solo en anualidades del inciso (a)",
        "minimum_applies_to",
        Switch(
            "--minimum-applies-to",
            f"I-4: the monthly minimum ({MINIMUM}{LATER_MINIMUMS}) on every clause, or on "
            "inciso (a) only.",
            choices=MINIMUM_SCOPES,
        ),
        "actuarial.law.minimum.minimum_reaches",
    ),
    Interpretation(
        "I-5",
        "Minimum service for (d)",
        "{law[service_annuity.minimum_service]} years, as in clause (a)",
        "{deferred_minimum_service:g} years",
        "Servicio mínimo para (d)",
        "{law[service_annuity.minimum_service]} años, como en el inciso (a)",
        "{deferred_minimum_service:g} años",
        "deferred_minimum_service",
        Switch(
            "--deferred-minimum-service",
            "I-5: years of service inciso (d) requires (default: those of inciso (a), "
            "{law[service_annuity.minimum_service]}; 0 = the literal text).",
            range=(0, 120),
        ),
        "actuarial.law.clauses.deferred_service_required",
    ),
    Interpretation(
        "I-6",
        "Ages",
        "anniversary rule; born Feb 29: birthday on Feb 28 in common years",
        "anniversary rule; born Feb 29: birthday on Mar 1 in common years",
        "Edades",
        "regla del aniversario; nacidos el 29 de febrero: cumpleaños el 28 de febrero en "
        "años comunes",
        "regla del aniversario; nacidos el 29 de febrero: cumpleaños el 1 de marzo en años comunes",
        "leap_day_birthday",
        Switch(
            "--leap-day-birthday",
            "I-6: birthday of a Feb 29 birth in common years.",
            choices=LEAP_DAY_RULES,
        ),
        "actuarial.law.clauses.situation",
    ),
    Interpretation(
        "I-7",
        "Choice",
        "every clause is reported, eligible or not; the member chooses",
        "",
        "Elección",
        "se informan todos los incisos, elegibles o no; el participante elige",
        "",
        None,
        None,
        "actuarial.engine.evaluate_members",
    ),
    Interpretation(
        "I-8",
        "Not in this text",
        "average compensation and credited service are inputs (frozen at 2013-06-30)",
        "",
        "Fuera de este texto",
        "la retribución promedio y el servicio acreditado son datos (congelados al 2013-06-30)",
        "",
        None,
        None,
        "actuarial.members.parse_members",
    ),
    Interpretation(
        "I-9",
        "Inciso (b) before {law[high_risk.age]}",
        "the age at separation sets the rate ({pct[high_risk.rate_at_age]} at "
        "{law[high_risk.age]} or later, {pct[high_risk.rate_before_age]} before); the "
        "annuity starts at separation",
        "a member with {law[high_risk.minimum_service]} years who separates before "
        "{law[high_risk.age]} takes {pct[high_risk.rate_at_age]} from the "
        "{nth[high_risk.age]} birthday",
        "Inciso (b) antes de los {law[high_risk.age]}",
        "la edad al separarse fija el porcentaje ({pct[high_risk.rate_at_age]} a los "
        "{law[high_risk.age]} o más, {pct[high_risk.rate_before_age]} antes); la anualidad "
        "comienza al separarse",
        "quien tenga {law[high_risk.minimum_service]} años de servicio y se separe antes de "
        "los {law[high_risk.age]} recibe el {pct[high_risk.rate_at_age]} desde que cumpla "
        "{law[high_risk.age]} años",
        "high_risk_waits_for_age",
        Switch(
            "--high-risk-waits-for-age/--high-risk-rate-at-separation",
            "I-9: inciso (b) before {law[high_risk.age]}: {pct[high_risk.rate_at_age]} from "
            "the {nth[high_risk.age]} birthday instead of {pct[high_risk.rate_before_age]} "
            "at separation.",
        ),
        "actuarial.law.clauses.high_risk_rate_and_start",
    ),
)


@dataclass(frozen=True, slots=True)
class Readings:
    """Switches for the interpretations I-1 to I-9; the defaults are the toolkit's readings.

    - ``april_first_is_covered`` (I-1): a member who entered on the first day of the
      coverage window is covered.
    - ``deferred_reads_age`` (I-2): clause (d)'s «años de servicio acreditado» means age;
      ``False`` takes the literal text (separation before that many years of service).
    - ``refund_bars_high_risk`` (I-3): a refund bars clause (b) as well.
    - ``minimum_applies_to`` (I-4): ``"all"`` clauses or only clause ``"a"``.
    - ``deferred_minimum_service`` (I-5): years of service clause (d) needs; ``None``
      (default): those of clause (a) in the law in force; 0 = the literal text. A whole
      number is kept as an int however given (``0``, ``0.0``, ``-0.0``: ``0``), so that one
      reading reads the same in every text and column.
    - ``leap_day_birthday`` (I-6): ``"feb28"`` or ``"mar1"`` for Feb 29 births.
    - ``high_risk_waits_for_age`` (I-9): inciso (b) before the age: the rate at the age,
      from the birthday, instead of the lower rate at separation.
    """

    april_first_is_covered: bool = True
    deferred_reads_age: bool = True
    refund_bars_high_risk: bool = True
    minimum_applies_to: str = "all"
    deferred_minimum_service: float | None = None
    leap_day_birthday: str = "feb28"
    high_risk_waits_for_age: bool = False

    def __post_init__(self) -> None:
        for switch in fields(self):  # numpy's booleans and numbers (from a frame) as Python's
            value = getattr(self, switch.name)
            if isinstance(value, np.bool_ | np.integer):
                object.__setattr__(self, switch.name, value.item())
            elif isinstance(value, np.floating):  # a float32 as the decimal it shows
                object.__setattr__(self, switch.name, decimal_shown(value))
        for name in (
            "april_first_is_covered",
            "deferred_reads_age",
            "refund_bars_high_risk",
            "high_risk_waits_for_age",
        ):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(
                    f"'{name}' must be True or False (got {as_given(getattr(self, name))})"
                )
        if self.minimum_applies_to not in MINIMUM_SCOPES:
            raise ValueError(
                f"'minimum_applies_to' must be in {list(MINIMUM_SCOPES)} "
                f"(got {as_given(self.minimum_applies_to)})"
            )
        if self.leap_day_birthday not in LEAP_DAY_RULES:
            raise ValueError(
                f"'leap_day_birthday' must be in {list(LEAP_DAY_RULES)} "
                f"(got {as_given(self.leap_day_birthday)})"
            )
        service = self.deferred_minimum_service
        low, high = next(i.cli.range for i in INTERPRETATIONS if i.id == "I-5")
        if service is not None and (
            isinstance(service, bool)
            or not isinstance(service, int | float)
            or not (low <= service <= high)
        ):
            raise ValueError(
                f"'deferred_minimum_service' must be None or in [{low:g}, {high:g}] "
                f"(got {as_given(service)})"
            )
        if isinstance(service, float) and service.is_integer():  # 0.0 (the CLI's), -0.0: 0
            object.__setattr__(self, "deferred_minimum_service", int(service))

    def as_dict(self) -> dict:
        """The switches as a plain mapping (for JSON, reports and Parquet metadata)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}  # plain values: no deep copy

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

    def describe(
        self, lang: str = "en", law_values: Mapping | None = None, later_minimums=()
    ) -> list[str]:
        """One line per interpretation, with the reading in force (``lang``: en or es).

        ``law_values``: the law's values the texts state, and ``later_minimums``: (day,
        amount) of each minimum that takes effect after the payment date of those values
        (I-4 states them); without ``law_values``, the shipped law's today and its later
        minimums (:func:`values_today`).
        """
        if lang not in ("en", "es"):
            raise ValueError(f"'lang' must be in ['en', 'es'] (got {as_given(lang)})")
        if law_values is None:
            law_values, later_minimums = values_today()
        later = later_minimums_text(lang, later_minimums)
        values = self.as_dict()
        default = Readings().as_dict()
        lines = []
        for item in INTERPRETATIONS:
            switched = item.switch is not None and values[item.switch] != default[item.switch]
            title, text = item.text(lang, switched, law_values, values, later)
            if item.switch is None:
                lines.append(f"{item.id} {title}: {text}")
                continue
            state = (
                ("cambiada" if switched else "por defecto")
                if lang == "es"
                else ("switched" if switched else "default")
            )
            lines.append(
                f"{item.id} {title}: {text} [{item.switch}={values[item.switch]!r}, {state}]"
            )
        return lines
