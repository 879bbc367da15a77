"""Text files of the user (guides, law amendments, CSV life tables and scales) checked before
any parsing.

A file is read only if it is a regular file (links followed): a named pipe, a socket or a
device is refused before it is opened, and one put in its place meanwhile is never waited on.
It is read with a size limit (never more than the limit plus one byte), decoded as UTF-8
(a byte-order mark accepted: spreadsheets write one), and a TOML text is measured before the
parser sees it: its nesting depth (a dotted key counts one level per part: ``a.b.c = 1`` is
depth 3; each array or inline table one more) and its number of keys. So any file is
accepted or refused at once, in bounded time and memory.

Each check returns its problems as :class:`TextProblem` (line, when known, and message); the
caller names the file in its own error (``GuideError``, ``LawError``) with every other problem.

A number written in a CSV file read in Python (a guide's reduction.csv, a life table, an
improvement scale) is read by :func:`decimal_number` or :func:`whole_number`: a plain decimal
number in ASCII digits, as a member file's cell holds one (:data:`DECIMAL_NUMBER`, the grammar
Arrow casts to a float), never what only Python's ``float()`` and ``int()`` read: ``0.5_5``,
digits of other scripts (``٠.٥``), names (``inf``, ``nan``).
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from actuarial.output_files import special_kind, takes_paths

__all__ = [
    "BYTE_ORDER_MARK",
    "NOT_A_REGULAR_FILE",
    "DECIMAL_NUMBER",
    "PROBLEMS_SHOWN",
    "WHOLE_NUMBER",
    "TextProblem",
    "decimal_number",
    "decode_text",
    "more_problems",
    "not_a_file",
    "outside_strings",
    "read_bytes",
    "read_text",
    "toml_shape",
    "toml_shape_problems",
    "unique_files",
    "whole_number",
]

BYTE_ORDER_MARK = b"\xef\xbb\xbf"
# A decimal number as text (ASCII digits, an optional sign, point and exponent): the numbers
# Arrow casts text to float64 as, but the named ones (inf, nan); a regular expression of both
# Python and Arrow (RE2), which reads a member file's numbers by it.
DECIMAL_NUMBER = r"^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$"
WHOLE_NUMBER = r"^[+-]?[0-9]+$"
_DECIMAL_NUMBER, _WHOLE_NUMBER = re.compile(DECIMAL_NUMBER), re.compile(WHOLE_NUMBER)

# Problems of one of the user's files listed in an error; the others are counted.
PROBLEMS_SHOWN = 20


def more_problems(count: int) -> str:
    """The line after a file's first :data:`PROBLEMS_SHOWN` problems, of ``count`` in all."""
    return f"... and {count - PROBLEMS_SHOWN:,} more problem(s)"


@dataclass(frozen=True, slots=True)
class TextProblem:
    """A rule a file breaks: its line (None when it is the whole file) and the message."""

    line: int | None
    message: str


def decode_text(data: bytes, limit: int, kind: str) -> tuple[str | None, list[TextProblem]]:
    """``data`` as text, or None with the problem: more than ``limit`` bytes (``kind`` names
    the file's kind in the message) or not UTF-8 (with the line of the first bad byte)."""
    if len(data) > limit:
        return None, [TextProblem(None, f"larger than the limit of {limit:,} bytes for {kind}")]
    data = data.removeprefix(BYTE_ORDER_MARK)
    try:
        return data.decode("utf-8"), []
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        return None, [
            TextProblem(
                line,
                f"not UTF-8 text (byte 0x{data[error.start]:02x} at offset {error.start}); "
                "save the file as UTF-8",
            )
        ]


NOT_A_REGULAR_FILE = "not a regular file"  # what cannot be named: /dev/stdin on a pipe


@takes_paths("path")
def not_a_file(path) -> str | None:
    """Why ``path`` (links followed) is no file to read, said without opening it: ``"a named
    pipe, not a file"`` (a socket, a device: :func:`~actuarial.output_files.special_kind`), or
    :data:`NOT_A_REGULAR_FILE`; None for a file, a folder (opening it says so) or nothing."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    kind = special_kind(Path(os.path.realpath(path)))
    return NOT_A_REGULAR_FILE if kind is None else f"{kind}, not a file"


# Flags of POSIX only (Windows has no named pipe on a path, nor a controlling terminal).
_NO_WAITING = getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)


def _opened_without_waiting(path: str, flags: int) -> int:
    """``os.open`` that never waits on a pipe nor takes a terminal (a file read is the same)."""
    return os.open(path, flags | _NO_WAITING)


@takes_paths("path")
def read_bytes(path, limit: int) -> tuple[bytes | None, list[TextProblem]]:
    """At most ``limit + 1`` bytes of the file at ``path`` (enough to tell it is too large), or
    None with the problem: the file cannot be read, or is no file (:func:`not_a_file`)."""
    reason = not_a_file(path)
    if reason is None:
        try:
            with open(path, "rb", opener=_opened_without_waiting) as handle:
                if stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                    return handle.read(limit + 1), []
            reason = not_a_file(path) or NOT_A_REGULAR_FILE  # put in its place meanwhile
        except OSError as error:
            reason = error.strerror or str(error)
    return None, [TextProblem(None, f"cannot read ({reason})")]


@takes_paths("path")
def read_text(path, limit: int, kind: str) -> tuple[str | None, list[TextProblem]]:
    """The text of the file at ``path`` (:func:`read_bytes`), or None with the problem:
    unreadable, too large or not UTF-8 (:func:`decode_text`)."""
    data, problems = read_bytes(path, limit)
    return (None, problems) if data is None else decode_text(data, limit, kind)


def _skip_string(text: str, start: int) -> int:
    """The position after the TOML string opening at ``start`` (or the end of its line)."""
    quote = text[start]
    closing = quote * 3 if text.startswith(quote * 3, start) else quote
    position = start + len(closing)
    while position < len(text):
        if quote == '"' and text[position] == "\\":
            position += 2
            continue
        if text.startswith(closing, position):
            return position + len(closing)
        if len(closing) == 1 and text[position] == "\n":
            return position
        position += 1
    return position


def toml_shape(text: str, max_depth: int) -> tuple[int, int | None, int]:
    """(deepest nesting, the first line nested deeper than ``max_depth``, number of keys) of
    TOML text, without parsing it.

    The depth is that of the tables and arrays the text builds, the document being level
    1: a dotted key counts one level a part, its table header's parts included
    (``a.b.c = 1`` is 3; ``k = 1`` under ``[a.b]`` is 3, under ``[[a.b]]`` 4), and every
    array or inline table one more. A table header counts as a key. Strings and comments are
    skipped; malformed text is only measured (the parser reports it).
    """
    deepest, deepest_line, keys = 1, None, 0
    table_level = 1  # the level of the table that keys outside brackets belong to
    stack: list[tuple[str, int]] = []  # open brackets of values: (kind, level)
    next_level = 2  # the level of a bracket opened now
    expect_key = True
    line = 1
    position, length = 0, len(text)

    def reached(depth):
        nonlocal deepest, deepest_line
        if depth > deepest:
            deepest = depth
            if deepest_line is None and depth > max_depth:
                deepest_line = line

    def dotted_parts(end: int, stops: str) -> tuple[int, int]:
        parts = 1
        while end < length and text[end] not in stops:
            if text[end] in "\"'":
                end = _skip_string(text, end)
                continue
            parts += text[end] == "."
            end += 1
        return end, parts

    while position < length:
        char = text[position]
        if char == "\n":
            line += 1
            position += 1
            expect_key = expect_key or not stack
            continue
        if char in " \t\r":
            position += 1
            continue
        if char == "#":
            end = text.find("\n", position)
            position = length if end < 0 else end
            continue
        if expect_key and not stack and char == "[":  # a table header: [a.b] or [[a.b]]
            end, parts = dotted_parts(position, "]\n")
            table_level = 1 + parts + text.startswith("[[", position)
            keys += 1
            reached(table_level)
            expect_key = False
            position = end
            continue
        if expect_key and char not in "[]{},":  # a key, perhaps dotted, up to "="
            end, parts = dotted_parts(position, "=\n}")
            owner = stack[-1][1] if stack else table_level
            keys += 1
            reached(owner + parts - 1)
            next_level = owner + parts
            expect_key = False
            position = end + 1 if end < length and text[end] == "=" else end
            continue
        if char in "\"'":
            line += text.count("\n", position, end := _skip_string(text, position))
            position = end
            continue
        if char in "[{":
            stack.append((char, next_level))
            reached(next_level)
            if char == "[":
                next_level += 1
            expect_key = char == "{"
        elif char in "]}" and stack:
            stack.pop()
            expect_key = False  # a value ended: a key comes after "," or a newline
            if stack and stack[-1][0] == "[":
                next_level = stack[-1][1] + 1
        elif char == "," and stack and stack[-1][0] == "{":
            expect_key = True
        position += 1
    return deepest, deepest_line, keys


_STRING_COMMENT_OR_LINE = re.compile(r"[\"'#\n]")


def outside_strings(text: str) -> Iterator[tuple[int, str]]:
    """Each line of a TOML text with its number (from 1; lines end at "\\n" alone, as
    TOML's do), but the lines that begin inside a multi-line string: where a key or a table
    header can be. Strings are read as :func:`toml_shape` reads them (escapes, quotes of the
    other kind, a comment's quotes ignored)."""
    inside: set[int] = set()
    line, position = 1, 0
    while (found := _STRING_COMMENT_OR_LINE.search(text, position)) is not None:
        position = found.start()
        if text[position] == "\n":
            line, position = line + 1, position + 1
        elif text[position] == "#":
            end = text.find("\n", position)
            position = len(text) if end < 0 else end
        else:
            end = _skip_string(text, position)
            breaks = text.count("\n", position, end)
            inside.update(range(line + 1, line + 1 + breaks))
            line, position = line + breaks, end
    for number, content in enumerate(text.split("\n"), start=1):
        if number not in inside:
            yield number, content


def toml_shape_problems(text: str, max_depth: int, max_keys: int) -> list[TextProblem]:
    """Every limit of :func:`toml_shape` the text breaks (none: it may be parsed)."""
    depth, depth_line, keys = toml_shape(text, max_depth)
    problems = []
    if depth > max_depth:
        problems.append(
            TextProblem(
                depth_line,
                f"nested deeper than the limit of {max_depth} levels (a dotted key counts one "
                f"level a part; reached {depth:,})",
            )
        )
    if keys > max_keys:
        problems.append(TextProblem(None, f"more than {max_keys} keys (got {keys:,})"))
    return problems


def decimal_number(text: str) -> float | None:
    """The number a file's cell holds: a plain decimal number (:data:`DECIMAL_NUMBER`), white
    space around it trimmed as a member file's cell is (``' 0.55 '``); the float nearest it
    (infinite beyond a float's range: ``1e400``), or None for any other text."""
    text = text.strip()
    return float(text) if _DECIMAL_NUMBER.fullmatch(text) else None


def whole_number(text: str) -> int | None:
    """The whole number a file's cell holds (ASCII digits, an optional sign, white space
    around trimmed), or None for any other text, and for one of more digits than Python
    reads (``sys.get_int_max_str_digits()``)."""
    text = text.strip()
    if not _WHOLE_NUMBER.fullmatch(text):
        return None
    try:
        return int(text)
    except ValueError:  # beyond Python's digits
        return None


@takes_paths("files")
def unique_files(files) -> tuple[Path, ...]:
    """The paths of ``files``, each once, in the order first read."""
    return tuple(dict.fromkeys(Path(file) for file in files))
