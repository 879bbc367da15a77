"""The readings I-1 to I-9: kept under this name; declared in :mod:`actuarial.law.readings`."""

from actuarial.dates import LEAP_DAY_RULES
from actuarial.law.readings import INTERPRETATIONS, MINIMUM_SCOPES, Interpretation, Readings

__all__ = ["INTERPRETATIONS", "LEAP_DAY_RULES", "MINIMUM_SCOPES", "Interpretation", "Readings"]
