"""Chapter 2 of the Retirement System as an OpenFisca model: the peer of bench_openfisca.py.

Our own model, written the way the OpenFisca country template lays one out: one entity
(``Person``), the law's numbers as dated YAML parameters with their references
(``parameters/``), one variable per quantity with a vectorized formula (``variables.py``).
It covers the four clauses of art. 2-103 and the monthly minimum, with ``actuarial``'s
default readings (I-1 to I-6) and the reduction factors of the shipped illustrative guide
(``parameters/chapter_2/inciso_c.yaml``, one bracket per month of age). It is not part of
the product: it exists so that the benchmark compares the same law computed two ways.
"""

from __future__ import annotations

from pathlib import Path

from openfisca_core.simulations import SimulationBuilder
from openfisca_core.taxbenefitsystems import TaxBenefitSystem

from .entities import entities
from .variables import INPUTS, VARIABLES, Group

INPUT_NAMES = tuple(variable.__name__ for variable in INPUTS)

__all__ = ["INPUT_NAMES", "OUTPUTS", "ChapterTwoSystem", "Group", "calculate"]

PARAMETERS = Path(__file__).resolve().parent / "parameters"
# What a simulation is asked for: every clause's eligibility and monthly amount, and the
# two other quantities the benchmark compares (the reduction of (c), the start of (d)).
OUTPUTS = tuple(
    f"inciso_{clause}_{quantity}"
    for clause in "abcd"
    for quantity in ("eligible", "monthly_amount")
) + ("inciso_c_reduction_factor", "inciso_d_start_date")


class ChapterTwoSystem(TaxBenefitSystem):
    """The tax and benefit system of the model: its entity, parameters and variables."""

    def __init__(self) -> None:
        super().__init__(entities)
        self.load_parameters(str(PARAMETERS))
        self.add_variables(*VARIABLES)


def calculate(system: ChapterTwoSystem, inputs: dict, month: str) -> dict:
    """Every output of :data:`OUTPUTS` for the members of ``inputs`` (arrays by input name).

    ``month`` (``"2026-07"``) is the month paid: its first day is the earliest payment date.
    """
    count = len(inputs["birth_date"])
    simulation = SimulationBuilder().build_default_simulation(system, count)
    for name in INPUT_NAMES:
        simulation.set_input(name, "eternity", inputs[name])
    return {name: simulation.calculate(name, month) for name in OUTPUTS}
