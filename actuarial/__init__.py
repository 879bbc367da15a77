"""actuarial: the Chapter 2 annuities of Puerto Rico's Government Employees Retirement System.

Ley 447 de 1951, as amended by Ley 1-1990 and Ley 3-2013. See README.md and notebooks/.

The names below are imported on first use, so that ``import actuarial`` (and the command
line's start) does not load pandas and the engine until they are needed.
"""

from __future__ import annotations

import importlib

__version__ = "0.1.0"

_MODULE_OF = {  # each public name, and the module that defines it
    "Basis": "actuarial.valuation",
    "ClauseResult": "actuarial.engine",
    "Evaluation": "actuarial.engine",
    "Guide": "actuarial.guides",
    "GuideError": "actuarial.guides",
    "GuideSet": "actuarial.guides",
    "Law": "actuarial.law",
    "LawError": "actuarial.law",
    "Member": "actuarial.member_record",
    "MemberDataError": "actuarial.member_record",
    "MemberFileError": "actuarial.member_record",
    "Readings": "actuarial.law.readings",
    "evaluate": "actuarial.engine",
    "evaluate_frame": "actuarial.engine",
    "law_provenance": "actuarial.law",
    "load_guides": "actuarial.guides",
    "load_law": "actuarial.law",
    "value_frame": "actuarial.valuation",
}
__all__ = sorted(_MODULE_OF)


def __getattr__(name: str):
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'actuarial' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # found directly from now on
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
