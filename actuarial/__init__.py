"""actuarial: the Chapter 2 annuities of Puerto Rico's Government Employees Retirement System.

Ley 447 de 1951, as amended by Ley 1-1990 and Ley 3-2013. See README.md and notebooks/.
"""

from actuarial.engine import ClauseResult, Evaluation, evaluate, evaluate_frame
from actuarial.guides import Guide, GuideError, GuideSet, load_guides
from actuarial.law import Law, LawError, law_provenance, load_law
from actuarial.law.readings import Readings
from actuarial.members import Member, MemberDataError, MemberFileError
from actuarial.valuation import Basis, value_frame

__version__ = "0.1.0"

__all__ = [
    "Basis",
    "ClauseResult",
    "Evaluation",
    "Guide",
    "GuideError",
    "GuideSet",
    "Law",
    "LawError",
    "Member",
    "MemberDataError",
    "MemberFileError",
    "Readings",
    "evaluate",
    "evaluate_frame",
    "law_provenance",
    "load_guides",
    "load_law",
    "value_frame",
]
