"""The engine's results do not change when its implementation does (issue 14).

Digests of ``evaluate_frame``'s table and of ``evaluate``'s results and explanations on
seeded synthetic memberships, recorded on main before the hot path was rewritten (commit
24e72d6). A digest depends on the values only (texts, cents, days, flags), not on how a
column is stored. Record anew only for an intended change of results:
``python tests/test_unchanged_results.py``.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from actuarial import evaluate, evaluate_frame
from actuarial.guides import DEFAULT_SERIES, SHIPPED_GUIDES, load_guides
from actuarial.law.readings import Readings
from actuarial.synthetic import generate_members

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
SWITCHED = Readings(
    april_first_is_covered=False,
    deferred_reads_age=False,
    refund_bars_high_risk=False,
    minimum_applies_to="a",
    deferred_minimum_service=0,
    leap_day_birthday="mar1",
    high_risk_waits_for_age=True,
)
# name: (members, seed, invalid share, guide series, readings, law, as_of)
CASES = {
    "default": (20_000, 7, 0.0, DEFAULT_SERIES, Readings(), None, dt.date(2026, 7, 1)),
    "switched-amended": (
        20_000,
        11,
        0.0,
        "illustrative-half-percent-per-month",
        SWITCHED,
        EXAMPLES / "bill-2027.toml",
        dt.date(2020, 1, 1),
    ),
    "invalid-rows": (5_000, 3, 0.03, DEFAULT_SERIES, Readings(), None, dt.date(2026, 7, 1)),
}
# The error texts of invalid rows belong to the member parser: only where they are is checked.
ERROR_PRESENCE_ONLY = {"invalid-rows"}
ONE_MEMBER_SAMPLE = 40
# The keys of Evaluation.as_dict() when the digests were recorded (later keys: not compared).
AS_DICT = (
    "member_id",
    "age_at_separation",
    "covered",
    "as_of",
    "law",
    "readings",
    "clauses",
    "explanation",
)


def column_digest(values: pd.Series) -> str:
    """SHA-256 of a column's values, whatever its dtype (NaN, NaT, None and "" as missing)."""
    digest = hashlib.sha256()
    if pd.api.types.is_bool_dtype(values.dtype):
        digest.update(b"bool" + values.to_numpy(dtype=bool).tobytes())
    elif pd.api.types.is_datetime64_any_dtype(values.dtype):
        days = values.to_numpy().astype("datetime64[D]").astype(np.int64)
        digest.update(b"days" + days.tobytes())
    elif pd.api.types.is_numeric_dtype(values.dtype):
        numbers = values.to_numpy(dtype=np.float64, na_value=np.nan)
        digest.update(b"number" + np.where(np.isnan(numbers), np.nan, numbers).tobytes())
    else:
        texts = ["" if pd.isna(text) else str(text) for text in values.astype(object)]
        digest.update(b"text" + "\x00".join(texts).encode())
    return digest.hexdigest()


def case_digests(name: str) -> dict:
    count, seed, invalid, series, readings, law, as_of = CASES[name]
    members = generate_members(count, seed=seed, invalid_fraction=invalid)
    guides = load_guides(SHIPPED_GUIDES, series)
    table = evaluate_frame(members, guides, as_of=as_of, readings=readings, law=law)
    if name in ERROR_PRESENCE_ONLY:
        table["error"] = table["error"].astype(object).fillna("").ne("")
    columns = {column: column_digest(table[column]) for column in table.columns}
    # One member at a time, explanation included, in both languages.
    valid = table.loc[table["error"].astype(object).isin(["", None, False]), "row"]
    rows = np.unique(valid.to_numpy())[:ONE_MEMBER_SAMPLE] - 1
    one = hashlib.sha256()
    for row in rows:
        record = {
            field: (value.date().isoformat() if isinstance(value, pd.Timestamp) else value)
            for field, value in members.iloc[int(row)].items()
        }
        for lang in ("en", "es"):
            result = evaluate(record, guides, as_of, readings, lang=lang, law=law)
            recorded = {key: value for key, value in result.as_dict().items() if key in AS_DICT}
            text = json.dumps(recorded, sort_keys=True, default=str)
            one.update(text.replace(str(EXAMPLES), "examples").encode())  # where it is checked out
    return {"rows": len(table), "columns": columns, "one_member": one.hexdigest()}


DIGESTS = Path(__file__).with_name("unchanged_results.json")


@pytest.mark.parametrize("name", sorted(CASES))
def test_results_are_unchanged(name):
    recorded = json.loads(DIGESTS.read_text())[name]
    now = case_digests(name)
    assert now["rows"] == recorded["rows"]
    changed = [
        column
        for column, digest in recorded["columns"].items()
        if now["columns"].get(column) != digest
    ]
    assert not changed, f"columns changed: {changed}"
    assert now["one_member"] == recorded["one_member"]


if __name__ == "__main__":
    DIGESTS.write_text(
        json.dumps({name: case_digests(name) for name in sorted(CASES)}, indent=1) + "\n"
    )
    print(f"recorded {DIGESTS}")
