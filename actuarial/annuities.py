"""Life annuities and insurances on a :class:`~actuarial.mortality.LifeTable`, vectorized.

Every function broadcasts ``age`` (exact ages, fractional allowed: 57 + 5/12) against
``interest`` (annual effective rates), so a grid is one call:
``annuity_due(table, ages[:, None], rates[None, :], m=12)``.

Payments of 1/m are made m times a year in advance. ``method`` says how:

- ``"udd"``: the exact sum of the m-thly payments, sum_k v^(k/m) (k/m)_p_x, with survival
  linear within each year of age (uniform distribution of deaths);
- ``"constant-force"``: the same exact sum with a constant force within each year of age;
- ``"woolhouse2"``: a_x - (m - 1)/(2m);
- ``"woolhouse3"``: a_x - (m - 1)/(2m) - (m^2 - 1)/(12 m^2) (delta + mu_x).

The Woolhouse formulas start from the annual annuity under the table's own fractional-age
assumption, and take mu_x from :meth:`LifeTable.force_of_mortality` (exact Makeham when the
table carries its law; otherwise estimated from q, which makes ``"woolhouse3"`` -inf within
a year of an age where q = 1, the end of most tables).
"""

from __future__ import annotations

import numpy as np

from actuarial.mortality import LifeTable

__all__ = [
    "EXACT_METHODS",
    "METHODS",
    "AnnuityError",
    "annuities_due",
    "annuity_due",
    "deferred_annuity_due",
    "pure_endowment",
    "temporary_annuity_due",
    "whole_life_insurance",
]

METHODS = ("udd", "constant-force", "woolhouse2", "woolhouse3")
EXACT_METHODS = ("udd", "constant-force")


class AnnuityError(ValueError):
    """An argument of an annuity function breaks a rule (field, rule and value)."""


# --------------------------------------------------------------------- argument checks
def _interest(interest) -> np.ndarray:
    rates = np.asarray(interest, dtype=float)
    bad = ~(np.isfinite(rates) & (rates > -1))
    if bad.any():
        raise AnnuityError(f"'interest' must be > -1 (got {rates[bad].flat[0]:g})")
    return rates


def _payments_per_year(m) -> int:
    if isinstance(m, bool) or not isinstance(m, int | np.integer) or m < 1:
        raise AnnuityError(f"'m' must be a positive integer (got {m!r})")
    return int(m)


def _method(method) -> str:
    if method not in METHODS:
        raise AnnuityError(f"'method' must be in {list(METHODS)} (got {method!r})")
    return method


def _duration(n) -> np.ndarray:
    years = np.asarray(n, dtype=float)
    bad = ~(np.isfinite(years) & (years >= 0))
    if bad.any():
        raise AnnuityError(f"'n' must be >= 0 (got {years[bad].flat[0]:g})")
    return years


# --------------------------------------------------------------------- exact payment sums
def _tail_sums(table: LifeTable, log_v: np.ndarray) -> np.ndarray:
    """T[u, n] = sum_k v_u^k l_{n+k} (radix 1) at integer ages n, min_age..omega + 1."""
    ahead = table._l_ahead  # l_{n+k} by [n, k]
    return np.exp(log_v[:, None] * np.arange(ahead.shape[1])) @ ahead.T


def _udd_sums(table: LifeTable, starts, rate_index, tails) -> np.ndarray:
    """sum_k v^k l(y + k) (radix 1) for start ages y, survival linear within each year.

    l(n + f + k) = (1 - f) l_{n+k} + f l_{n+k+1}, so the sum is the same blend of the tail
    sums at n and n + 1. ``starts`` and ``rate_index`` broadcast: ages are worked out on
    ``starts`` alone, and only the two lookups take the full shape.
    """
    n, f = table._year_and_fraction(starts)
    index = rate_index * tails.shape[1] + n
    flat = tails.ravel()
    return (1.0 - f) * flat[index] + f * flat[1:][index]  # T[u, n] and T[u, n + 1]


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
        total += v**k * l_integer[index] * np.power(p[index], f)
    return total


def _whole_life(table: LifeTable, ages, interest, m: int, method: str) -> np.ndarray:
    """m-thly whole-life annuity-due at checked ages >= min_age; 0 at and beyond omega."""
    return _whole_lives(table, (ages,), interest, m, method)[0]


def _whole_lives(table: LifeTable, age_arrays, interest, m: int, method: str) -> list:
    """:func:`_whole_life` at each array of ages in ``age_arrays``, on the same rates.

    Each array broadcasts with ``interest``. The work per rate (tail sums, discounts) is
    done once per distinct rate, for all the arrays; the work per age on each array as
    given; only the table lookups take the full broadcast shape.
    """
    interest = np.asarray(interest, float)
    rates, rate_index = np.unique(interest, return_inverse=True)
    rate_index = rate_index.reshape(interest.shape)
    log_v = -np.log1p(rates)
    fractional = method if method in EXACT_METHODS else table.fractional
    payments = m if method in EXACT_METHODS else 1
    offsets = np.arange(payments) / payments
    discount = np.exp(log_v[:, None] * offsets)[rate_index]
    if fractional == "udd":
        tails = _tail_sums(table, log_v)
    values = []
    for ages in age_arrays:
        ages = np.asarray(ages, float)
        starts = ages[..., None] + offsets
        if fractional == "udd":
            sums = _udd_sums(table, starts, rate_index[..., None], tails)
        else:
            sums = _constant_force_sums(table, starts, rate_index[..., None], log_v)
        alive = table._l(ages, 1.0, fractional)
        with np.errstate(divide="ignore", invalid="ignore"):
            total = np.einsum("...j,...j->...", discount, sums)
            value = np.where(alive > 0, total / (payments * alive), 0.0)
        if method == "woolhouse2" or method == "woolhouse3":
            value = value - np.where(alive > 0, (m - 1) / (2 * m), 0.0)
        if method == "woolhouse3":
            living = np.minimum(ages, table.omega - 1)
            force = np.log1p(interest) + table.force_of_mortality(living)
            value = value - np.where(alive > 0, (m * m - 1) / (12 * m * m) * force, 0.0)
        values.append(value[()])  # a numpy scalar for scalar arguments
    return values


# --------------------------------------------------------------------- public functions
def pure_endowment(table: LifeTable, age, n, interest, fractional: str | None = None):
    """n_E_x = v^n n_p_x: value at x of 1 paid at x + n if alive (n may be fractional)."""
    ages = table.check_ages(age, upper="alive")
    years, rates = _duration(n), _interest(interest)
    return np.power(1.0 + rates, -years) * table.survival(ages, years, fractional)


def annuity_due(table: LifeTable, age, interest, m=1, method: str = "udd"):
    """Whole-life annuity-due a^(m)_x: 1 a year paid in m instalments of 1/m in advance."""
    ages = table.check_ages(age, upper="alive")
    return _whole_life(table, ages, _interest(interest), _payments_per_year(m), _method(method))


def annuities_due(table: LifeTable, ages, interest, m=1, method: str = "udd") -> list:
    """:func:`annuity_due` at each array of ages in the sequence ``ages``, on the same rates.

    The work per interest rate is done once for all of them: for the early-retirement
    factor, a^(m)_x and a^(m)_NRA in one call.
    """
    ages = [table.check_ages(each, upper="alive") for each in ages]
    m, method = _payments_per_year(m), _method(method)
    return _whole_lives(table, ages, _interest(interest), m, method)


def deferred_annuity_due(table: LifeTable, age, n, interest, m=1, method: str = "udd"):
    """n|a^(m)_x = n_E_x * a^(m)_{x+n}: the m-thly annuity-due starting at age x + n."""
    ages, years = table.check_ages(age, upper="alive"), _duration(n)
    rates, m, method = _interest(interest), _payments_per_year(m), _method(method)
    fractional = method if method in EXACT_METHODS else None
    endowment = pure_endowment(table, ages, years, rates, fractional)
    return endowment * _whole_life(table, ages + years, rates, m, method)


def temporary_annuity_due(table: LifeTable, age, n, interest, m=1, method: str = "udd"):
    """a^(m)_{x:n} = a^(m)_x - n|a^(m)_x: payments for at most n years."""
    whole = annuity_due(table, age, interest, m, method)
    return whole - deferred_annuity_due(table, age, n, interest, m, method)


def whole_life_insurance(table: LifeTable, age, interest, moment: int = 1):
    """A_x = 1 - d a_x: 1 paid at the end of the year of death (curtate, annual).

    ``moment=2`` gives 2A_x, the same at interest (1 + i)^2 - 1.
    """
    if isinstance(moment, bool) or not isinstance(moment, int | np.integer) or moment < 1:
        raise AnnuityError(f"'moment' must be a positive integer (got {moment!r})")
    rates = np.power(1.0 + _interest(interest), moment) - 1.0
    ages = table.check_ages(age, upper="alive")
    annuity = _whole_life(table, ages, rates, 1, table.fractional)
    return 1.0 - rates / (1.0 + rates) * annuity
