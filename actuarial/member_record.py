"""The member record: its fields, the groups and bounds of their values, the errors of
member data, and how many members a batch reads at a time.

Declarations only, without pandas (nor Arrow), so that the command line starts without
them; parsing and validation are in :mod:`actuarial.members`.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import asdict, dataclass
from typing import get_type_hints

from actuarial.shown_text import quoted

__all__ = [
    "DATE_FIELDS",
    "DATE_RANGE",
    "DATE_RANGE_RULE",
    "DATE_YEARS",
    "DEFAULT_CHUNK_ROWS",
    "GROUPS",
    "HIGH_RISK_GROUPS",
    "MEMBER_FIELDS",
    "MEMBER_ID_MAX_LENGTH",
    "Member",
    "MemberDataError",
    "MemberFileError",
    "NO_TIME_OF_DAY_RULE",
    "NO_TIME_ZONE_RULE",
    "NUMBER_FIELDS",
    "check_columns",
    "timestamp_rule",
    "written_as",
]

MEMBER_FIELDS = (
    "member_id",
    "birth_date",
    "entry_date",
    "separation_date",
    "credited_service",
    "average_compensation",
    "group",
    "refunded",
)
GROUPS = ("general", "police", "firefighter")
HIGH_RISK_GROUPS = ("police", "firefighter")
MEMBER_ID_MAX_LENGTH = 100  # characters; a longer id is an error on its row
DATE_RANGE = (dt.date(1900, 1, 1), dt.date(2100, 12, 31))  # every date, both ends included
DATE_RANGE_RULE = f"must be from {DATE_RANGE[0]} to {DATE_RANGE[1]}"  # the rule's wording
DATE_YEARS = (DATE_RANGE[0].year, DATE_RANGE[1].year)  # a year of those dates (a base year)
NO_TIME_ZONE_RULE = "must be a date without a time zone"
NO_TIME_OF_DAY_RULE = "must be a date, without a time of day"
# Members per chunk of a batch (`actuarial batch --chunk-rows`): small enough that a
# chunk's arrays reuse memory (at 10^6 members, 125,000 had the kernel zero 40% fewer fresh
# pages than 250,000, 0.5 s of system time, and peaked 25% lower; 500,000 was a quarter
# slower still).
DEFAULT_CHUNK_ROWS = 125_000


def timestamp_rule(value: dt.datetime) -> str | None:
    """The rule a timestamp (a ``datetime.datetime``, a pandas Timestamp) given as a date
    breaks, or None: one at midnight without a time zone is that date; a time zone or a time
    of day would be converted silently (to the UTC day, or truncated), so it is refused.
    The one rule of member dates and of ``as_of``."""
    if value.tzinfo is not None:
        return NO_TIME_ZONE_RULE
    # A pandas Timestamp's nanoseconds are not in its time(), a datetime.time's.
    at_midnight = value.time() == dt.time(0) and not getattr(value, "nanosecond", 0)
    return None if at_midnight else NO_TIME_OF_DAY_RULE


class MemberDataError(ValueError):
    """A member's data breaks a rule (field, rule and value in the message)."""


class MemberFileError(ValueError):
    """A member file cannot be used at all (unreadable, or a required column missing)."""


@dataclass(frozen=True, slots=True)
class Member:
    """One member, with Python values (see :data:`MEMBER_FIELDS`)."""

    member_id: str
    birth_date: dt.date
    entry_date: dt.date
    separation_date: dt.date
    credited_service: float
    average_compensation: float
    group: str = "general"
    refunded: bool = False

    def as_dict(self) -> dict:
        return asdict(self)


# The fields a Member holds as dates and as numbers (read as such from text or typed values).
DATE_FIELDS = tuple(name for name, kind in get_type_hints(Member).items() if kind is dt.date)
NUMBER_FIELDS = tuple(name for name, kind in get_type_hints(Member).items() if kind is float)


SHOWN_COLUMNS = 20  # columns of a file quoted when a required one is missing
_SHOWN_NAME = 40  # characters of each


def check_columns(columns, source: str) -> None:
    """Raise :class:`MemberFileError` naming every required column that is missing, and
    every one given more than once (which of them holds the member's value is not for us
    to guess). A missing column is shown beside the columns given, with the one it seems
    written as (other case, spaces or hyphens: names are matched exactly), and a header
    that is one column holding another separator is said to be one."""
    names = [str(name) for name in columns]
    missing = [name for name in MEMBER_FIELDS if name not in names]
    repeated = [name for name in MEMBER_FIELDS if names.count(name) > 1]
    problems = []
    if missing:
        problems.append(
            f"missing required column(s) {missing} (required: {list(MEMBER_FIELDS)}; "
            f"given: {_shown_columns(names)})" + _how_written(missing, names)
        )
    if repeated:
        problems.append(f"required column(s) {repeated} given more than once")
    if problems:
        raise MemberFileError(f"{source}: " + "; ".join(problems))


def _shown_columns(names: list[str]) -> str:
    shown = [quoted(name, _SHOWN_NAME) for name in names[:SHOWN_COLUMNS]]
    if len(names) > SHOWN_COLUMNS:
        shown.append(f"... {len(names) - SHOWN_COLUMNS} more")
    return "[" + ", ".join(shown) + "]"


def _folded(name: str) -> str:
    return re.sub(r"[\s_-]+", "_", name.strip().casefold())


def _how_written(missing: list[str], names: list[str]) -> str:
    """The given names a missing column seems written as, or the separator a header of one
    column holds: ``""`` when there is neither."""
    if len(names) == 1:
        separator = next((s for s in (";", "\t", "|") if s in names[0]), None)
        if separator is not None:
            return (
                f"; the header is one column holding {separator!r}: "
                "a member file's columns are separated by commas"
            )
    return written_as(missing, names)


def written_as(missing: list[str], names: list[str]) -> str:
    """The given names (of columns, or of a mapping's keys) the missing fields seem written
    as, other case, spaces or hyphens: ``""`` when none."""
    written = {}
    for name in missing:
        alike = [given for given in names if _folded(given) == name]
        if alike:
            written[name] = alike[0]
    if not written:
        return ""
    return "; names are matched exactly: " + ", ".join(
        f"{quoted(given, _SHOWN_NAME)} for {name!r}" for name, given in written.items()
    )
