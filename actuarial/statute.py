"""The four annuities of Chapter 2 (Ley 447-1951, art. 2-103, 3 L.P.R.A. § 766d), as rules.

Each clause is one vectorized function over a whole membership: it returns the conditions
it tested (name and pass/fail per member), eligibility, the annual amount before the
minimum and the start date. A one-member evaluation is a one-row call of the same code.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from actuarial.dates import add_years
from actuarial.interpretations import Readings

__all__ = [
    "CLAUSES",
    "CLAUSE_TITLES",
    "ClauseOutcome",
    "Situation",
    "inciso_a",
    "inciso_b",
    "inciso_c",
    "inciso_d",
]

CLAUSES = ("a", "b", "c", "d")
CLAUSE_TITLES = {
    "a": "Anualidad por años de servicios",
    "b": "Anualidad por servicios de alto riesgo",
    "c": "Anualidad por retiro temprano",
    "d": "Anualidad por retiro diferida",
}

# Inciso (a): «... a partir de la fecha en que cumplan sesenta y cinco (65) años de edad,
# hubieren completado un mínimo de diez (10) años de servicios acreditados ...»
INCISO_A_AGE_MONTHS = 65 * 12
INCISO_A_MINIMUM_SERVICE_YEARS = 10.0
# «El importe de la anualidad será el uno y medio por ciento (1.5%) de la retribución
# promedio, multiplicado por el número de años de servicios acreditados.»
INCISO_A_BENEFIT_RATE = 0.015
# Inciso (b): «... cincuenta y cinco (55) años de edad y ... treinta (30) años de servicio»
INCISO_B_AGE_MONTHS = 55 * 12
INCISO_B_MINIMUM_SERVICE_YEARS = 30.0
INCISO_B_RATE_AT_55 = 0.75
INCISO_B_RATE_BEFORE_55 = 0.65
# Inciso (c): «... al cumplir cincuenta y cinco (55) años de edad y ... un mínimo de
# veinticinco (25) años de servicio acreditado ...»
INCISO_C_AGE_MONTHS = 55 * 12
INCISO_C_MINIMUM_SERVICE_YEARS = 25.0
# Inciso (d): «... antes de cumplir los sesenta y cinco (65) años ...» (I-2).
INCISO_D_AGE_MONTHS = 65 * 12
INCISO_D_LITERAL_SERVICE_YEARS = 65.0


@dataclass(frozen=True, slots=True)
class Situation:
    """What the clauses look at, one array element per member (all covered by I-1)."""

    age_months: np.ndarray  # completed months of age at separation (I-6)
    birth_date: np.ndarray  # datetime64[D]
    separation_date: np.ndarray  # datetime64[D]
    credited_service: np.ndarray  # years
    average_compensation: np.ndarray  # annual USD
    high_risk: np.ndarray  # police or firefighter
    refunded: np.ndarray


@dataclass(frozen=True, slots=True)
class ClauseOutcome:
    """Result of one clause over all members, before the minimum and rounding.

    ``conditions`` pairs each condition's name with its pass array, in the order they are
    reported; ``variant`` codes the branch taken (inciso (b): 0 = 75% at 55, 1 = 65% before).
    """

    clause: str
    conditions: tuple[tuple[str, np.ndarray], ...]
    eligible: np.ndarray
    annual_amount: np.ndarray  # before any reduction for (c); NaN where not eligible
    start_date: np.ndarray
    variant: np.ndarray | None = None


def _outcome(clause, conditions, annual, start, variant=None) -> ClauseOutcome:
    eligible = np.logical_and.reduce([passes for _, passes in conditions])
    return ClauseOutcome(
        clause,
        tuple(conditions),
        eligible,
        np.where(eligible, annual, np.nan),
        np.where(eligible, start, np.datetime64("NaT")),
        variant,
    )


def _service_annuity(situation: Situation) -> np.ndarray:
    return INCISO_A_BENEFIT_RATE * situation.average_compensation * situation.credited_service


def inciso_a(situation: Situation, readings: Readings) -> ClauseOutcome:
    """Service annuity at 65 with 10 years: 1.5% x AC x S from separation.

    Inciso (a): «El retiro será opcional ... a partir de la fecha en que cumplan sesenta y
    cinco (65) años de edad, hubieren completado un mínimo de diez (10) años de servicios
    acreditados y no hubieren solicitado ni recibido el reembolso de sus aportaciones
    acumuladas. El importe de la anualidad será el uno y medio por ciento (1.5%) de la
    retribución promedio, multiplicado por el número de años de servicios acreditados.»
    """
    conditions = [
        ("no_refund", ~situation.refunded),
        ("age_65", situation.age_months >= INCISO_A_AGE_MONTHS),
        ("service_10", situation.credited_service >= INCISO_A_MINIMUM_SERVICE_YEARS),
    ]
    return _outcome("a", conditions, _service_annuity(situation), situation.separation_date)


def inciso_b(situation: Situation, readings: Readings) -> ClauseOutcome:
    """High-risk annuity: 75% of AC at 55 with 30 years, 65% with 30 years before 55.

    Inciso (b): «Los miembros del Cuerpo de la Policía y del Cuerpo de Bomberos ... tendrán
    la opción de acogerse a una anualidad por retiro a partir de la fecha en que cumplan
    cincuenta y cinco (55) años de edad y hubieren completado treinta (30) años de servicio
    acreditado. El importe de esta anualidad será igual al setenta y cinco por ciento (75%)
    de la retribución promedio. ... al completar treinta (30) años de servicio acreditable
    sin haber cumplido los cincuenta y cinco (55) años, ... sesenta y cinco por ciento
    (65%) de la retribución promedio.»
    """
    at_55 = situation.age_months >= INCISO_B_AGE_MONTHS
    conditions = [
        ("high_risk_group", situation.high_risk),
        # I-3: the text is silent on refunds; by default a refund bars (b) too.
        ("no_refund", ~situation.refunded | (not readings.refund_bars_high_risk)),
        ("service_30", situation.credited_service >= INCISO_B_MINIMUM_SERVICE_YEARS),
    ]
    rate = np.where(at_55, INCISO_B_RATE_AT_55, INCISO_B_RATE_BEFORE_55)
    return _outcome(
        "b",
        conditions,
        rate * situation.average_compensation,
        situation.separation_date,
        variant=(~at_55).astype(np.int64),
    )


def inciso_c(situation: Situation, readings: Readings) -> ClauseOutcome:
    """Early retirement from 55 to 65 with 25 years: the (a) annuity, before reduction.

    Inciso (c): «Los participantes ... cuya separación del servicio ocurriese al cumplir
    cincuenta y cinco (55) años de edad y hubieren completado un mínimo de veinticinco (25)
    años de servicio acreditado, tendrán derecho a recibir la anualidad por años de servicio
    que se dispone en el inciso (a) de esta sección, con una reducción actuarial que será
    calculada a base de las Guías Actuariales adoptadas por la Junta de Síndicos.»

    The reduction factor is applied by the engine from the guide in force (I-6: at 65 or
    later clause (a) applies instead). The refund bar comes with the annuity of (a) (I-3).
    """
    conditions = [
        ("no_refund", ~situation.refunded),
        ("age_55", situation.age_months >= INCISO_C_AGE_MONTHS),
        ("age_below_65", situation.age_months < INCISO_A_AGE_MONTHS),
        ("service_25", situation.credited_service >= INCISO_C_MINIMUM_SERVICE_YEARS),
    ]
    return _outcome("c", conditions, _service_annuity(situation), situation.separation_date)


def inciso_d(situation: Situation, readings: Readings) -> ClauseOutcome:
    """Deferred annuity from the 65th birthday for members who separate before 65.

    Inciso (d): «Los participantes ... cuya separación del servicio ocurriese antes de
    cumplir los sesenta y cinco (65) años de servicio acreditado y que no hubieren
    solicitado ni recibido el reembolso de sus aportaciones acumuladas, tendrán derecho a
    recibir una anualidad por retiro diferida al cumplir sesenta y cinco (65) años. Dicha
    anualidad se calculará de acuerdo a la fórmula establecida en el inciso (a) de esta
    sección.»
    """
    birthday_65 = add_years(
        situation.birth_date, INCISO_D_AGE_MONTHS // 12, readings.leap_day_birthday
    )
    if readings.deferred_reads_age:  # I-2: «65 años» read as age
        before_65 = situation.age_months < INCISO_D_AGE_MONTHS
    else:  # literal: fewer than 65 years of credited service
        before_65 = situation.credited_service < INCISO_D_LITERAL_SERVICE_YEARS
    conditions = [
        ("no_refund", ~situation.refunded),
        ("separated_before_65", before_65),
        # I-5: the 10 years of (a) by default; 0 gives the literal reading.
        ("deferred_service", situation.credited_service >= readings.deferred_minimum_service),
    ]
    start = np.maximum(birthday_65, situation.separation_date)
    return _outcome("d", conditions, _service_annuity(situation), start)


CLAUSE_RULES = {"a": inciso_a, "b": inciso_b, "c": inciso_c, "d": inciso_d}
