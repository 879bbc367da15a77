"""Member files as a batch reads them: CSV rows across the blocks Arrow reads, headers,
and the errors of a file that cannot be read (actuarial/member_files.py)."""

from __future__ import annotations

import csv
import datetime as dt

import pandas as pd
import pytest

from actuarial.batch import read_members, run_batch
from actuarial.member_files import CSV_BLOCK_BYTES
from actuarial.members import MEMBER_FIELDS, MemberFileError

HEADER = ",".join(MEMBER_FIELDS)
FIELDS = "1958-06-15,1991-01-02,2016-03-01,25,24000,general,false"  # after the id
AS_OF = dt.date(2026, 6, 1)


def csv_members(path, note_starts_before_block_end: int, note_lines: int = 200):
    """About one block of members with a 1 KB note each, then a member whose quoted note,
    starting ``note_starts_before_block_end`` bytes before the first block ends, holds
    ``note_lines`` lines that look like rows of members, then a few members more."""
    lines = [f"{HEADER},note"]
    number = 0
    while sum(len(line) + 1 for line in lines) < CSV_BLOCK_BYTES - note_starts_before_block_end:
        number += 1
        lines.append(f"M-{number},{FIELDS},{'x' * 1000}")
    ghosts = "".join(f"Z-{k},1960-01-01,1991-01-02,2018-03-01,30,90000,police,false,ghost\n"
                     for k in range(note_lines))  # fmt: skip
    lines.append(f'M-{number + 1},{FIELDS},"{ghosts}end"')
    lines += [f"M-{number + k},{FIELDS},short" for k in range(2, 8)]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("before_end", [8000, 3000, 1000, 500])
def test_a_quoted_note_across_a_block_is_one_cell_no_row_lost_or_added(
    half_percent_guides, tmp_path, before_end
):
    # Before, the note's lines after the block's end were read as members Z-..., all
    # eligible, and the members after it lost or shifted; the summary said nothing.
    path = csv_members(tmp_path / "members.csv", before_end)
    with path.open(newline="") as handle:
        expected = [row["member_id"] for row in csv.DictReader(handle)]
    summary = run_batch(path, half_percent_guides, tmp_path / "out.csv", AS_OF, progress=False)
    out = pd.read_csv(tmp_path / "out.csv", dtype={"member_id": str})
    ids = out.drop_duplicates("row")["member_id"].tolist()
    assert ids == expected
    assert out.drop_duplicates("row")["row"].tolist() == list(range(1, len(expected) + 1))
    assert summary.members == len(expected)
    assert out["error"].isna().all()  # "" in the file
    assert read_members(path)["member_id"].tolist() == expected


@pytest.mark.parametrize(
    ("rows", "reason"),
    [
        ([f"A-1,{FIELDS},extra", f"A-2,{FIELDS}"], "line 2 has 9 cells, the header 8"),
        ([f"A-1,{FIELDS}", f"A-2,{FIELDS.rsplit(',', 1)[0]}"], "line 3 has 7 cells, the header 8"),
        ([f"A-1,{FIELDS}", f'"A-2,{FIELDS}', f"A-3,{FIELDS}"],
         "line 3 has 1 cell, the header 8, to line 4: a quote left open?"),
    ],
    ids=["a-cell-more", "a-cell-fewer", "a-quote-left-open"],
)  # fmt: skip
def test_a_row_with_other_cells_than_the_header_is_named_by_its_line(rows, reason, tmp_path):
    # Before: Arrow's message alone, with no line, quoting the file's text over two lines.
    path = tmp_path / "members.csv"
    path.write_text("\n".join([HEADER, *rows]) + "\n")
    with pytest.raises(MemberFileError) as caught:
        read_members(path)
    assert str(caught.value) == f"{path}: cannot read the member file ({reason})"


def test_a_row_longer_than_a_block_says_so(tmp_path):
    path = tmp_path / "members.csv"
    path.write_text(f"{HEADER},note\nA-1,{FIELDS},{'x' * (2 * CSV_BLOCK_BYTES + 10)}\n")
    with pytest.raises(MemberFileError) as caught:
        read_members(path)
    assert str(caught.value) == (
        f"{path}: cannot read the member file (a row is too long: one of about "
        f"{2 * CSV_BLOCK_BYTES:,} bytes or more cannot be read (the file is read "
        f"{CSV_BLOCK_BYTES:,} bytes at a time))"
    )


@pytest.mark.parametrize(
    "header",
    [
        HEADER.replace("member_id", "member_id "),  # as the header check reads it: trimmed
        HEADER.replace("member_id", " member_id"),
        HEADER.replace("group", '"group "'),
        '"a note\nover two lines",' + HEADER,  # a quoted line break in a name
    ],
)
def test_header_names_are_read_as_checked(header, tmp_path):
    # Before, "member_id " passed the check of the columns, then Arrow did not find it:
    # "Column 'member_id' in include_columns does not exist in CSV file".
    path = tmp_path / "members.csv"
    extra = "x," if header.startswith('"a note') else ""
    path.write_text(f"{header}\n{extra}A-1,{FIELDS}\n")
    members = read_members(path)
    assert members["member_id"].tolist() == ["A-1"]
    assert members["group"].tolist() == ["general"]


def test_lines_ending_in_cr_alone_are_read_as_lines(tmp_path):
    # An old Mac's line ends: before, Python's csv error ("new-line character seen in
    # unquoted field") from the header check.
    path = tmp_path / "members.csv"
    path.write_bytes(f"{HEADER}\rA-1,{FIELDS}\rA-2,{FIELDS}\r".encode())
    assert read_members(path)["member_id"].tolist() == ["A-1", "A-2"]


@pytest.mark.parametrize("text", [b"", b"\n", b"  \r\n\n\t\n"])
def test_an_empty_member_file_is_said_to_be_empty(text, tmp_path, half_percent_guides):
    # A 0-byte file was "missing required column(s) [all eight] ... given: []".
    path = tmp_path / "members.csv"
    path.write_bytes(text)
    message = f"{path}: the file is empty: a member file starts with its header, " + ",".join(
        MEMBER_FIELDS
    )
    with pytest.raises(MemberFileError) as raised:
        run_batch(path, half_percent_guides, tmp_path / "out.csv", progress=False)
    assert str(raised.value) == message
    assert not (tmp_path / "out.csv").exists()


@pytest.mark.parametrize("bom", ["", "\ufeff"])
@pytest.mark.parametrize("end", ["", "\n", "\r\n"])
def test_a_file_of_a_header_alone_has_no_member_with_or_without_a_line_break(
    half_percent_guides, tmp_path, bom, end
):
    # Without a line break after the header, Arrow read no columns: "cannot read the member
    # file (CSV parse error: Empty CSV file or block: ...)"; with one, no members.
    source = tmp_path / "members.csv"
    source.write_text(bom + HEADER + end, encoding="utf-8")
    assert read_members(source).empty
    summary = run_batch(source, half_percent_guides, tmp_path / "out.csv", AS_OF, progress=False)
    assert summary.members == 0
    assert pd.read_csv(tmp_path / "out.csv").empty
    if end:  # a last row without a line break is read
        source.write_text(bom + HEADER + end + f"M-1,{FIELDS}", encoding="utf-8")
        assert list(read_members(source)["member_id"]) == ["M-1"]


def test_a_line_of_white_space_is_skipped_as_an_empty_line_is(half_percent_guides, tmp_path):
    # An empty line was skipped but a line of spaces refused the whole file ("line 3 has 1
    # cell, the header 8"). Neither is a row: the rows after them keep their data numbers.
    source = tmp_path / "members.csv"
    source.write_text(
        f"{HEADER}\nA-1,{FIELDS}\n\n   \n\t\r\nA-2,{FIELDS}\n \nA-3,{FIELDS}\n", encoding="utf-8"
    )
    assert list(read_members(source)["member_id"]) == ["A-1", "A-2", "A-3"]
    run_batch(source, half_percent_guides, tmp_path / "out.csv", AS_OF, progress=False)
    rows = pd.read_csv(tmp_path / "out.csv")[["row", "member_id"]].drop_duplicates()
    assert rows.values.tolist() == [[1, "A-1"], [2, "A-2"], [3, "A-3"]]
    source.write_text(f"{HEADER}\nA-1,{FIELDS}\n  \nA-2,1958-06-15\n", encoding="utf-8")
    with pytest.raises(MemberFileError, match=r"\(line 4 has 2 cells, the header 8\)$"):
        read_members(source)
