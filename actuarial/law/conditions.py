"""What a clause declares beside its quoted text: its conditions, branches and wording.

A :class:`Condition` is declared once: an id by the statute's coordinates (``"a.age"``),
the law parameter it tests, and its wording in English and Spanish as templates filled
with the value in force. The ``reason`` column, the explanations (en, es), ``--json`` and
the notebooks all render from it. Template fields: ``{value}`` (the value the condition
tests), ``{law[name]}`` (any parameter's value), ``{pct[name]}`` (a rate as a percent),
``{nth[name]}`` (a number of years as an English ordinal: the 52nd birthday), and, in
explanations, the member's ``{age}``, ``{service}``, ``{group}``, ``{refund}``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal

import numpy as np

from actuarial.shown_text import show_percent

__all__ = [
    "Clause",
    "ClauseOutcome",
    "Condition",
    "Exact",
    "Situation",
    "Renderer",
    "Variant",
    "Wording",
    "render",
]


@dataclass(frozen=True, slots=True)
class Wording:
    """One language's texts of a condition: met, not met (reason column), and detailed."""

    met: str
    not_met: str
    detail: str  # explanation line, with the member's values


@dataclass(frozen=True, slots=True)
class Condition:
    """One condition of a clause, declared once beside the text it comes from."""

    id: str  # statute coordinates: "a.age", "c.service"
    parameter: str | None  # the law parameter it tests (None: a fact, no number)
    en: Wording
    es: Wording
    # The value the condition tests, from the law values in force (and the readings):
    # by default the parameter's value; a reading may set it (I-5).
    value: Callable[[Mapping, object], object] | None = field(default=None, compare=False)

    def __hash__(self) -> int:  # equal conditions have equal ids: a cheap key of caches
        return hash(self.id)

    def value_in(self, law_values: Mapping, readings) -> object:
        if self.value is not None:
            return self.value(law_values, readings)
        return law_values[self.parameter] if self.parameter else None

    def wording(self, lang: str) -> Wording:
        return self.es if lang == "es" else self.en


@dataclass(frozen=True, slots=True)
class Variant:
    """A branch of an eligible clause (inciso (b): the rate by age), with its wording."""

    en: str  # appended to the reason when eligible; "" for none
    es: str
    detail_en: str = ""  # explanation line
    detail_es: str = ""

    def reason(self, lang: str) -> str:
        return self.es if lang == "es" else self.en

    def detail(self, lang: str) -> str:
        return self.detail_es if lang == "es" else self.detail_en


NO_VARIANT = (Variant("", ""),)


@dataclass(frozen=True, slots=True)
class Situation:
    """What the clauses look at, one array element per member (ages by I-6)."""

    age_months: np.ndarray  # completed months of age at separation (I-6)
    birth_date: np.ndarray  # datetime64[D]
    separation_date: np.ndarray  # datetime64[D]
    credited_service: np.ndarray  # years
    average_compensation: np.ndarray  # annual USD
    high_risk: np.ndarray  # police or firefighter
    refunded: np.ndarray
    birthday: Callable[[np.ndarray], np.ndarray]  # the birthday at an age in years (I-6)


@dataclass(frozen=True, slots=True)
class ClauseOutcome:
    """Result of one clause over all members, before the reduction, minimum and rounding.

    ``conditions`` pairs each :class:`Condition` with its pass array, in the order they are
    reported; ``variant`` indexes the clause's :class:`Variant` per member.
    """

    clause: str
    conditions: tuple[tuple[Condition, np.ndarray], ...]
    eligible: np.ndarray
    # Where eligible: the amount before any reduction for (c), and the start date; elsewhere
    # whatever the rule computed (evaluate_members keeps them only where eligible).
    annual_amount: np.ndarray
    start_date: np.ndarray
    variant: np.ndarray | None = None


@dataclass(frozen=True, slots=True)
class Clause:
    """A clause of the statute: its id, title, rule and the branches of its wording."""

    id: str  # "a", "b", ...: spelled one way in code
    title: str  # the statute's own title
    rule: Callable  # rule(situation, law_on, readings) -> ClauseOutcome
    variants: tuple[Variant, ...] = NO_VARIANT
    reduced: bool = False  # True: the actuarial reduction of a guide applies (inciso (c))

    def __hash__(self) -> int:  # equal clauses have equal ids: a cheap key of caches
        return hash(self.id)


SHOWN_PLACES = 20  # digits written out either side of the point at most
_LONG_FROM = float(Decimal(1).scaleb(SHOWN_PLACES))  # a number needing more digits before it


class Exact(float):
    """A number as a template (and a data-quality warning) shows it: to the places its
    format asks (``{value:g}``, ``{service:.2f}``), or with every digit it has where those
    would round it: 24.995 years is not shown as 25.00, a minimum it is below, nor a minimum
    of 12.3456789 as 12.3457, nor a compensation of 999.999 as 1,000.00.

    A number that needs more than :data:`SHOWN_PLACES` places after the point or digits
    before it is written as ``repr`` writes it (``5e-324``, ``1e+300``: the shortest text
    read back as it, never rounded), unless its format asks for scientific notation."""

    __slots__ = ()

    def __format__(self, spec: str) -> str:
        usual = spec[:1] in ("", ".", ",")  # no fill, sign or width to apply
        asked = None if usual else _SPEC.fullmatch(spec)
        text = self._unrounded(spec if asked is None else asked["flags"] + asked["rest"])
        if text is None:  # the format shows the number as it is
            return float.__format__(self, spec)
        if asked is None:
            return text
        # The unrounded digits, signed and padded as the format asks
        sign = asked["sign"]
        if sign in ("+", " ") and not text.startswith("-"):
            text = sign + text
        width = int(asked["width"] or 0)
        if len(text) >= width:
            return text
        align, fill = asked["align"], asked["fill"] or " "
        if not align and asked["zero"]:
            align, fill = "=", "0"
        if align == "=":  # the fill between the sign and the digits
            head = text[0] if text[0] in "+- " else ""
            return head + text[len(head) :].rjust(width - len(head), fill)
        return format(text, f"{fill}{align or '>'}{width}")

    def _unrounded(self, spec: str) -> str | None:
        """None where ``spec`` (no fill, sign or width) shows the number as it is, else
        its text with every digit it has."""
        text = float.__format__(self, spec)
        try:
            exact = float(text.replace(",", "").replace("_", "")) == self
        except ValueError:  # not a plain number (a percent): as asked
            return None
        # Read back exactly, the text has at least the places of the shortest text that
        # is (repr's): within SHOWN_PLACES of them, not long (the usual case, no Decimal).
        if exact and abs(self) < _LONG_FROM and len(text) - text.find(".") <= SHOWN_PLACES:
            return None
        digits = Decimal(repr(float(self)))
        long = digits.is_finite() and (
            digits.as_tuple().exponent < -SHOWN_PLACES or digits.adjusted() >= SHOWN_PLACES
        )
        if exact and (not long or "e" in text.lower()):  # as asked
            return None
        if long:
            return repr(float(self))
        return format(digits, next((g for g in ",_" if g in spec), "") + "f")


# A number's format (Python's mini-language): fill, alignment, sign and width apart from the
# rest, which Exact may write with more digits than it asks.
_SPEC = re.compile(
    r"(?:(?P<fill>.)?(?P<align>[<>=^]))?(?P<sign>[-+ ]?)(?P<flags>z?#?)(?P<zero>0?)"
    r"(?P<width>\d*)(?P<rest>[,_]?(?:\.\d+)?[eEfFgGn%]?)",
    re.DOTALL,
)


def _shown(value):
    """A template field's value: a whole float as an integer (65, not 65.0), any other
    float :class:`Exact`."""
    if type(value) is float or isinstance(value, np.floating):
        return int(value) if value.is_integer() else Exact(value)
    return value


class _Values(dict):
    """Formatting view of law values: ``{law[name]}`` gives a number as ``65`` not ``65.0``."""

    def __getitem__(self, key):
        value = super().__getitem__(key)
        if isinstance(value, float) and value.is_integer():
            return int(value)
        return value


class _Ordinals:
    """Formatting view of law values: ``{nth[name]}`` gives a whole number of years as an
    English ordinal (``55th``, ``52nd``, ``61st``), on demand."""

    __slots__ = ("values",)

    def __init__(self, values: Mapping):
        self.values = values

    def __getitem__(self, key):
        digits = str(int(self.values[key]))
        teens = digits[-2:-1] == "1"  # 11th, 12th, 13th
        suffix = "th" if teens else {"1": "st", "2": "nd", "3": "rd"}.get(digits[-1], "th")
        return digits + suffix


class _Percents:
    """Formatting view of law values: ``{pct[name]}`` gives a rate as ``1.5%``, on demand,
    with every digit it has."""

    __slots__ = ("values",)

    def __init__(self, values: Mapping):
        self.values = values

    def __getitem__(self, key):
        number = self.values[key]
        if not isinstance(number, float):
            raise KeyError(key)
        return show_percent(number)  # 0.0123456789: 1.23456789%, not 1.23457%


class Renderer:
    """Fills wording templates with one set of law values in force and a member's values
    (made once, then used for each of the member's conditions)."""

    __slots__ = ("fields",)

    def __init__(self, law_values: Mapping, **member):
        self.fields = {
            "law": _Values(law_values),
            "pct": _Percents(law_values),
            "nth": _Ordinals(law_values),
            **{name: _shown(value) for name, value in member.items()},
        }

    def __call__(self, template: str, value=None) -> str:
        if not template:
            return ""
        self.fields["value"] = _shown(value)  # the condition's own: set for each template
        return template.format_map(self.fields)


def render(template: str, law_values: Mapping, value=None, **member) -> str:
    """Fill a wording template with the law values in force and a member's values."""
    return Renderer(law_values, **member)(template, value)
