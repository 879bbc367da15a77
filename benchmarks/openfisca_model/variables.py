"""The variables: a member's inputs, then one variable per quantity of the four clauses.

Inputs do not change over time (``ETERNITY``). Every computed quantity is defined by month:
the month of payment, whose first day is the date from which annuities are counted (the
``as_of`` of ``actuarial``). Statute numbers are read from the dated parameters at that
month. Two things are read on each member's own date instead: the monthly minimum, on the
payment date, and the reduction of inciso (c), on the separation date; OpenFisca reads
parameters at one instant per call, so those two look up the dated values member by member
(:func:`in_force_on`, :class:`inciso_c_reduction_factor`).

Amounts are stored in float64: OpenFisca's ``float`` is float32 by default, which cannot
hold a pension of thousands of dollars to the cent after a few operations.
"""

from __future__ import annotations

import numpy
from openfisca_core.model_api import ETERNITY, MONTH, Enum, Variable, date, max_, where

from .entities import Person

DAY = numpy.timedelta64(1, "D")


# ------------------------------------------------------------------- helpers
class Float64Variable(Variable):
    """A ``float`` variable stored as float64 (leaves still declare ``value_type = float``)."""

    def __init__(self, baseline_variable=None) -> None:
        super().__init__(baseline_variable)
        self.dtype = numpy.float64


def first_day(period) -> numpy.datetime64:
    """The first day of a period, as a numpy date."""
    return numpy.datetime64(str(period.start), "D")


def in_force_on(parameter, dates: numpy.ndarray) -> numpy.ndarray:
    """The value of a dated parameter in force on each member's own date.

    Unlike OpenFisca's reading at one instant, a date before the first value raises.
    """
    history = sorted((numpy.datetime64(v.instant_str, "D"), v.value) for v in parameter.values_list)
    starts = numpy.array([start for start, _ in history], dtype="datetime64[D]")
    values = numpy.array([value for _, value in history], dtype=numpy.float64)
    index = numpy.searchsorted(starts, dates, side="right") - 1
    if (index < 0).any():
        raise ValueError(
            f"{parameter.name}: no value in force on {dates[index < 0].min()} "
            f"(the first is from {starts[0]})"
        )
    return values[index]


def month_and_day(dates: numpy.ndarray) -> tuple[numpy.ndarray, numpy.ndarray]:
    """The month (``datetime64[M]``) and the day of the month (1-31) of each date."""
    months = dates.astype("datetime64[M]")
    return months, (dates - months.astype("datetime64[D]")).astype(numpy.int64) + 1


def days_in(months: numpy.ndarray) -> numpy.ndarray:
    """Number of days of each month (``datetime64[M]``)."""
    return ((months + 1).astype("datetime64[D]") - months.astype("datetime64[D]")).astype(
        numpy.int64
    )


def round_to_cents(amounts: numpy.ndarray) -> numpy.ndarray:
    """USD to the cent, half up (after clearing the binary noise below a millionth of a cent)."""
    return numpy.floor(numpy.round(amounts * 100.0, 6) + 0.5) / 100.0


def not_refunded(person, period) -> numpy.ndarray:
    """No refund of contributions requested or received (a condition of (a), (b), (c), (d))."""
    return ~person("refunded", period)


def monthly_paid(person, period, eligible, annual_amount, start_date) -> numpy.ndarray:
    """One twelfth of the annual amount, raised to the monthly minimum in force on the
    payment date (the start date, or the month paid if later), to the cent; 0 if not eligible.
    """
    payment_date = max_(start_date, first_day(period))
    minimum = numpy.zeros(len(eligible))
    schedule = person.simulation.tax_benefit_system.parameters.chapter_2.minimum_monthly_pension
    minimum[eligible] = in_force_on(schedule, payment_date[eligible])
    return where(eligible, round_to_cents(max_(annual_amount / 12.0, minimum)), 0.0)


# ------------------------------------------------------------------- inputs
class Group(Enum):
    general = "General employee"
    police = "Police"
    firefighter = "Firefighter"


class birth_date(Variable):
    value_type = date
    entity = Person
    definition_period = ETERNITY
    label = "Date of birth"


class entry_date(Variable):
    value_type = date
    entity = Person
    definition_period = ETERNITY
    label = "Date of first entry into the System"


class separation_date(Variable):
    value_type = date
    entity = Person
    definition_period = ETERNITY
    label = "Date of separation from service"


class credited_service(Float64Variable):
    value_type = float
    entity = Person
    definition_period = ETERNITY
    label = "Credited service, in years"


class average_compensation(Float64Variable):
    value_type = float
    entity = Person
    definition_period = ETERNITY
    label = "Average compensation, annual USD"


class group(Variable):
    value_type = Enum
    possible_values = Group
    default_value = Group.general
    entity = Person
    definition_period = ETERNITY
    label = "Employee group"


class refunded(Variable):
    value_type = bool
    entity = Person
    definition_period = ETERNITY
    label = "Refund of contributions requested or received"


# ------------------------------------------------------------------- common quantities
class covered(Variable):
    value_type = bool
    entity = Person
    definition_period = MONTH
    label = "Covered by Chapter 2: first entry in the coverage window"
    reference = "Ley 447-1951, art. 2-103; Ley 305-1999, art. 3-101"

    def formula(person, period, parameters):
        window = parameters(period).chapter_2.coverage
        entry = person("entry_date", period)
        return (entry >= numpy.datetime64(window.first_entry_on_or_after, "D")) & (
            entry < numpy.datetime64(window.first_entry_before, "D")
        )


class age_at_separation(Variable):
    value_type = int
    entity = Person
    definition_period = MONTH
    label = "Completed months of age on the separation date (anniversary rule)"
    documentation = (
        "A month of age is completed on the day of the month of birth, or on the last day "
        "of a month without that day: born on February 29, a year older on February 28."
    )

    def formula(person, period, parameters):
        birth_month, birth_day = month_and_day(person("birth_date", period))
        separation_month, separation_day = month_and_day(person("separation_date", period))
        anniversary = numpy.minimum(birth_day, days_in(separation_month))
        months = (separation_month - birth_month).astype(numpy.int64)
        return months - (separation_day < anniversary)


class high_risk(Variable):
    value_type = bool
    entity = Person
    definition_period = MONTH
    label = "Member of the Police or of the Fire Corps"

    def formula(person, period, parameters):
        member_group = person("group", period)
        return (member_group == Group.police) | (member_group == Group.firefighter)


class service_annuity(Float64Variable):
    value_type = float
    entity = Person
    definition_period = MONTH
    label = "Annuity for years of service, annual USD: rate x average compensation x service"
    reference = "Ley 447-1951, art. 2-103(a)"

    def formula(person, period, parameters):
        rate = parameters(period).chapter_2.inciso_a.benefit_rate
        return rate * person("average_compensation", period) * person("credited_service", period)


# ------------------------------------------------------------------- inciso (a)
class inciso_a_eligible(Variable):
    value_type = bool
    entity = Person
    definition_period = MONTH
    label = "Inciso (a): separated at 65 or older with 10 years, no refund"
    reference = "Ley 447-1951, art. 2-103(a)"

    def formula(person, period, parameters):
        law = parameters(period).chapter_2.inciso_a
        return (
            person("covered", period)
            * not_refunded(person, period)
            * (person("age_at_separation", period) >= 12 * law.age)
            * (person("credited_service", period) >= law.minimum_service)
        )


class inciso_a_monthly_amount(Float64Variable):
    value_type = float
    entity = Person
    definition_period = MONTH
    label = "Inciso (a): monthly annuity paid, USD"
    reference = "Ley 447-1951, art. 2-103(a), as amended by Ley 3-2013"

    def formula(person, period, parameters):
        return monthly_paid(
            person,
            period,
            person("inciso_a_eligible", period),
            person("service_annuity", period),
            person("separation_date", period),
        )


# ------------------------------------------------------------------- inciso (b)
class inciso_b_eligible(Variable):
    value_type = bool
    entity = Person
    definition_period = MONTH
    label = "Inciso (b): police or firefighter with 30 years, no refund"
    reference = "Ley 447-1951, art. 2-103(b)"

    def formula(person, period, parameters):
        law = parameters(period).chapter_2.inciso_b
        return (
            person("covered", period)
            * person("high_risk", period)
            * not_refunded(person, period)
            * (person("credited_service", period) >= law.minimum_service)
        )


class inciso_b_annual_amount(Float64Variable):
    value_type = float
    entity = Person
    definition_period = MONTH
    label = "Inciso (b): annual annuity, USD (75% of average compensation from 55, else 65%)"
    reference = "Ley 447-1951, art. 2-103(b)"

    def formula(person, period, parameters):
        law = parameters(period).chapter_2.inciso_b
        rate = where(
            person("age_at_separation", period) >= 12 * law.age,
            law.rate_from_age,
            law.rate_before_age,
        )
        return rate * person("average_compensation", period)


class inciso_b_monthly_amount(Float64Variable):
    value_type = float
    entity = Person
    definition_period = MONTH
    label = "Inciso (b): monthly annuity paid, USD"
    reference = "Ley 447-1951, art. 2-103(a) and (b), as amended by Ley 3-2013"

    def formula(person, period, parameters):
        return monthly_paid(
            person,
            period,
            person("inciso_b_eligible", period),
            person("inciso_b_annual_amount", period),
            person("separation_date", period),
        )


# ------------------------------------------------------------------- inciso (c)
class inciso_c_eligible(Variable):
    value_type = bool
    entity = Person
    definition_period = MONTH
    label = "Inciso (c): separated from 55 to 65 with 25 years, no refund"
    reference = "Ley 447-1951, art. 2-103(c)"

    def formula(person, period, parameters):
        law = parameters(period).chapter_2
        age = person("age_at_separation", period)
        return (
            person("covered", period)
            * not_refunded(person, period)
            * (age >= 12 * law.inciso_c.age)
            * (age < 12 * law.inciso_a.age)
            * (person("credited_service", period) >= law.inciso_c.minimum_service)
        )


class inciso_c_reduction_factor(Float64Variable):
    value_type = float
    entity = Person
    definition_period = MONTH
    label = "Inciso (c): reduction factor of the Actuarial Guide in force on the separation date"
    reference = "Ley 447-1951, art. 2-103(c)"
    documentation = "NaN where no guide is in force on the separation date."

    def formula(person, period, parameters):
        separation = person("separation_date", period)
        age = person("age_at_separation", period)
        scale = person.simulation.tax_benefit_system.parameters.chapter_2.inciso_c.reduction_factor
        starts = sorted(
            {
                value.instant_str
                for bracket in scale.brackets
                for history in (bracket.threshold, bracket.amount)
                for value in history.values_list
            }
        )
        factor = numpy.full(len(separation), numpy.nan)
        for position, start in enumerate(starts):
            chosen = separation >= numpy.datetime64(start, "D")
            if position + 1 < len(starts):
                chosen &= separation < numpy.datetime64(starts[position + 1], "D")
            guide = parameters(start).chapter_2.inciso_c.reduction_factor
            factor[chosen] = guide.calc(age[chosen])
        return factor


class inciso_c_monthly_amount(Float64Variable):
    value_type = float
    entity = Person
    definition_period = MONTH
    label = "Inciso (c): monthly annuity paid, USD (the annuity of (a), reduced)"
    reference = "Ley 447-1951, art. 2-103(a) and (c), as amended by Ley 3-2013"

    def formula(person, period, parameters):
        annual = person("service_annuity", period) * person("inciso_c_reduction_factor", period)
        return monthly_paid(
            person,
            period,
            person("inciso_c_eligible", period),
            annual,
            person("separation_date", period),
        )


# ------------------------------------------------------------------- inciso (d)
class inciso_d_eligible(Variable):
    value_type = bool
    entity = Person
    definition_period = MONTH
    label = "Inciso (d): separated before 65 with 10 years, no refund"
    reference = "Ley 447-1951, art. 2-103(d)"

    def formula(person, period, parameters):
        law = parameters(period).chapter_2.inciso_d
        return (
            person("covered", period)
            * not_refunded(person, period)
            * (person("age_at_separation", period) < 12 * law.age)
            * (person("credited_service", period) >= law.minimum_service)
        )


class inciso_d_start_date(Variable):
    value_type = date
    entity = Person
    definition_period = MONTH
    label = "Inciso (d): start of the deferred annuity, the 65th birthday (or separation if later)"
    reference = "Ley 447-1951, art. 2-103(d)"

    def formula(person, period, parameters):
        age = parameters(period).chapter_2.inciso_d.age
        birth_month, birth_day = month_and_day(person("birth_date", period))
        month = birth_month + numpy.timedelta64(12 * age, "M")
        day = numpy.minimum(birth_day, days_in(month))  # born on Feb 29: Feb 28 if common
        birthday = month.astype("datetime64[D]") + (day - 1) * DAY
        return max_(birthday, person("separation_date", period))


class inciso_d_monthly_amount(Float64Variable):
    value_type = float
    entity = Person
    definition_period = MONTH
    label = "Inciso (d): monthly deferred annuity paid, USD"
    reference = "Ley 447-1951, art. 2-103(a) and (d), as amended by Ley 3-2013"

    def formula(person, period, parameters):
        return monthly_paid(
            person,
            period,
            person("inciso_d_eligible", period),
            person("service_annuity", period),
            person("inciso_d_start_date", period),
        )


INPUTS = (
    birth_date,
    entry_date,
    separation_date,
    credited_service,
    average_compensation,
    group,
    refunded,
)
VARIABLES = (
    *INPUTS,
    covered,
    age_at_separation,
    high_risk,
    service_annuity,
    inciso_a_eligible,
    inciso_a_monthly_amount,
    inciso_b_eligible,
    inciso_b_annual_amount,
    inciso_b_monthly_amount,
    inciso_c_eligible,
    inciso_c_reduction_factor,
    inciso_c_monthly_amount,
    inciso_d_eligible,
    inciso_d_start_date,
    inciso_d_monthly_amount,
)
