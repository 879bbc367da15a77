"""Output files written safely: never over an input, never half-written, never mixed.

Every command that writes a file goes through :func:`writing`:

- the output may not be an input (the same path, a symbolic link to it or a hard link to
  it): refused before anything is read; an output folder that a command empties (the
  report's) may not hold one (:func:`check_output_folder`);
- the run writes into a temporary file of its own, hidden and recognisably ours
  (``.<name>.actuarial-partial-<random>``, in the output's folder), and renames it onto the
  output atomically only when it is complete. Two runs on one output never share a file and
  never wait on each other: the output is always one complete run (the last to finish);
- a run that fails or is interrupted (Ctrl-C, SIGTERM) removes its temporary file and
  leaves the previous output as it was; a run killed outright (SIGKILL) may leave its
  temporary file, which the next run on the same output removes. A run holds an advisory
  lock (``flock``) on its temporary file while it writes, so only the temporary files of
  dead runs are removed;
- every failure of the file system is an :class:`OutputFileError`: one line naming the
  path and the reason, worded by :func:`cannot_write` (as the command line words one that
  reaches it);
- with ``replace=False`` an existing output is never replaced, not even one that appears
  while the run writes: the complete file is linked onto the output's name, which fails if
  the name is taken (:class:`OutputExistsError`).

The rename protects against an interrupted process, not against a power cut (no fsync).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
import signal
from collections.abc import Iterable, Iterator
from pathlib import Path

__all__ = [
    "TEMPORARY_MARK",
    "OutputExistsError",
    "OutputFileError",
    "cannot_write",
    "check_output",
    "check_output_folder",
    "remove_stale_temporaries",
    "temporary_files",
    "writing",
]

TEMPORARY_MARK = ".actuarial-partial-"


class OutputFileError(ValueError):
    """An output cannot be written (it is an input, a folder, or the file system refused)."""


class OutputExistsError(OutputFileError):
    """The output exists and the run was told not to replace it."""

    def __init__(self, path) -> None:
        super().__init__(f"{path}: exists; refused: it would be replaced")


def cannot_write(path, reason: OSError | str) -> str:
    """``<path>: cannot write (<reason>)``: the one wording of an output that cannot be
    written, the reason an OSError's (``No space left on device``) or given."""
    if isinstance(reason, OSError):
        reason = reason.strerror or str(reason) or type(reason).__name__
    return f"{path}: cannot write ({reason})"


def _temporary_prefix(out: Path) -> str:
    return f".{out.name}{TEMPORARY_MARK}"


def temporary_files(out) -> list[Path]:
    """The temporary files of runs writing ``out`` (live or dead) in its folder."""
    out = Path(out)
    prefix = _temporary_prefix(out)
    try:
        return sorted(p for p in out.parent.iterdir() if p.name.startswith(prefix))
    except OSError:
        return []


def _first_existing(path: Path) -> Path:
    for candidate in (path, *path.parents):
        if os.path.lexists(candidate):
            return candidate
    return Path(".")


def check_output(out, inputs: Iterable = (), kind: str = "file") -> None:
    """Refuse an output that is an input, a folder (or a file, for ``kind="folder"``), or
    whose parent is not a folder; nothing is read or written here."""
    out = Path(out)
    for source in inputs:
        if source is None:
            continue
        try:
            same = os.path.samefile(out, source)
        except OSError:
            same = False
        if same or os.path.abspath(out) == os.path.abspath(source):
            raise OutputFileError(
                f"{out}: the output is the input {source} (the same file, or a link to it); "
                "refused: it would be replaced"
            )
    if kind == "file" and out.is_dir():
        raise OutputFileError(f"{out}: the output is a folder; a file is expected")
    if kind == "folder" and out.exists() and not out.is_dir():
        raise OutputFileError(f"{out}: the output is a file; a folder is expected")
    existing = _first_existing(out.parent)
    if not existing.is_dir():
        raise OutputFileError(cannot_write(out, f"{existing} is not a folder"))


def check_output_folder(folder, inputs: Iterable = ()) -> None:
    """Refuse an output folder that is an input or holds one at any depth (links resolved):
    for a command that empties the folder before it writes, nothing it reads may be there."""
    inside = os.path.realpath(folder)
    for source in inputs:
        if source is None:
            continue
        real = os.path.realpath(source)
        if os.path.commonpath([real, inside]) == inside:
            raise OutputFileError(
                f"{folder}: the output folder holds the input {source}; refused: it would be "
                "replaced"
            )


def remove_stale_temporaries(out) -> list[Path]:
    """Remove the temporary files of dead runs on ``out`` (no live run holds their lock)."""
    removed = []
    for candidate in temporary_files(out):
        try:
            descriptor = os.open(candidate, os.O_RDONLY | os.O_NOFOLLOW)
        except OSError:
            continue
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # a live run holds it
            os.close(descriptor)
            continue
        try:
            if os.stat(candidate, follow_symlinks=False).st_ino == os.fstat(descriptor).st_ino:
                os.unlink(candidate)
                removed.append(candidate)
        except OSError:
            pass
        finally:
            os.close(descriptor)
    return removed


def _create_locked(out: Path) -> tuple[Path, int]:
    """A new temporary file beside ``out``, locked by this run (descriptor kept open)."""
    while True:
        temporary = out.with_name(_temporary_prefix(out) + secrets.token_hex(8))
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        try:  # another run may have taken it for stale before the lock: then start again
            if os.stat(temporary).st_ino == os.fstat(descriptor).st_ino:
                return temporary, descriptor
        except FileNotFoundError:
            pass
        os.close(descriptor)


@contextlib.contextmanager
def _signals_held():
    """Ctrl-C and SIGTERM held back while the renames complete (then delivered)."""
    held = {signal.SIGINT, signal.SIGTERM}
    try:
        previous = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    except (AttributeError, ValueError, OSError):
        yield
        return
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


@contextlib.contextmanager
def writing(outs, inputs: Iterable = (), replace: bool = True) -> Iterator[list[Path]]:
    """Temporary paths to write ``outs`` through; renamed onto them when the block ends well.

    ``outs`` is one path or a list (a guide's two files): all are renamed together, with
    Ctrl-C held back, so an interruption never leaves some new and some old. On an error
    or an interruption every temporary file is removed and the outputs are untouched.
    Raises :class:`OutputFileError` (one line naming the path) for any file-system failure
    here, including one raised inside the block. ``replace=False`` (one output only): an
    existing output is left as it is and :class:`OutputExistsError` raised, checked before
    the block and again, atomically, when the file is put in place.
    """
    single = isinstance(outs, str | os.PathLike)
    outs = [Path(outs)] if single else [Path(o) for o in outs]
    inputs = list(inputs)
    if not replace and len(outs) != 1:
        raise ValueError(f"replace=False writes one output (got {len(outs)})")
    for out in outs:
        check_output(out, inputs)
        if not replace and os.path.lexists(out):
            raise OutputExistsError(out)
    created: list[tuple[Path, int]] = []
    current = outs[0]
    try:
        for current in outs:
            current.parent.mkdir(parents=True, exist_ok=True)
            remove_stale_temporaries(current)
            created.append(_create_locked(current))
        yield created[0][0] if single else [temporary for temporary, _ in created]
        with _signals_held():
            for out, (temporary, _) in zip(outs, created, strict=True):
                current = out
                if replace:
                    os.replace(temporary, out)
                    continue
                try:  # fails if the name is taken: never over a file that appeared meanwhile
                    os.link(temporary, out)
                except FileExistsError:
                    raise OutputExistsError(out) from None
    except OSError as error:
        raise OutputFileError(cannot_write(current, error)) from error
    finally:
        for temporary, descriptor in created:
            with contextlib.suppress(OSError):
                os.unlink(temporary)  # gone already when it was renamed
            os.close(descriptor)

