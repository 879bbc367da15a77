"""The four annuities of Chapter 2 (Ley 447-1951, art. 2-103, 3 L.P.R.A. § 766d), as rules.

Each clause is quoted, then its conditions are declared once (:class:`Condition`: id by the
statute's coordinates, the law parameter tested, wording in English and Spanish), then its
rule: one vectorized function over a whole membership, reading every number from the law in
force on the separation date (``law_on``). :data:`CLAUSES` is the registry the engine, the
table and the batch iterate: a clause registered there is evaluated and reported like these.
"""

from __future__ import annotations

import numpy as np

from actuarial.dates import add_years, age_in_months, birth_parts
from actuarial.law.conditions import (
    Clause,
    ClauseOutcome,
    Condition,
    Situation,
    Variant,
    Wording,
)
from actuarial.law.readings import Readings

__all__ = [
    "CLAUSES",
    "deferred_separated_before",
    "deferred_service_required",
    "high_risk_rate_and_start",
    "high_risk_refund",
    "inciso_a",
    "inciso_b",
    "inciso_c",
    "inciso_d",
    "register_clause",
    "situation",
    "unregister_clause",
]


def situation(members, readings: Readings, high_risk: np.ndarray) -> Situation:
    """What the clauses look at, with ages by the anniversary rule (I-6)."""
    rule = readings.leap_day_birthday
    parts = birth_parts(members.birth_date)  # once for the ages and the birthdays

    def birthday(years):
        return add_years(members.birth_date, np.asarray(years).astype(np.int64), rule, parts)

    return Situation(
        age_months=age_in_months(members.birth_date, members.separation_date, rule, parts),
        birth_date=members.birth_date,
        separation_date=members.separation_date,
        # Invalid rows (NaN, inf, 1e308) are never reported; zeros keep the arithmetic quiet.
        credited_service=_valid_or_zero(members.credited_service, members.valid),
        average_compensation=_valid_or_zero(members.average_compensation, members.valid),
        high_risk=high_risk,
        refunded=members.refunded,
        birthday=birthday,
    )


def _valid_or_zero(values: np.ndarray, valid: np.ndarray) -> np.ndarray:
    return np.where(valid & np.isfinite(values), values, 0.0)


def _outcome(clause, conditions, annual, start, variant=None) -> ClauseOutcome:
    passes = [met for _, met in conditions]
    if len(passes) < 2:  # one condition, or none: every member
        eligible = np.logical_and.reduce(passes)
    else:  # one after another in place (numpy's reduce first stacks them)
        eligible = passes[0] & passes[1]
        for met in passes[2:]:
            eligible &= met
    return ClauseOutcome(clause, tuple(conditions), eligible, annual, start, variant)


def _refund(clause: str) -> Condition:
    return Condition(
        f"{clause}.refund",
        None,
        Wording(
            "no refund of contributions",
            "refund of contributions requested or received",
            "no refund of contributions (refund: {refund})",
        ),
        Wording(
            "sin reembolso de aportaciones",
            "reembolso de aportaciones solicitado o recibido",
            "sin reembolso de aportaciones (reembolso: {refund})",
        ),
    )


def _age_at_least(clause: str, parameter: str) -> Condition:
    return Condition(
        f"{clause}.age",
        parameter,
        Wording(
            "age at separation {value} or older",
            "age at separation below {value}",
            "age at separation {age} >= {value}y0m",
        ),
        Wording(
            "edad al separarse {value} o más",
            "edad al separarse menor de {value}",
            "edad al separarse {age} >= {value}a0m",
        ),
    )


def _service_at_least(clause: str, parameter: str, note: str = "", value=None) -> Condition:
    return Condition(
        f"{clause}.service",
        parameter,
        Wording(
            "credited service {value:g} years or more",
            "credited service below {value:g} years",
            "credited service {service:.2f} >= {value:g} years" + note,
        ),
        Wording(
            "servicio acreditado {value:g} años o más",
            "servicio acreditado menor de {value:g} años",
            "servicio acreditado {service:.2f} >= {value:g} años" + note,
        ),
        value,
    )


def _service_annuity(situation: Situation, law_on) -> np.ndarray:
    rate = law_on["service_annuity.rate"]
    return rate * situation.average_compensation * situation.credited_service


# Inciso (a): «El retiro será opcional ... a partir de la fecha en que cumplan sesenta y
# cinco (65) años de edad, hubieren completado un mínimo de diez (10) años de servicios
# acreditados y no hubieren solicitado ni recibido el reembolso de sus aportaciones
# acumuladas. El importe de la anualidad será el uno y medio por ciento (1.5%) de la
# retribución promedio, multiplicado por el número de años de servicios acreditados.»
A_REFUND = _refund("a")
A_AGE = _age_at_least("a", "service_annuity.age")
A_SERVICE = _service_at_least("a", "service_annuity.minimum_service")


def inciso_a(situation: Situation, law_on, readings: Readings) -> ClauseOutcome:
    """Service annuity at the age of (a) with its years of service: rate x AC x S.

    Inciso (a): «El retiro será opcional ... a partir de la fecha en que cumplan sesenta y
    cinco (65) años de edad, hubieren completado un mínimo de diez (10) años de servicios
    acreditados y no hubieren solicitado ni recibido el reembolso de sus aportaciones
    acumuladas.»
    """
    conditions = [
        (A_REFUND, ~situation.refunded),
        (A_AGE, situation.age_months >= law_on["service_annuity.age"] * 12),
        (A_SERVICE, situation.credited_service >= law_on["service_annuity.minimum_service"]),
    ]
    return _outcome("a", conditions, _service_annuity(situation, law_on), situation.separation_date)


# Inciso (b): «Los miembros del Cuerpo de la Policía y del Cuerpo de Bomberos ... tendrán la
# opción de acogerse a una anualidad por retiro a partir de la fecha en que cumplan cincuenta
# y cinco (55) años de edad y hubieren completado treinta (30) años de servicio acreditado.
# El importe de esta anualidad será igual al setenta y cinco por ciento (75%) de la
# retribución promedio. ... al completar treinta (30) años de servicio acreditable sin haber
# cumplido los cincuenta y cinco (55) años, ... sesenta y cinco por ciento (65%) de la
# retribución promedio.»
B_GROUP = Condition(
    "b.group",
    None,
    Wording(
        "police or firefighter",
        "not police or firefighter",
        "police or firefighter (group: {group})",
    ),
    Wording(
        "Policía o Bomberos", "no es Policía ni Bomberos", "Policía o Bomberos (grupo: {group})"
    ),
)
B_REFUND = _refund("b")
B_SERVICE = _service_at_least("b", "high_risk.minimum_service")
B_VARIANTS = (
    Variant(  # 0: at or after the age
        "; age at separation {law[high_risk.age]} or older: {pct[high_risk.rate_at_age]} of "
        "average compensation",
        "; edad al separarse {law[high_risk.age]} o más: {pct[high_risk.rate_at_age]} de la "
        "retribución promedio",
        "{pct[high_risk.rate_at_age]} of average compensation (age at separation "
        "{law[high_risk.age]} or older)",
        "{pct[high_risk.rate_at_age]} de la retribución promedio (edad al separarse "
        "{law[high_risk.age]} o más)",
    ),
    Variant(  # 1: before the age
        "; age at separation below {law[high_risk.age]}: {pct[high_risk.rate_before_age]} of "
        "average compensation",
        "; edad al separarse menor de {law[high_risk.age]}: {pct[high_risk.rate_before_age]} "
        "de la retribución promedio",
        "{pct[high_risk.rate_before_age]} of average compensation (age at separation below "
        "{law[high_risk.age]})",
        "{pct[high_risk.rate_before_age]} de la retribución promedio (edad al separarse menor "
        "de {law[high_risk.age]})",
    ),
    Variant(  # 2: before the age, waiting for it (I-9)
        "; age at separation below {law[high_risk.age]}: {pct[high_risk.rate_at_age]} of "
        "average compensation from age {law[high_risk.age]} (I-9)",
        "; edad al separarse menor de {law[high_risk.age]}: {pct[high_risk.rate_at_age]} de "
        "la retribución promedio desde los {law[high_risk.age]} años (I-9)",
        "{pct[high_risk.rate_at_age]} of average compensation from the "
        "{nth[high_risk.age]} birthday (I-9; age at separation below {law[high_risk.age]})",
        "{pct[high_risk.rate_at_age]} de la retribución promedio desde que cumpla "
        "{law[high_risk.age]} años (I-9; edad al separarse menor de {law[high_risk.age]})",
    ),
)


# Switched I-3: a condition every member meets, said as such (not "no refund", which a
# member who had one does not meet).
B_REFUND_NO_BAR = Condition(
    "b.refund.no_bar",
    None,
    Wording(
        "a refund of contributions does not bar inciso (b) (I-3)",
        "a refund of contributions bars inciso (b)",
        "a refund does not bar inciso (b) (refund: {refund}; I-3)",
    ),
    Wording(
        "un reembolso de aportaciones no impide el inciso (b) (I-3)",
        "un reembolso de aportaciones impide el inciso (b)",
        "un reembolso no impide el inciso (b) (reembolso: {refund}; I-3)",
    ),
)


def high_risk_refund(situation: Situation, readings: Readings):
    """The refund condition of (b) and where it is met (I-3: the text is silent on refunds).

    By default a refund bars (b) as it bars (a), (c) and (d); switched, it does not, and the
    condition says so.
    """
    if readings.refund_bars_high_risk:
        return B_REFUND, ~situation.refunded
    return B_REFUND_NO_BAR, np.ones(len(situation.refunded), dtype=bool)


def high_risk_rate_and_start(situation: Situation, law_on, readings: Readings):
    """Rate, start date and variant of (b) by the age at separation (I-9).

    Inciso (b): «tendrán la opción de acogerse a una anualidad por retiro a partir de la
    fecha en que cumplan cincuenta y cinco (55) años de edad». By default the age at
    separation sets the rate and the annuity starts at separation; switched
    (``high_risk_waits_for_age``), a member who separates before the age takes the rate at
    the age from that birthday.
    """
    age = law_on["high_risk.age"]
    at_age = situation.age_months >= age * 12
    waits = ~at_age & readings.high_risk_waits_for_age
    rate = np.where(
        at_age | waits, law_on["high_risk.rate_at_age"], law_on["high_risk.rate_before_age"]
    )
    start = situation.separation_date
    if readings.high_risk_waits_for_age:
        start = np.where(waits, situation.birthday(age), start)
    variant = np.where(at_age, 0, np.where(waits, 2, 1)).astype(np.int64)
    return rate, start, variant


def inciso_b(situation: Situation, law_on, readings: Readings) -> ClauseOutcome:
    """High-risk annuity: the rate at the age of (b), or the lower rate before it.

    Inciso (b): «El importe de esta anualidad será igual al setenta y cinco por ciento (75%)
    de la retribución promedio. ... al completar treinta (30) años de servicio acreditable
    sin haber cumplido los cincuenta y cinco (55) años, ... sesenta y cinco por ciento (65%)
    de la retribución promedio.»
    """
    conditions = [
        (B_GROUP, situation.high_risk),
        high_risk_refund(situation, readings),
        (B_SERVICE, situation.credited_service >= law_on["high_risk.minimum_service"]),
    ]
    rate, start, variant = high_risk_rate_and_start(situation, law_on, readings)
    return _outcome("b", conditions, rate * situation.average_compensation, start, variant=variant)


# Inciso (c): «Los participantes ... cuya separación del servicio ocurriese al cumplir
# cincuenta y cinco (55) años de edad y hubieren completado un mínimo de veinticinco (25)
# años de servicio acreditado, tendrán derecho a recibir la anualidad por años de servicio
# que se dispone en el inciso (a) de esta sección, con una reducción actuarial que será
# calculada a base de las Guías Actuariales adoptadas por la Junta de Síndicos.»
C_REFUND = _refund("c")
C_AGE = _age_at_least("c", "early_retirement.age")
C_BEFORE_A = Condition(
    "c.age_of_a",
    "service_annuity.age",
    Wording(
        "age at separation below {value}",
        "age at separation {value} or older (inciso (a) applies, no reduction)",
        "age at separation {age} < {value}y0m (at {value} inciso (a) applies)",
    ),
    Wording(
        "edad al separarse menor de {value}",
        "edad al separarse {value} o más (aplica el inciso (a), sin reducción)",
        "edad al separarse {age} < {value}a0m (a los {value} aplica el inciso (a))",
    ),
)
C_SERVICE = _service_at_least("c", "early_retirement.minimum_service")


def inciso_c(situation: Situation, law_on, readings: Readings) -> ClauseOutcome:
    """Early retirement between the ages of (c) and (a): the (a) annuity, before reduction.

    Inciso (c): «... tendrán derecho a recibir la anualidad por años de servicio que se
    dispone en el inciso (a) de esta sección, con una reducción actuarial que será
    calculada a base de las Guías Actuariales adoptadas por la Junta de Síndicos.»

    The reduction is :func:`actuarial.law.reduction.reduction_factors` (at the age of (a)
    clause (a) applies instead). The refund bar comes with the annuity of (a) (I-3).
    """
    age = situation.age_months
    conditions = [
        (C_REFUND, ~situation.refunded),
        (C_AGE, age >= law_on["early_retirement.age"] * 12),
        (C_BEFORE_A, age < law_on["service_annuity.age"] * 12),
        (C_SERVICE, situation.credited_service >= law_on["early_retirement.minimum_service"]),
    ]
    return _outcome("c", conditions, _service_annuity(situation, law_on), situation.separation_date)


# Inciso (d): «Los participantes ... cuya separación del servicio ocurriese antes de cumplir
# los sesenta y cinco (65) años de servicio acreditado y que no hubieren solicitado ni
# recibido el reembolso de sus aportaciones acumuladas, tendrán derecho a recibir una
# anualidad por retiro diferida al cumplir sesenta y cinco (65) años. Dicha anualidad se
# calculará de acuerdo a la fórmula establecida en el inciso (a) de esta sección.»
D_REFUND = _refund("d")
D_BEFORE_AGE = Condition(
    "d.age",
    "deferred.age",
    Wording(
        "separated before age {value}",
        "separated at {value} or older",
        "age at separation {age} < {value}y0m (I-2)",
    ),
    Wording(
        "separado antes de los {value} años de edad",
        "separado a los {value} o más",
        "edad al separarse {age} < {value}a0m (I-2)",
    ),
)
D_BEFORE_SERVICE = Condition(
    "d.age.literal",
    "deferred.age",
    Wording(
        "separated before {value} years of credited service",
        "separated with {value} or more years of credited service",
        "credited service {service:.2f} < {value} years (literal I-2)",
    ),
    Wording(
        "separado antes de {value} años de servicio acreditado",
        "separado con {value} años o más de servicio acreditado",
        "servicio acreditado {service:.2f} < {value} años (I-2 literal)",
    ),
)


def deferred_service_required(law_values, readings: Readings):
    """Years of service (d) requires (I-5): those of (a) unless the reading sets a number.

    The text of (d) states no minimum; «Dicha anualidad se calculará de acuerdo a la
    fórmula establecida en el inciso (a)» is read as taking the years of (a) as well.
    """
    if readings.deferred_minimum_service is None:
        return law_values["service_annuity.minimum_service"]
    return readings.deferred_minimum_service


D_SERVICE = _service_at_least(
    "d", "service_annuity.minimum_service", " (I-5)", value=deferred_service_required
)


def deferred_separated_before(situation: Situation, law_on, readings: Readings):
    """The condition «antes de cumplir los sesenta y cinco (65) años de servicio
    acreditado» (I-2): read as age by default, literally as years of service if switched."""
    age = law_on["deferred.age"]
    if readings.deferred_reads_age:
        return D_BEFORE_AGE, situation.age_months < age * 12
    return D_BEFORE_SERVICE, situation.credited_service < age


def inciso_d(situation: Situation, law_on, readings: Readings) -> ClauseOutcome:
    """Deferred annuity from the birthday at the age of (d), for earlier separations.

    Inciso (d): «... tendrán derecho a recibir una anualidad por retiro diferida al cumplir
    sesenta y cinco (65) años. Dicha anualidad se calculará de acuerdo a la fórmula
    establecida en el inciso (a) de esta sección.»
    """
    before, passes = deferred_separated_before(situation, law_on, readings)
    conditions = [
        (D_REFUND, ~situation.refunded),
        (before, passes),
        (D_SERVICE, situation.credited_service >= deferred_service_required(law_on, readings)),
    ]
    start = np.maximum(situation.birthday(law_on["deferred.age"]), situation.separation_date)
    return _outcome("d", conditions, _service_annuity(situation, law_on), start)


CLAUSES: dict[str, Clause] = {}
"""The clauses evaluated, in report order (a, b, c, d): the one list the engine iterates."""


def register_clause(clause: Clause) -> None:
    """Add a clause to :data:`CLAUSES` (its id must be new)."""
    if clause.id in CLAUSES:
        raise ValueError(f"clause {clause.id!r} is already registered ({list(CLAUSES)})")
    CLAUSES[clause.id] = clause


def unregister_clause(clause_id: str) -> None:
    """Remove a clause from :data:`CLAUSES`."""
    del CLAUSES[clause_id]


register_clause(Clause("a", "Anualidad por años de servicios", inciso_a))
register_clause(Clause("b", "Anualidad por servicios de alto riesgo", inciso_b, B_VARIANTS))
register_clause(Clause("c", "Anualidad por retiro temprano", inciso_c, reduced=True))
register_clause(Clause("d", "Anualidad por retiro diferida", inciso_d))
