"""Life annuities and insurances on a :class:`~actuarial.mortality.LifeTable`, vectorized.

Every function broadcasts ``age`` (exact ages, fractional allowed: 57 + 5/12) against
``interest`` (annual effective rates), so a grid is one call:
``annuity_due(table, ages[:, None], rates[None, :], m=12)``.

Payments of 1/m are made m times a year in advance. ``method`` says how:

- ``None`` (the default): the exact sum under the table's own fractional-age assumption
  (:attr:`LifeTable.fractional`), as survival, pure endowments and insurances take it, so
  that n|a = nE_x a_{x+n} and A = 1 - d a hold on every table; on a generational basis, that
  of each cohort's table;
- ``"udd"``: the exact sum of the m-thly payments, sum_k v^(k/m) (k/m)_p_x, with survival
  linear within each year of age (uniform distribution of deaths);
- ``"constant-force"``: the same exact sum with a constant force within each year of age;
- ``"woolhouse2"``: a_x - (m - 1)/(2m);
- ``"woolhouse3"``: a_x - (m - 1)/(2m) - (m^2 - 1)/(12 m^2) (delta + mu_x).

The Woolhouse formulas start from the annual annuity under the table's own fractional-age
assumption, and take mu_x from :meth:`LifeTable.force_of_mortality` (exact Makeham where the
table follows its law; otherwise estimated from q; in a year whose q is 1, the year before
it and the table's last year, the table's own force under its fractional-age assumption).
Under a constant force a q of 1 is an infinite force: ``"woolhouse3"`` is refused at an age
in such a year, naming it.

A whole-life value needs mortality to the end of life: a table that does not run out (last
q below 1) is refused, naming it, its last age and q (see :meth:`LifeTable.close_at`).

Generational mortality: ``table`` may also be a :class:`~actuarial.generational.Mortality`;
``cohort`` (year of birth) then broadcasts with ``age`` and ``interest`` like them, each
distinct cohort valued on its own projected table, and ``sex`` ("F", "M" or None for the
basis's blend) picks the side of a sex-distinct basis.
"""

from __future__ import annotations

import datetime as dt
import math

import numpy as np

from actuarial.mortality import SEXES, LifeTable, is_float_number, real_array, sex_rule
from actuarial.shown_text import as_given, kind_and_value, quoted, show_rate

__all__ = [
    "EXACT_METHODS",
    "MAX_PAYMENTS_PER_YEAR",
    "METHODS",
    "AnnuityError",
    "annuities_due",
    "annuity_due",
    "by_cohort",
    "check_interest",
    "deferred_annuity_due",
    "method_for",
    "pure_endowment",
    "show_rate",
    "temporary_annuity_due",
    "whole_life_insurance",
]

METHODS = ("udd", "constant-force", "woolhouse2", "woolhouse3")
# Daily at most: the exact methods sum over every payment of a year, for every age.
MAX_PAYMENTS_PER_YEAR = 365
EXACT_METHODS = ("udd", "constant-force")


class AnnuityError(ValueError):
    """An argument of an annuity function breaks a rule (field, rule and value)."""


# --------------------------------------------------------------------- argument checks
def checked_bounds(bounds, error: type[Exception] = AnnuityError) -> tuple[float, float]:
    """The rates an interest is searched between: two finite numbers above -100%, the lower
    first; anything else is ``error`` naming ``bounds`` (not a rate tried inside them)."""
    try:
        low, high = bounds
    except (TypeError, ValueError):
        low = high = None
    rates = (low, high)
    if not (
        all(is_float_number(rate) and math.isfinite(rate) and rate > -1 for rate in rates)
        and low < high
    ):
        raise error(
            "'bounds' must be two interest rates (low, high), low < high, each finite and "
            f"above -100% (got {as_given(bounds)})"
        )
    return float(low), float(high)


def check_interest(interest) -> np.ndarray:
    """The annual effective rates as floats; each must be finite and > -1 (v = 1/(1+i))."""
    rates = real_array("interest", interest, AnnuityError)
    bad = ~(np.isfinite(rates) & (rates > -1))
    if bad.any():
        shown = show_rate(rates[bad].flat[0])
        raise AnnuityError(f"'interest' must be a finite rate > -1 (got {shown})")
    return rates


def check_payments_per_year(m) -> int:
    if (
        isinstance(m, bool)
        or not isinstance(m, int | np.integer)
        or not (1 <= m <= MAX_PAYMENTS_PER_YEAR)
    ):
        raise AnnuityError(
            f"'m' must be a whole number of payments a year from 1 to {MAX_PAYMENTS_PER_YEAR} "
            f"(got {as_given(m)})"
        )
    return int(m)


def check_method(method) -> str | None:
    """``method`` checked: one of :data:`METHODS`, or None for the table's own assumption."""
    if method is not None and method not in METHODS:
        raise AnnuityError(f"'method' must be in {[None, *METHODS]} (got {as_given(method)})")
    return method


def method_for(table: LifeTable, method: str | None) -> str:
    """The method used on ``table``: ``method``, or for None the exact sum under the table's
    own fractional-age assumption (``"udd"`` or ``"constant-force"``)."""
    return table.fractional if method is None else method


def fractional_for(table: LifeTable, method: str | None) -> str:
    """The fractional-age assumption of ``method`` on ``table``: an exact method's own; the
    table's for None and for Woolhouse's formulas (whose annual annuity is an exact sum)."""
    used = method_for(table, method)
    return used if used in EXACT_METHODS else table.fractional


def _duration(n) -> np.ndarray:
    years = real_array("n", n, AnnuityError)
    bad = ~(np.isfinite(years) & (years >= 0))
    if bad.any():
        raise AnnuityError(f"'n' must be >= 0 (got {years[bad].flat[0]:g})")
    return years


# --------------------------------------------------------------------- exact payment sums
def _tail_sums(table: LifeTable, log_v: np.ndarray, first: int = 0) -> np.ndarray:
    """T[u, n - first] = sum_k v_u^k l_{n+k} (radix 1) at integer ages n, from the table's
    ``first`` age (0: min_age) to omega + 1: only the ages a caller's sums start from.

    As v^-n sum_{j >= n} v^j l_j (a sum from the end of each row, no Python loop) wherever
    no power of v on the table's ages comes near the largest float or 0, and no term v^j l_j
    where someone is alive falls below the smallest normal float; else summed from
    the end age by age, T_n = l_n + v T_{n+1}, where a sum passes the largest float only
    when its own terms do (a power of v computed for every age would reach inf at an age
    where no one is alive, and inf x 0 = NaN, for a rate near -1 on a long table).
    """
    alive = np.concatenate([table._l_unit, [0.0]])  # l_n, then 0 beyond omega
    ages = np.arange(first, len(alive))
    if len(log_v) == 0 or np.abs(log_v).max() * len(alive) < _SAFE_EXPONENT:
        exponents = log_v[:, None] * ages
        discounted = np.exp(exponents) * alive[first:]
        # Unless a term where someone is alive fell below the smallest normal float (few
        # alive, a high rate: l_190 = 6e-142 at 1700% lost every digit, and an annuity-due
        # whose first payment is certain came out 0): then age by age, below. l never
        # rises, so the ages where someone is alive are the first ones.
        living = np.count_nonzero(alive[first:])
        if np.min(discounted[:, :living], initial=np.inf) >= _SMALLEST_NORMAL:
            from_the_end = np.cumsum(discounted[:, ::-1], axis=1)[:, ::-1]
            return from_the_end * np.exp(np.negative(exponents, out=exponents))
    v = np.exp(log_v)
    tails = np.zeros((len(log_v), len(ages)))
    running = np.zeros(len(log_v))
    with np.errstate(over="ignore"):  # a sum past the largest float is inf: refused after
        for n in range(len(alive) - 1, first - 1, -1):
            running = alive[n] + v * running
            tails[:, n - first] = running
    return tails


# |log v| x ages below this: every power of v on a table's ages is within about 1e+-260 of
# 1, far from the largest float and from 0, so T_n can be summed as v^-n sum_j v^j l_j.
_SAFE_EXPONENT = 600.0
_SMALLEST_NORMAL = np.finfo(float).tiny


def _udd_sums(table: LifeTable, starts, rate_index, tails, first: int) -> np.ndarray:
    """sum_k v^k l(y + k) (radix 1) for start ages y, survival linear within each year
    (``tails`` from the table's ``first`` age, :func:`_tail_sums`).

    l(n + f + k) = (1 - f) l_{n+k} + f l_{n+k+1}, so the sum is the same blend of the tail
    sums at n and n + 1. ``starts`` and ``rate_index`` broadcast: ages are worked out on
    ``starts`` alone, and only the two lookups take the full shape.
    """
    n, f = table._year_and_fraction(starts)
    index = rate_index * tails.shape[1] + (n - first)
    flat = tails.ravel()
    at, after = flat[index], flat[1:][index]  # T[u, n] and T[u, n + 1]
    with np.errstate(invalid="ignore"):  # 0 x inf where a sum passed the largest float
        # (1 - f) T_n + f T_{n+1}, in the two arrays looked up: a grid's arrays are large,
        # and each new one costs more in page faults than in arithmetic.
        at *= 1.0 - f
        after *= f
        at += after
    return at


def _constant_force_sums(table: LifeTable, starts, rate_index, log_v) -> np.ndarray:
    """The same sums with a constant force within each year: no blend, a sum over years."""
    l_integer = table._l_integer(1.0)
    last = len(l_integer) - 1
    n, f = table._year_and_fraction(starts)
    p = np.append(1.0 - table._closed_qx(), 0.0)
    v = np.exp(log_v)[rate_index]
    total = np.zeros(np.broadcast_shapes(np.shape(starts), np.shape(rate_index)))
    for k in range(last + 1):
        index = np.minimum(n + k, last)
        alive = l_integer[index] * np.power(p[index], f)
        with np.errstate(over="ignore", invalid="ignore"):  # no term where no one is alive
            total += np.where(alive > 0, v**k * alive, 0.0)
    return total


def _check_finite(value, table: LifeTable, ages, interest) -> None:
    """A value that passes the largest float (a rate near -1 discounts by a huge v over a
    long table) is refused, naming the rate, the age and the table.

    Only a negative rate (v above 1) takes a value there: at a rate of 0 or more each
    payment is worth at most its amount. Any other value that is not a finite number is
    refused as such, naming the table, the age and the rate, never blaming the rate.
    """
    finite = np.isfinite(value)
    if finite.all():
        return
    shape = np.shape(value)
    first = np.unravel_index(int(np.argmin(finite)), shape) if shape else ()
    age = np.broadcast_to(np.asarray(ages, float), shape)[first]
    rate = np.broadcast_to(np.asarray(interest, float), shape)[first]
    if rate < 0:
        raise AnnuityError(
            f"'interest' {show_rate(rate)} is too close to -1 for table '{table.name}': the "
            f"value at age {age:g} passes the largest float ({np.finfo(float).max:.3g})"
        )
    got = np.broadcast_to(value, shape)[first]
    raise AnnuityError(
        f"table '{table.name}': the value at age {age:g} and 'interest' {show_rate(rate)} "
        f"must be a finite number (got {got})"
    )


def _force_where_alive(table: LifeTable, ages, alive) -> np.ndarray:
    """mu at ``ages`` where someone is alive (``alive`` > 0; elsewhere 0: no payment is
    valued there), for Woolhouse's three-term formula; refused where it is infinite (a q of
    1 under a constant force), which the formula cannot take."""
    living = alive > 0
    force = np.zeros(np.shape(ages))
    force[living] = table.force_of_mortality(np.asarray(ages, float)[living])
    if not np.isfinite(force).all():
        age = np.asarray(ages, float)[living][~np.isfinite(force[living])][0]
        year = int(np.floor(age))
        raise AnnuityError(
            f"'method' woolhouse3 needs a finite force of mortality (got inf at age {age:g}: "
            f"table '{table.name}' has q = 1 at {year} under a constant force); use an exact "
            f"method {list(EXACT_METHODS)}"
        )
    return force


def _whole_life(table: LifeTable, ages, interest, m: int, method: str | None) -> np.ndarray:
    """m-thly whole-life annuity-due at checked ages >= min_age; 0 at and beyond omega."""
    return checked_whole_lives(table, (ages,), interest, m, method)[0]


def checked_whole_lives(table: LifeTable, age_arrays, interest, m: int, method: str | None) -> list:
    """:func:`_whole_life` at each array of ages in ``age_arrays``, on the same rates
    (``method`` None: the table's own fractional-age assumption, :func:`method_for`), the
    ages, rates, ``m`` and ``method`` checked already (:func:`annuities_due` checks them).

    Each array broadcasts with ``interest``. The work per rate (tail sums, discounts) is
    done once per distinct rate, for all the arrays; the work per age on each array as
    given; only the table lookups take the full broadcast shape.
    """
    table.require_runs_out()
    method = method_for(table, method)
    interest = np.asarray(interest, float)
    rates = interest.ravel()
    if (rates[1:] > rates[:-1]).all():  # distinct and sorted already (a grid, one rate)
        rate_index = np.arange(len(rates)).reshape(interest.shape)
    else:
        rates, rate_index = np.unique(interest, return_inverse=True)
        rate_index = rate_index.reshape(interest.shape)
    log_v = -np.log1p(rates)
    fractional = fractional_for(table, method)
    payments = m if method in EXACT_METHODS else 1
    offsets = np.arange(payments) / payments
    discount = np.exp(log_v[:, None] * offsets)[rate_index]
    age_arrays = [np.asarray(ages, float) for ages in age_arrays]
    if fractional == "udd":  # the tail sums from the youngest age's year
        youngest = min((ages.min() for ages in age_arrays if ages.size), default=table.min_age)
        first = int(min(youngest, table.max_age)) - table.min_age  # beyond: l is 0 (k clipped)
        tails = _tail_sums(table, log_v, first)
    values = []
    for ages in age_arrays:
        starts = ages[..., None] + offsets
        if fractional == "udd":
            sums = _udd_sums(table, starts, rate_index[..., None], tails, first)
        else:
            sums = _constant_force_sums(table, starts, rate_index[..., None], log_v)
        alive = table._l(ages, 1.0, fractional)
        with np.errstate(divide="ignore", invalid="ignore"):
            total = np.einsum("...j,...j->...", discount, sums)
            value = np.where(alive > 0, total / (payments * alive), 0.0)
        if method == "woolhouse2" or method == "woolhouse3":
            value = value - np.where(alive > 0, (m - 1) / (2 * m), 0.0)
        if method == "woolhouse3":
            force = np.log1p(interest) + _force_where_alive(table, ages, alive)
            value = value - np.where(alive > 0, (m * m - 1) / (12 * m * m) * force, 0.0)
        _check_finite(value, table, ages, interest)
        values.append(value[()])  # a numpy scalar for scalar arguments
    return values


# --------------------------------------------------------------------- cohorts
def by_cohort(table, cohort, sex, compute, *arrays):
    """``compute(life_table, *arrays)`` on the table of each member's cohort.

    ``table`` is a :class:`LifeTable` (every cohort alike) or a basis's mortality with a
    ``table(sex, cohort)`` method; ``cohort`` broadcasts with ``arrays`` and each distinct
    cohort is computed in one vectorized call on its rows.
    """
    if isinstance(table, LifeTable):  # one table for every cohort and sex: checked, broadcast
        if sex not in (None, *SEXES):
            raise AnnuityError(sex_rule(sex))
        values = compute(table, *arrays)
        if cohort is None:
            return values
        shape = np.broadcast_shapes(np.shape(values), _cohorts(cohort).shape)
        return np.broadcast_to(values, shape).copy()[()]
    if not callable(getattr(table, "table", None)):
        raise AnnuityError(
            "'table' must be a LifeTable or a basis's Mortality, e.g. "
            f"actuarial.mortality.sult() (got {kind_and_value(table)})"
        )
    if cohort is None or not table.generational:
        return compute(table.table(sex, None), *arrays)
    cohorts = _cohorts(cohort)
    cohorts, *arrays = np.broadcast_arrays(cohorts, *map(np.asarray, arrays))  # int64 already
    values = np.empty(cohorts.shape)
    for year in np.unique(cohorts):
        rows = cohorts == year
        values[rows] = compute(table.table(sex, int(year)), *(a[rows] for a in arrays))
    return values[()]


def _cohorts(cohort) -> np.ndarray:
    """Years of birth as whole numbers (an int64 array), each a year a date may have."""
    given = np.asarray(cohort)
    # Numbers only: not text, not True; a whole number too large for int64 is an object.
    years = given.astype(float) if given.dtype.kind in "iuf" else np.full(given.shape, np.nan)
    bad = ~((years >= dt.MINYEAR) & (years <= dt.MAXYEAR) & (years == np.round(years)))
    if bad.any():
        shown = np.asarray(cohort, dtype=object).flat[int(np.argmax(bad.ravel()))]
        raise AnnuityError(
            f"'cohort' must be whole years of birth from {dt.MINYEAR} to {dt.MAXYEAR} "
            f"(got {quoted(shown)})"
        )
    return years.astype(np.int64)


# --------------------------------------------------------------------- public functions
def pure_endowment(table, age, n, interest, fractional: str | None = None, cohort=None, sex=None):
    """n_E_x = v^n n_p_x: value at x of 1 paid at x + n if alive (n may be fractional)."""

    def compute(life: LifeTable, age, n, interest):
        ages = life.check_ages(age, upper="alive")
        years, rates = _duration(n), check_interest(interest)
        return checked_pure_endowment(life, ages, years, rates, fractional)

    return by_cohort(table, cohort, sex, compute, age, n, interest)


def checked_pure_endowment(life: LifeTable, ages, years, rates, fractional: str | None):
    """:func:`pure_endowment` on one table, its ages, durations and rates checked already
    (for a caller that checks them once for several values: the early-retirement factor)."""
    survival = life.survival(ages, years, fractional)
    with np.errstate(over="ignore", invalid="ignore"):  # nothing paid where no one is alive
        value = np.where(survival > 0, np.power(1.0 + rates, -years) * survival, 0.0)
    _check_finite(value, life, ages, rates)
    return value[()]


def annuity_due(table, age, interest, m=1, method: str | None = None, cohort=None, sex=None):
    """Whole-life annuity-due a^(m)_x: 1 a year paid in m instalments of 1/m in advance."""
    m, method = check_payments_per_year(m), check_method(method)

    def compute(life: LifeTable, age, interest):
        ages = life.check_ages(age, upper="alive")
        return _whole_life(life, ages, check_interest(interest), m, method)

    return by_cohort(table, cohort, sex, compute, age, interest)


def annuities_due(
    table, ages, interest, m=1, method: str | None = None, cohort=None, sex=None
) -> list:
    """:func:`annuity_due` at each array of ages in the sequence ``ages``, on the same rates.

    The work per interest rate is done once for all of them: for the early-retirement
    factor, a^(m)_x and a^(m)_NRA in one call.
    """
    m, method = check_payments_per_year(m), check_method(method)
    if not isinstance(table, LifeTable):
        return [annuity_due(table, each, interest, m, method, cohort, sex) for each in ages]
    ages = [table.check_ages(each, upper="alive") for each in ages]
    return checked_whole_lives(table, ages, check_interest(interest), m, method)


def deferred_annuity_due(
    table, age, n, interest, m=1, method: str | None = None, cohort=None, sex=None
):
    """n|a^(m)_x = n_E_x * a^(m)_{x+n}: the m-thly annuity-due starting at age x + n."""
    m, method = check_payments_per_year(m), check_method(method)

    def compute(life: LifeTable, age, n, interest):
        ages, years = life.check_ages(age, upper="alive"), _duration(n)
        rates = check_interest(interest)
        fractional = fractional_for(life, method)
        endowment = checked_pure_endowment(life, ages, years, rates, fractional)
        return endowment * _whole_life(life, ages + years, rates, m, method)

    return by_cohort(table, cohort, sex, compute, age, n, interest)


def temporary_annuity_due(
    table, age, n, interest, m=1, method: str | None = None, cohort=None, sex=None
):
    """a^(m)_{x:n} = a^(m)_x - n|a^(m)_x: payments for at most n years."""
    whole = annuity_due(table, age, interest, m, method, cohort, sex)
    return whole - deferred_annuity_due(table, age, n, interest, m, method, cohort, sex)


def whole_life_insurance(table: LifeTable, age, interest, moment: int = 1):
    """A_x = 1 - d a_x: 1 paid at the end of the year of death (curtate, annual).

    ``moment=2`` gives 2A_x, the same at interest (1 + i)^2 - 1.
    """
    if isinstance(moment, bool) or not isinstance(moment, int | np.integer) or moment < 1:
        raise AnnuityError(f"'moment' must be a positive integer (got {as_given(moment)})")
    given = check_interest(interest)
    with np.errstate(over="ignore"):
        rates = np.power(1.0 + given, moment) - 1.0
    if not np.isfinite(rates).all():
        shown = show_rate(np.broadcast_to(given, rates.shape)[~np.isfinite(rates)].flat[0])
        raise AnnuityError(
            f"'interest' {shown} at 'moment' {moment}: (1 + i)^{moment} - 1 passes the largest "
            f"float ({np.finfo(float).max:.3g})"
        )
    ages = table.check_ages(age, upper="alive")
    annuity = _whole_life(table, ages, rates, 1, table.fractional)
    return 1.0 - rates / (1.0 + rates) * annuity
