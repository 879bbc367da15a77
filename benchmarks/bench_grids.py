"""3. Annuity and reduction grids against peers, on the SULT.

The grid: the monthly annuity-due a^(12)_x and the early-retirement factor
f(x) = (65-x)E_x a^(12)_65 / a^(12)_x, for monthly ages 55y0m to 65y0m (121 ages) and 50
interest rates (1.0% to 10.8%), with our vectorized code in one call each.

The peers cannot take fractional ages, so each is compared where it can compute, at
integer ages 55-65 with the same 50 rates (550 pairs):

- actuarialmath (pure Python, its own SULT): a^(12)_x = alpha(12) a_x - beta(12), exact
  under UDD at integer ages; E_x from its table. (Its exact m-thly class, ``Mthly``, fails
  in version 1.1.0 and takes no fractional ages either.)
- pyliferisk (commutation columns from the SULT q_x): its m-thly annuity is Woolhouse's
  two-term a_x - (m-1)/(2m); compared with ours under ``method="woolhouse2"``.

The whole fractional grid is checked against a plain Python sum of the monthly payments
(written here, UDD between integer ages), which also shows what a scalar loop costs.
"""

from __future__ import annotations

import math
from importlib import metadata

import numpy as np
import pyliferisk
from actuarialmath import SULT, UDD
from support import Section, Target, check, count, per_item, say, seconds, time_side_by_side, times

from actuarial.annuities import annuity_due
from actuarial.equivalence import early_retirement_factor
from actuarial.mortality import LifeTable, sult

NORMAL_RETIREMENT_AGE = 65
PAYMENTS_PER_YEAR = 12
MONTHLY_AGES = np.arange(55 * 12, NORMAL_RETIREMENT_AGE * 12 + 1) / 12  # 55y0m..65y0m
INTEGER_AGES = np.arange(55, NORMAL_RETIREMENT_AGE + 1)
RATES = np.round(0.010 + 0.002 * np.arange(50), 3)  # 1.0%, 1.2%, ..., 10.8%
TOLERANCE = 1e-9  # largest difference accepted between two computations of one value
OUR_CALLS = 20  # our calls per timed step: a call takes milliseconds, a peer's grid ~50 ms


def ours(table: LifeTable, ages, rates, method: str = "udd"):
    """Annuity and factor grids (ages x rates), one vectorized call each."""
    annuity = annuity_due(table, ages[:, None], rates[None, :], m=PAYMENTS_PER_YEAR, method=method)
    factor = early_retirement_factor(
        table,
        ages[:, None],
        rates[None, :],
        NORMAL_RETIREMENT_AGE,
        m=PAYMENTS_PER_YEAR,
        method=method,
    )
    return annuity, factor


def actuarialmath_udd(ages, rates):
    """actuarialmath's SULT and UDD m-thly annuity, one value at a time (integer ages)."""
    annuity = np.empty((len(ages), len(rates)))
    factor = np.empty_like(annuity)
    for column, rate in enumerate(rates):
        life = SULT(i=float(rate), udd=True)
        monthly = UDD(m=PAYMENTS_PER_YEAR, life=life)
        at_normal_age = monthly.whole_life_annuity(NORMAL_RETIREMENT_AGE)
        for row, age in enumerate(ages):
            age = int(age)
            annuity[row, column] = monthly.whole_life_annuity(age)
            deferral = life.E_x(age, t=NORMAL_RETIREMENT_AGE - age)
            factor[row, column] = deferral * at_normal_age / annuity[row, column]
    return annuity, factor


def pyliferisk_woolhouse(table: LifeTable, ages, rates):
    """pyliferisk's commutation columns from the SULT q_x (per mille), integer ages."""
    per_mille = [table.min_age, *(1000.0 * table.qx)]
    annuity = np.empty((len(ages), len(rates)))
    factor = np.empty_like(annuity)
    for column, rate in enumerate(rates):
        commutation = pyliferisk.Actuarial(nt=per_mille, i=float(rate))
        at_normal_age = pyliferisk.aax(commutation, NORMAL_RETIREMENT_AGE, PAYMENTS_PER_YEAR)
        for row, age in enumerate(ages):
            age = int(age)
            annuity[row, column] = pyliferisk.aax(commutation, age, PAYMENTS_PER_YEAR)
            deferral = pyliferisk.nEx(commutation, age, NORMAL_RETIREMENT_AGE - age)
            factor[row, column] = deferral * at_normal_age / annuity[row, column]
    return annuity, factor


def plain_python_udd(table: LifeTable, ages, rates):
    """The monthly payments summed one by one: l(x) linear within each year of age (UDD)."""
    q = [float(value) for value in table.qx] + ([] if table.qx[-1] == 1 else [1.0])
    survivors = [1.0]
    for rate_of_death in q:
        survivors.append(survivors[-1] * (1.0 - rate_of_death))

    def alive(age: float) -> float:
        whole = math.floor(age)
        if whole - table.min_age >= len(q):
            return 0.0
        k = whole - table.min_age
        return survivors[k] * (1.0 - (age - whole) * q[k])

    def monthly_annuity(age: float, rate: float) -> float:
        v = (1.0 + rate) ** (-1.0 / PAYMENTS_PER_YEAR)
        total, payment, start = 0.0, 0, alive(age)
        while (living := alive(age + payment / PAYMENTS_PER_YEAR)) > 0:
            total += v**payment * living / start
            payment += 1
        return total / PAYMENTS_PER_YEAR

    annuity = np.empty((len(ages), len(rates)))
    factor = np.empty_like(annuity)
    for column, rate in enumerate(rates):
        rate = float(rate)
        at_normal_age = monthly_annuity(NORMAL_RETIREMENT_AGE, rate)
        for row, age in enumerate(ages):
            age = float(age)
            annuity[row, column] = monthly_annuity(age, rate)
            years = NORMAL_RETIREMENT_AGE - age
            deferral = (1.0 + rate) ** -years * alive(NORMAL_RETIREMENT_AGE) / alive(age)
            factor[row, column] = deferral * at_normal_age / annuity[row, column]
    return annuity, factor


def largest_difference(first, second) -> tuple[float, float]:
    return tuple(float(np.max(np.abs(a - b))) for a, b in zip(first, second, strict=True))


def run(repeat: int, reference_rates: int) -> Section:
    table = sult()
    reference_columns = np.linspace(0, len(RATES) - 1, reference_rates).round().astype(int)
    say("grids: computing and checking agreement")
    ours_grid = ours(table, MONTHLY_AGES, RATES)
    ours_integer = ours(table, INTEGER_AGES, RATES)
    ours_woolhouse = ours(table, INTEGER_AGES, RATES, method="woolhouse2")
    check(
        np.array_equal(ours_grid[0][::12], ours_integer[0]),
        "integer ages of the monthly grid differ from the integer-age grid",
    )
    peers = {
        "actuarialmath": (lambda: actuarialmath_udd(INTEGER_AGES, RATES), ours_integer),
        "pyliferisk": (lambda: pyliferisk_woolhouse(table, INTEGER_AGES, RATES), ours_woolhouse),
    }
    differences = {}
    for name, (compute, ours_values) in peers.items():
        differences[name] = largest_difference(compute(), ours_values)
        check(
            max(differences[name]) < TOLERANCE,
            f"{name} disagrees with ours by {max(differences[name]):.2e}",
        )
    say(f"grids: plain Python reference on {reference_rates} of the {len(RATES)} rates")
    reference_rates_values = RATES[reference_columns]
    reference_timing = time_side_by_side(
        {"reference": lambda: plain_python_udd(table, MONTHLY_AGES, reference_rates_values)},
        repeat=1,
        warmup=0,
    )["reference"]
    reference = plain_python_udd(table, MONTHLY_AGES, reference_rates_values)
    differences["reference"] = largest_difference(
        reference, (ours_grid[0][:, reference_columns], ours_grid[1][:, reference_columns])
    )
    check(
        max(differences["reference"]) < TOLERANCE,
        f"the plain Python sums disagree with ours by {max(differences['reference']):.2e}",
    )

    say(f"grids: timing ours and the peers side by side x{repeat}")

    def our_calls(ages, method="udd"):
        return lambda: [ours(table, ages, RATES, method) for _ in range(OUR_CALLS)]

    timings = time_side_by_side(
        {
            "grid": our_calls(MONTHLY_AGES),
            "integer": our_calls(INTEGER_AGES),
            "woolhouse": our_calls(INTEGER_AGES, "woolhouse2"),
            **{name: compute for name, (compute, _) in peers.items()},
        },
        repeat=repeat,
    )
    ours_wall = {name: timings[name].wall / OUR_CALLS for name in ("grid", "integer", "woolhouse")}
    peer_wall = {name: timings[name].wall for name in peers}

    grid_values = MONTHLY_AGES.size * RATES.size
    integer_values = INTEGER_AGES.size * RATES.size
    reference_values = MONTHLY_AGES.size * len(reference_columns)

    def row(label, values, difference, wall, ours_wall=None):
        shown = "" if difference is None else f"{difference[0]:.1e} / {difference[1]:.1e}"
        return [
            label,
            count(values),
            shown,
            seconds(wall),
            per_item(wall / values),
            "" if ours_wall is None else times(wall / values / ours_wall),
        ]

    grid_per_value = ours_wall["grid"] / grid_values
    speedups = {
        "actuarialmath": peer_wall["actuarialmath"] / ours_wall["integer"],
        "pyliferisk": peer_wall["pyliferisk"] / ours_wall["woolhouse"],
    }
    rows = [
        row("ours, UDD, monthly ages 55y0m-65y0m", grid_values, None, ours_wall["grid"]),
        row(
            "plain Python sums, UDD, monthly ages (reference)",
            reference_values,
            differences["reference"],
            reference_timing.wall,
            grid_per_value,
        ),
        row("ours, UDD, integer ages 55-65", integer_values, None, ours_wall["integer"]),
        row(
            f"actuarialmath {metadata.version('actuarialmath')}, UDD, integer ages",
            integer_values,
            differences["actuarialmath"],
            peer_wall["actuarialmath"],
            ours_wall["integer"] / integer_values,
        ),
        row(
            "ours, Woolhouse 2-term, integer ages 55-65",
            integer_values,
            None,
            ours_wall["woolhouse"],
        ),
        row(
            f"pyliferisk {metadata.version('pyliferisk')}, its m-thly (Woolhouse 2-term), "
            "integer ages",
            integer_values,
            differences["pyliferisk"],
            peer_wall["pyliferisk"],
            ours_wall["woolhouse"] / integer_values,
        ),
    ]
    section = Section("3. Annuity and reduction grids against peers (SULT, monthly payments)")
    section.tables.append(
        (
            [
                "computation (annuity and factor grids)",
                "pairs",
                "largest |difference| from ours (annuity / factor)",
                "time",
                "per pair",
                "ours faster by",
            ],
            rows,
        )
    )
    fastest = min(peers, key=lambda name: peer_wall[name])
    section.notes += [
        f"{len(RATES)} interest rates from {RATES[0]:.1%} to {RATES[-1]:.1%}; a pair is one "
        f"annuity value and one factor. Times are medians of {repeat} rounds, ours and the "
        "peers in turn, after a warm-up round (ours: per call, timed in blocks of "
        f"{OUR_CALLS} calls); 'ours faster by' compares time per pair with our computation "
        "of the same values.",
        "actuarialmath builds its SULT to age 130 from Makeham's law without closing it at "
        "120 as ours does: hence its ~1e-11 differences. pyliferisk reads our q_x.",
        "Per pair over the whole monthly grid (one call each), ours takes "
        f"{per_item(grid_per_value)}: "
        + ", ".join(
            f"{times(peer_wall[name] / integer_values / grid_per_value)} faster than "
            f"{name} per pair (at integer ages)"
            for name in peers
        )
        + ". At matching values the ratio is lower: our fixed cost per call (about "
        f"{seconds(ours_wall['integer'])} for the 550 pairs) weighs on a small grid.",
        f"The plain Python reference covers {len(reference_columns)} of the rates "
        f"({reference_values:,} pairs); 'ours faster by' is per pair against our full grid.",
        "Checked before timing: every peer and the reference agree with ours within "
        f"{TOLERANCE:g}.",
    ]
    section.targets.append(
        Target(
            ">= 100x faster than the fastest peer at matching values",
            f"{times(speedups[fastest])} ({fastest}, the fastest peer); "
            + ", ".join(f"{name} {times(value)}" for name, value in speedups.items()),
            speedups[fastest] >= 100,
        )
    )
    return section
