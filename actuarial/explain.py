"""Explanations of one member's results, in English or Spanish.

Renders what the engine computed (the same arrays as the batch): each clause's conditions
from their declarations (:mod:`actuarial.law.clauses`) filled with the law in force and the
member's values, the guide rows used for a reduced clause, the payment date and the
minimum in force on it, the schedule, the law files and the readings in force. Nothing is
recomputed here.
"""

from __future__ import annotations

from actuarial.dates import format_age
from actuarial.law.conditions import Exact, Renderer, render
from actuarial.law.coverage import first_day_included
from actuarial.law.minimum import later_minimums
from actuarial.members import GROUPS
from actuarial.shown_text import as_given, show_factors

__all__ = ["LANGUAGES", "explain"]

LANGUAGES = ("en", "es")

# The explanation's own words; every condition and number of the law comes from the law.
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
        "amount": "annual ${annual:,.2f}; monthly ${monthly:,.2f} from {since}, paid on {payment}",
        "topup": "; the ${minimum:,.2f} minimum in force on {payment} adds ${topup:,.2f} a "
        "month (I-4)",
        "minimum_none": "; no minimum applies on {payment} (I-4)",
        "minimum_off": "; the ${minimum:,.2f} minimum in force on {payment} does not reach "
        "inciso ({clause}) under the reading of I-4 below",
        "schedule": "schedule: {schedule}",
        "guide_exact": "reduction factor {factor}: guide '{guide}' row {age}",
        "guide_interp": "reduction factor {factor}: guide '{guide}', {method} "
        "between {lo} ({flo}) and {hi} ({fhi})",
        "not_adopted": "guide '{guide}' is {status}, not adopted by the Junta de Síndicos: "
        "this reduction is an illustration, not the Board's",
        "payment": "Payment date: the later of {as_of} (as of) and each annuity's start date.",
        "law": "Law in force: {files}.",
        "readings": "Readings used:",
        "illustrative": "illustrative",
        "groups": dict(zip(GROUPS, GROUPS, strict=True)),  # the data's codes are English words
    },
    "es": {
        "member": "Participante {id}: nació el {birth}, ingresó el {entry}, se separó el {sep} "
        "a la edad de {age}; servicio acreditado {service:.2f} años; retribución promedio "
        "${comp:,.2f}; grupo {group}; reembolso {refund}.",
        "yes": "sí",
        "no": "no",
        "not_covered": "No cubierto por el Capítulo 2 (I-1): el ingreso del {entry} está fuera de "
        "{bracket}{window_start}, {window_end}). No se calcula nada.",
        "eligible": "ELEGIBLE",
        "not_eligible": "no elegible",
        "amount": "anual ${annual:,.2f}; mensual ${monthly:,.2f} desde el {since}, "
        "pagada el {payment}",
        "topup": "; la pensión mínima de ${minimum:,.2f} vigente el {payment} añade "
        "${topup:,.2f} al mes (I-4)",
        "minimum_none": "; no aplica pensión mínima el {payment} (I-4)",
        "minimum_off": "; la pensión mínima de ${minimum:,.2f} vigente el {payment} no alcanza "
        "el inciso ({clause}) según la lectura de I-4 indicada abajo",
        "schedule": "calendario: {schedule}",
        "guide_exact": "factor de reducción {factor}: guía '{guide}', fila {age}",
        "guide_interp": "factor de reducción {factor}: guía '{guide}', {method} "
        "entre {lo} ({flo}) y {hi} ({fhi})",
        "not_adopted": "la guía '{guide}' es {status}, no adoptada por la Junta de Síndicos: "
        "esta reducción es una ilustración, no la de la Junta",
        "payment": "Fecha de pago: la posterior entre el {as_of} (fecha de consulta) y el inicio "
        "de cada anualidad.",
        "law": "Ley vigente: {files}.",
        "readings": "Interpretaciones usadas:",
        "illustrative": "ilustrativa",
        "groups": {"general": "general", "police": "Policía", "firefighter": "Bomberos"},
    },
}


def explain(results, position: int, lang: str = "en", clauses=None) -> list[str]:
    """Lines explaining every clause of member ``position`` of ``results``.

    ``clauses``: the member's :func:`~actuarial.engine.member_clauses`, if already read.
    """
    if lang not in LANGUAGES:
        raise ValueError(f"'lang' must be in {list(LANGUAGES)} (got {as_given(lang)})")
    if clauses is None:
        from actuarial.engine import member_clauses

        clauses = member_clauses(results, position)
    words = WORDS[lang]
    members = results.members

    values = {
        "id": members.member_id[position].as_py(),
        "birth": members.birth_date[position],
        "entry": members.entry_date[position],
        "sep": members.separation_date[position],
        "age": _age_text(results.age_months[position], lang),
        "service": Exact(members.credited_service[position] + 0.0),  # -0.0 shown as 0.00
        "comp": Exact(members.average_compensation[position]),
        "group": words["groups"][GROUPS[members.group[position]]],
        "refund": words["yes"] if members.refunded[position] else words["no"],
    }
    law_values = results.law_values(position)
    lines = [words["member"].format(**values)]
    if not results.covered[position]:
        lines.append(
            words["not_covered"].format(
                bracket="[" if first_day_included(results.readings) else "(",
                window_start=law_values["coverage.first_entry_on_or_after"],
                window_end=law_values["coverage.first_entry_before"],
                **values,
            )
        )
    else:
        member_render = Renderer(law_values, **values)
        for column, row in enumerate(clauses):
            lines.extend(
                _clause_lines(results, position, column, lang, law_values, row, member_render)
            )
        lines.append(words["payment"].format(as_of=results.as_of))
    files = ", ".join(f"{f['file']} (sha256 {f['sha256']})" for f in results.law.provenance())
    lines.append(words["law"].format(files=files))
    lines.append(words["readings"])
    lines.extend(_readings_lines(results, lang, law_values))
    return lines


def _age_text(months, lang: str) -> str:
    """An age in months as the explanation writes it: 55y3m, in Spanish 55a3m."""
    text = format_age(months)
    return text.replace("y", "a") if lang == "es" else text


def _readings_lines(results, lang: str, law_values: dict) -> tuple[str, ...]:
    """The readings in force, described with a member's law values in force and the minimums
    of later payment dates (once per law, law values, payment date, readings and language:
    :meth:`Law.derived`)."""
    paid_on = results.law.payable_on(results.as_of)
    key = ("explain.readings", tuple(law_values.items()), paid_on, results.readings, lang)

    def compute():
        later = later_minimums(results.law, paid_on)
        return tuple(f"  {line}" for line in results.readings.describe(lang, law_values, later))

    return results.law.derived(key, compute)


def _clause_lines(results, position, column, lang, law_values, row, member_render) -> list[str]:
    words = WORDS[lang]
    clause = results.clauses[column]
    eligible = row["eligible"]
    status = words["eligible"] if eligible else words["not_eligible"]
    lines = [f"inciso ({clause.id}) {clause.title}: {status}"]
    outcome = results.outcomes[column]
    for condition, passes in outcome.conditions:
        mark = "✓" if passes[position] else "✗"
        value = condition.value_in(law_values, results.readings)
        lines.append(f"  {mark} {member_render(condition.wording(lang).detail, value)}")
    if not eligible:
        return lines
    if outcome.variant is not None:
        variant = clause.variants[outcome.variant[position]]
        lines.append("  " + render(variant.detail(lang), law_values))
    guide_index = results.guide_index[position, column]
    if clause.reduced and guide_index >= 0:
        lines.extend(_guide_lines(results, position, column, guide_index, words, lang))
    if row["error"]:
        lines.append(f"  ! {row['error']}")
        return lines
    payment = row["payment_date"]
    # The monthly amount paid, from the schedule's date it is in force from: the start date
    # unless the law changed the amount since (a pension below the minimum before 2013).
    entries = row["schedule_entries"]
    since = max((day for day, _ in entries if day <= payment), default=row["start_date"])
    amount = words["amount"].format(
        annual=row["annual_amount"],
        monthly=row["monthly_amount"],
        since=since,
        payment=payment,
    )
    topup = row["minimum_topup"]
    minimum = row["minimum_monthly"]
    if minimum > 0:
        if topup > 0:
            amount += words["topup"].format(minimum=minimum, payment=payment, topup=topup)
    elif (in_force := results.law.value_on("minimum_monthly_pension", payment)) > 0:
        # in force, but the reading keeps it off this clause (I-4)
        amount += words["minimum_off"].format(minimum=in_force, payment=payment, clause=clause.id)
    else:
        amount += words["minimum_none"].format(payment=payment)
    lines.append("  " + amount)
    if len(entries) > 1:
        lines.append("  " + words["schedule"].format(schedule=row["schedule"]))
    return lines


def _guide_lines(results, position, column, guide_index, words, lang) -> list[str]:
    guide = results.guides.guides[guide_index]
    age_months = int(results.age_months[position])
    factor = float(results.reduction_factor[position, column])
    lines = []
    if factor == factor:  # not NaN: the age is inside the guide's table
        low, high = guide.bracket(age_months)
        # The factor the amount was computed with, and the guide's rows as they hold them:
        # 6 decimals, or as many as each needs (0.5454176666666667 between two rows).
        used = show_factors([factor])(factor)
        if low == high:
            line = words["guide_exact"].format(
                factor=used, guide=guide.id, age=_age_text(guide.age_months[low], lang)
            )
        else:
            rows = show_factors([guide.factors[low], guide.factors[high]])
            line = words["guide_interp"].format(
                factor=used,
                guide=guide.id,
                method=guide.method.describe(lang),
                lo=_age_text(guide.age_months[low], lang),
                flo=rows(guide.factors[low]),
                hi=_age_text(guide.age_months[high], lang),
                fhi=rows(guide.factors[high]),
            )
        lines.append("  " + line)
    if guide.status != "adopted":
        lines.append(
            "  "
            + words["not_adopted"].format(
                guide=guide.id, status=words.get(guide.status, guide.status)
            )
        )
    return lines
