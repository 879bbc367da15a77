"""The law of the Chapter 2 annuities, all in one place.

- ``law.toml``: every number of the statute as dated data (the shipped law file);
- :mod:`~actuarial.law.parameters`: loads it, applies amendment files, validates the law in
  force, answers look-ups by date;
- :mod:`~actuarial.law.conditions`: what a clause declares (conditions, wording);
- :mod:`~actuarial.law.clauses`: the clauses (a) to (d), quoted, declared and ruled;
- :mod:`~actuarial.law.coverage`: who is covered (I-1);
- :mod:`~actuarial.law.reduction`: the actuarial reduction of inciso (c);
- :mod:`~actuarial.law.minimum`: the monthly minimum on the payment date (I-4);
- :mod:`~actuarial.law.notes`: what an amended law holds that can never take effect;
- :mod:`~actuarial.law.readings`: the readings I-1 to I-9 and their switches.
"""

from actuarial.law.parameters import (
    PARAMETERS,
    UNITS,
    Law,
    LawError,
    LawNote,
    law_in_force,
    law_provenance,
    load_law,
    resolve_as_of,
    shipped_law,
)

__all__ = [
    "PARAMETERS",
    "UNITS",
    "Law",
    "LawError",
    "LawNote",
    "law_in_force",
    "law_provenance",
    "load_law",
    "resolve_as_of",
    "shipped_law",
]
