"""The results before and after: a digest of each column of ``evaluate_frame`` on the
benchmark's members, recorded once and checked by ``make bench`` (issue 14: making the
engine faster must not change a row, a text or a cent).

    python benchmarks/result_digest.py            # check against result_digests.json
    python benchmarks/result_digest.py --record   # record anew (only for an intended change)

A column's digest depends on its values only, not on its dtype: text columns are hashed as
their texts (categorical or not), amounts as float64 with one NaN, dates as days, flags as
bytes. A column the engine gains later is reported, not failed; a recorded column that
changes or disappears fails.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import sys

import numpy as np
import pandas as pd
from support import BENCHMARKS, SEED, CheckFailed, check, generated_members, say

from actuarial import evaluate_frame, load_guides
from actuarial.guides import SHIPPED_GUIDES
from actuarial.interpretations import Readings
from actuarial.report import git_commit

DIGESTS = BENCHMARKS / "result_digests.json"
MEMBERS = 1_000_000  # the benchmark's members (seed 2013), as bench_engine generates them
SERIES = "illustrative-half-percent-per-month"
AS_OF = dt.date(2026, 7, 1)


def column_digest(values: pd.Series) -> str:
    """SHA-256 of a column's values, whatever its dtype."""
    digest = hashlib.sha256()
    if pd.api.types.is_bool_dtype(values.dtype):
        digest.update(b"bool")
        digest.update(values.to_numpy(dtype=bool).tobytes())
    elif pd.api.types.is_datetime64_any_dtype(values.dtype):
        digest.update(b"days")
        days = values.to_numpy().astype("datetime64[D]").astype(np.int64)  # NaT: one value
        digest.update(days.tobytes())
    elif pd.api.types.is_numeric_dtype(values.dtype):
        digest.update(b"number")
        numbers = values.to_numpy(dtype=np.float64, na_value=np.nan)
        digest.update(np.where(np.isnan(numbers), np.nan, numbers).tobytes())
    else:  # text: codes by first appearance, then the texts in that order
        digest.update(b"text")
        codes, texts = pd.factorize(values.astype(object), use_na_sentinel=True)
        digest.update(codes.astype(np.int64).tobytes())
        digest.update("\x00".join(str(text) for text in texts).encode())
    return digest.hexdigest()


def digests() -> dict:
    """The digests of every result column on the benchmark's members, with what made them."""
    guides = load_guides(SHIPPED_GUIDES, SERIES)
    say(f"result digests: evaluate_frame on {MEMBERS:,} members")
    table = evaluate_frame(generated_members(MEMBERS), guides, as_of=AS_OF, readings=Readings())
    return {
        "members": MEMBERS,
        "seed": SEED,
        "series": SERIES,
        "as_of": AS_OF.isoformat(),
        "readings": Readings().label(),
        "rows": len(table),
        "columns": {name: column_digest(table[name]) for name in table.columns},
    }


def check_unchanged() -> list[str]:
    """Fail if a recorded column changed; the notes name the commit of the record."""
    recorded = json.loads(DIGESTS.read_text())
    now = digests()
    check(
        now["rows"] == recorded["rows"],
        f"evaluate_frame: {now['rows']:,} rows, recorded {recorded['rows']:,}",
    )
    changed = [
        name for name, digest in recorded["columns"].items() if now["columns"].get(name) != digest
    ]
    check(
        not changed,
        f"evaluate_frame's results changed in column(s) {changed} since the record at commit "
        f"{recorded['commit']} ({DIGESTS.name}); if the change is intended, record anew with "
        "python benchmarks/result_digest.py --record",
    )
    new = [name for name in now["columns"] if name not in recorded["columns"]]
    notes = [
        f"Results unchanged: every column of evaluate_frame on the {recorded['members']:,} "
        f"members ({recorded['rows']:,} rows; series '{recorded['series']}', payment from "
        f"{recorded['as_of']}) has the digest recorded at commit {recorded['commit'][:7]}"
        + "".join(
            f" ({name}: at {commit[:7]})"
            for name, commit in recorded.get("columns_recorded_at", {}).items()
        )
        + "."
    ]
    if new:
        notes.append(f"Columns added since the record (not compared): {new}.")
    return notes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--record", action="store_true", help=f"write {DIGESTS.name} anew")
    arguments = parser.parse_args()
    if arguments.record:
        recorded = digests()
        recorded["commit"] = git_commit(BENCHMARKS.parent, paths=["actuarial"])
        DIGESTS.write_text(json.dumps(recorded, indent=2) + "\n")
        say(f"written: {DIGESTS}")
        return 0
    try:
        print("\n".join(check_unchanged()))
    except CheckFailed as failure:
        print(f"benchmark check failed: {failure}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
