"""The actuarial reduction of inciso (c), from the Actuarial Guide in force.

Inciso (c): «... con una reducción actuarial que será calculada a base de las Guías
Actuariales adoptadas por la Junta de Síndicos.» The guide in force on the separation date
is read at the exact age at separation, in years and months, within its own table: an age
the guide does not cover (when the law in force lets (c) reach it) is an error naming the
age and the guide, never a factor from outside the table.
"""

from __future__ import annotations

import numpy as np

from actuarial.dates import format_age
from actuarial.shown_text import quoted

__all__ = ["reduction_factors"]


def reduction_factors(guides, separation_dates, age_months):
    """Reduction factor, guide index and error text ("" where none) for each member."""
    factor, index = guides.factors(separation_dates, age_months)
    error = np.full(factor.shape, "", dtype=object)
    no_guide = index < 0
    if no_guide.any():  # one message per distinct date, shared by its rows
        distinct, inverse = np.unique(separation_dates[no_guide], return_inverse=True)
        messages = np.array(guides.no_guide_messages(distinct), dtype=object)
        error[no_guide] = messages[inverse.ravel()]
    for position in ((index >= 0) & np.isnan(factor)).nonzero()[0]:
        guide = guides.guides[index[position]]
        error[position] = (
            f"age at separation {format_age(age_months[position])} is outside the table of "
            f"guide {quoted(guide.id)} ({guide.span.label}): no reduction factor"
        )
    return factor, index, error
