"""Explanations of one member's results, in English or Spanish.

Renders what the engine computed (the same arrays as the batch): each clause's
conditions with the member's values, the guide row or interpolation used for inciso (c),
the minimum, and the readings in force. Nothing is recomputed here.
"""

from __future__ import annotations

import numpy as np

from actuarial.dates import format_age
from actuarial.members import GROUPS
from actuarial.parameters import coverage_window
from actuarial.statute import CLAUSE_TITLES, CLAUSES

__all__ = ["LANGUAGES", "explain", "guide_lookup"]

LANGUAGES = ("en", "es")

WORDS = {
    "en": {
        "member": "Member {id}: born {birth}, entered {entry}, separated {sep} at age {age}; "
        "credited service {service:.2f} years; average compensation ${comp:,.2f}; "
        "group {group}; refund {refund}.",
        "yes": "yes",
        "no": "no",
        "not_covered": "Not covered by Chapter 2 (I-1): first entry {entry} is outside "
        "{bracket}{window_start}, {window_end}). Nothing is computed.",
        "eligible": "ELIGIBLE",
        "not_eligible": "not eligible",
        "amount": "annual ${annual:,.2f}; monthly ${monthly:,.2f} from {start}",
        "topup": "; the $500 minimum adds ${topup:,.2f} a month (I-4)",
        "minimum_none": "; no minimum applies (I-4: before 2013-07-01, or outside its scope)",
        "guide_exact": "reduction factor {factor:.6f}: guide '{guide}' row {age}",
        "guide_interp": "reduction factor {factor:.6f}: guide '{guide}', linear by month "
        "between {lo} ({flo:.6f}) and {hi} ({fhi:.6f})",
        "readings": "Readings used:",
        "no_refund": "no refund of contributions (refund: {refund})",
        "age_65": "age at separation {age} >= 65y0m",
        "service_10": "credited service {service:.2f} >= 10 years",
        "high_risk_group": "police or firefighter (group: {group})",
        "service_30": "credited service {service:.2f} >= 30 years",
        "age_55": "age at separation {age} >= 55y0m",
        "age_below_65": "age at separation {age} < 65y0m (at 65 inciso (a) applies)",
        "service_25": "credited service {service:.2f} >= 25 years",
        "separated_before_65": "separated at {age}, before 65y0m (I-2)",
        "separated_before_65_literal": "credited service {service:.2f} < 65 years (literal I-2)",
        "deferred_service": "credited service {service:.2f} >= {minimum:g} years (I-5)",
        "rate_75": "75% of average compensation (age at separation 55 or older)",
        "rate_65": "65% of average compensation (age at separation below 55)",
    },
    "es": {
        "member": "Participante {id}: nació {birth}, ingresó {entry}, se separó {sep} a la "
        "edad de {age}; servicio acreditado {service:.2f} años; retribución promedio "
        "${comp:,.2f}; grupo {group}; reembolso {refund}.",
        "yes": "sí",
        "no": "no",
        "not_covered": "No cubierto por el Capítulo 2 (I-1): el ingreso {entry} está fuera de "
        "{bracket}{window_start}, {window_end}). No se calcula nada.",
        "eligible": "ELEGIBLE",
        "not_eligible": "no elegible",
        "amount": "anual ${annual:,.2f}; mensual ${monthly:,.2f} desde {start}",
        "topup": "; la pensión mínima de $500 añade ${topup:,.2f} al mes (I-4)",
        "minimum_none": "; no aplica pensión mínima (I-4: antes del 2013-07-01 o fuera de "
        "su alcance)",
        "guide_exact": "factor de reducción {factor:.6f}: guía '{guide}', fila {age}",
        "guide_interp": "factor de reducción {factor:.6f}: guía '{guide}', lineal por mes "
        "entre {lo} ({flo:.6f}) y {hi} ({fhi:.6f})",
        "readings": "Interpretaciones usadas:",
        "no_refund": "sin reembolso de aportaciones (reembolso: {refund})",
        "age_65": "edad al separarse {age} >= 65a0m",
        "service_10": "servicio acreditado {service:.2f} >= 10 años",
        "high_risk_group": "Policía o Bomberos (grupo: {group})",
        "service_30": "servicio acreditado {service:.2f} >= 30 años",
        "age_55": "edad al separarse {age} >= 55a0m",
        "age_below_65": "edad al separarse {age} < 65a0m (a los 65 aplica el inciso (a))",
        "service_25": "servicio acreditado {service:.2f} >= 25 años",
        "separated_before_65": "separado a los {age}, antes de 65a0m (I-2)",
        "separated_before_65_literal": "servicio acreditado {service:.2f} < 65 años (I-2 literal)",
        "deferred_service": "servicio acreditado {service:.2f} >= {minimum:g} años (I-5)",
        "rate_75": "75% de la retribución promedio (edad al separarse 55 o más)",
        "rate_65": "65% de la retribución promedio (edad al separarse menor de 55)",
    },
}


def guide_lookup(guide, age_months: int) -> tuple[int, float, int, float]:
    """The guide rows a factor was read from: (lower age, factor, upper age, factor)."""
    index = int(np.searchsorted(guide.age_months, age_months, side="right")) - 1
    index = max(0, min(index, len(guide.age_months) - 1))
    upper = min(index + 1, len(guide.age_months) - 1)
    if guide.age_months[index] == age_months:
        upper = index
    return (
        int(guide.age_months[index]),
        float(guide.factors[index]),
        int(guide.age_months[upper]),
        float(guide.factors[upper]),
    )


def explain(results, position: int, lang: str = "en") -> list[str]:
    """Lines explaining every clause of member ``position`` of ``results``."""
    if lang not in LANGUAGES:
        raise ValueError(f"'lang' must be in {list(LANGUAGES)} (got {lang!r})")
    words = WORDS[lang]
    members = results.members

    def age_text(months):
        text = format_age(months)
        return text.replace("y", "a") if lang == "es" else text

    age = age_text(results.age_months[position])
    values = {
        "id": members.member_id.iloc[position],
        "birth": members.birth_date[position],
        "entry": members.entry_date[position],
        "sep": members.separation_date[position],
        "age": age,
        "service": float(members.credited_service[position]),
        "comp": float(members.average_compensation[position]),
        "group": GROUPS[members.group[position]],
        "refund": words["yes"] if members.refunded[position] else words["no"],
        "minimum": results.readings.deferred_minimum_service,
    }
    lines = [words["member"].format(**values)]
    if not results.covered[position]:
        window = coverage_window()
        lines.append(
            words["not_covered"].format(
                bracket="[" if results.readings.april_first_is_covered else "(",
                window_start=window.first_entry_on_or_after,
                window_end=window.first_entry_before,
                **values,
            )
        )
    else:
        for column, clause in enumerate(CLAUSES):
            lines.extend(_clause_lines(results, position, column, clause, words, values, age_text))
    lines.append(words["readings"])
    lines.extend(f"  {line}" for line in results.readings.describe(lang))
    return lines


def _clause_lines(results, position, column, clause, words, values, age_text) -> list[str]:
    eligible = bool(results.eligible[position, column])
    status = words["eligible"] if eligible else words["not_eligible"]
    lines = [f"inciso ({clause}) {CLAUSE_TITLES[clause]}: {status}"]
    outcome = results.outcomes[column]
    for name, passes in outcome.conditions:
        key = name
        if name == "separated_before_65" and not results.readings.deferred_reads_age:
            key = "separated_before_65_literal"
        mark = "✓" if passes[position] else "✗"
        lines.append(f"  {mark} {words[key].format(**values)}")
    if not eligible:
        return lines
    if outcome.variant is not None:
        lines.append("  " + words["rate_75" if outcome.variant[position] == 0 else "rate_65"])
    guide_index = results.guide_index[position, column]
    if clause == "c" and guide_index >= 0:
        guide = results.guides.guides[guide_index]
        age_months = int(results.age_months[position])
        low, f_low, high, f_high = guide_lookup(guide, age_months)
        factor = float(results.reduction_factor[position, column])
        if low == high:
            lines.append(
                "  " + words["guide_exact"].format(factor=factor, guide=guide.id, age=age_text(low))
            )
        else:
            lines.append(
                "  "
                + words["guide_interp"].format(
                    factor=factor,
                    guide=guide.id,
                    lo=age_text(low),
                    flo=f_low,
                    hi=age_text(high),
                    fhi=f_high,
                )
            )
    error = results.error[position, column]
    if error:
        lines.append(f"  ! {error}")
        return lines
    start = results.start_date[position, column]
    amount = words["amount"].format(
        annual=results.annual_amount[position, column],
        monthly=results.monthly_amount[position, column],
        start=start,
    )
    topup = results.minimum_topup[position, column]
    if results.minimum_monthly[position, column] > 0:
        amount += words["topup"].format(topup=topup) if topup > 0 else ""
    else:
        amount += words["minimum_none"]
    lines.append("  " + amount)
    return lines
