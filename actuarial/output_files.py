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
  the name is taken (:class:`OutputExistsError`);
- a folder (the report's) is written the same way by :func:`writing_folder`: into a
  temporary folder beside it, exchanged with the previous folder in one step when it is
  complete (from inside it, for a folder that cannot be renamed).

The rename protects against an interrupted process, not against a power cut (no fsync).

No path a public function takes may be given as "" (:func:`takes_paths`): ``Path("")`` is
the current folder, which the call would read or write over.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import functools
import inspect
import os
import secrets
import shutil
import signal
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path

from actuarial import shipped

__all__ = [
    "EMPTY_PATH",
    "TEMPORARY_MARK",
    "EmptyPathError",
    "OutputExistsError",
    "OutputFailed",
    "OutputFileError",
    "cannot_write",
    "check_output",
    "check_output_folder",
    "check_paths",
    "package_folder_holding",
    "remove_stale_temporaries",
    "special_kind",
    "takes_paths",
    "temporary_files",
    "writing",
    "writing_folder",
]

TEMPORARY_MARK = ".actuarial-partial-"
PACKAGE = Path(os.path.realpath(__file__)).parent  # site-packages/actuarial, or the checkout's


# The rule of every path given, in Python (EmptyPathError) and on the command line alike.
EMPTY_PATH = "an empty path: give a file or folder ('.' for the current one)"


class EmptyPathError(ValueError):
    """A path given as "", which ``Path`` reads as the current folder: a call would read it,
    or write over it."""


def _empty_paths(value, name: str) -> Iterator[str]:
    """The names of the empty paths in ``value``: itself (``name``) when it is a path, each
    item (``name[i]``) of a list or tuple; anything else (a ``Law``, None) holds none."""
    if isinstance(value, list | tuple):
        for index, item in enumerate(value):
            yield from _empty_paths(item, f"{name}[{index}]")
    elif isinstance(value, str | bytes | os.PathLike) and os.fspath(value) in ("", b""):
        yield name


def check_paths(**paths) -> None:
    """Raise :class:`EmptyPathError` naming the first of ``paths`` (parameter name: a path,
    or a list of paths) that is "" (:func:`takes_paths` checks a function's on each call)."""
    for name, value in paths.items():
        for empty in _empty_paths(value, name):
            raise EmptyPathError(f"{empty!r} is {EMPTY_PATH}")


def takes_paths(*names: str):
    """Decorator of a public function whose parameters ``names`` take a path (or a list of
    paths): a call that gives one as "" raises :class:`EmptyPathError` naming it, before
    anything runs (:func:`check_paths`). The names are kept as ``path_parameters``."""

    def decorate(function):
        signature = inspect.signature(function)
        unknown = [name for name in names if name not in signature.parameters]
        if unknown:
            raise TypeError(f"{function.__qualname__} has no parameter {unknown}")
        # Where each is given: its place among the arguments (from there on for *args), or
        # by name; looked up on each call without binding the whole signature
        # (law_in_force runs in every evaluate).
        parameters = list(signature.parameters.values())
        places = tuple(
            (name, parameters.index(signature.parameters[name]), signature.parameters[name].kind)
            for name in names
        )

        @functools.wraps(function)
        def checked(*args, **kwargs):
            for name, place, kind in places:
                if kind is inspect.Parameter.VAR_POSITIONAL:
                    check_paths(**{name: args[place:]})
                elif kind is not inspect.Parameter.KEYWORD_ONLY and place < len(args):
                    check_paths(**{name: args[place]})
                elif name in kwargs:
                    check_paths(**{name: kwargs[name]})
            return function(*args, **kwargs)

        checked.path_parameters = names
        return checked

    return decorate


class OutputFailed(Exception):
    """The standard output or error cannot be written (a full disk, a device error): not a
    file a command writes, which :class:`OutputFileError` names."""

    def __init__(self, stream: str, error: OSError):
        super().__init__(f"{stream}: cannot write ({error.strerror or error})")


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


@takes_paths("out")
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


@takes_paths("out")
def check_output(
    out, inputs: Iterable = (), kind: str = "file", package_files: bool = False
) -> None:
    """Refuse an output that is an input, a folder (or a file, for ``kind="folder"``), one of
    the package's own files (unless ``package_files``: ``make notebooks`` rewrites the
    shipped notebooks), or whose parent is not a folder; nothing is read or written here."""
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
    owned = None if package_files else package_folder_holding(out)
    if owned is not None:
        raise OutputFileError(
            f"{out}: the output is inside the package's own files ({owned}); refused: they "
            "are never replaced or added to"
        )
    if kind == "file" and out.is_dir():
        raise OutputFileError(f"{out}: the output is a folder; a file is expected")
    special = special_kind(out)
    if special:
        raise OutputFileError(
            f"{out}: the output is {special}, not a file; refused: it would be replaced by one"
        )
    if kind == "folder" and out.exists() and not out.is_dir():
        raise OutputFileError(f"{out}: the output is a file; a folder is expected")
    existing = _first_existing(out.parent)
    if not existing.is_dir():
        raise OutputFileError(cannot_write(out, f"{existing} is not a folder"))


@takes_paths("path")
def package_folder_holding(path) -> Path | None:
    """The package's folder, or the shipped folder (guides, examples, notebooks, docs:
    outside it in a checkout), that holds ``path`` (links resolved); None when none does."""
    real = os.path.realpath(path)
    for folder in (PACKAGE, *shipped.PATHS):
        if os.path.commonpath([real, folder]) == str(folder):
            return folder
    return None


_SPECIAL_KINDS = {
    stat.S_IFIFO: "a named pipe",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
}


@takes_paths("path")
def special_kind(path: Path) -> str | None:
    """What ``path`` is when it is neither a file, a folder nor a link (itself, unfollowed);
    None when it is one of those or does not exist."""
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return None
    return _SPECIAL_KINDS.get(stat.S_IFMT(mode))


@takes_paths("folder")
def check_output_folder(folder, inputs: Iterable = (), guide_folders: Iterable = ()) -> None:
    """Refuse an output folder that is an input or holds one at any depth (links resolved):
    for a command that empties the folder before it writes, nothing it reads may be there;
    nor may it lie in a folder of ``guide_folders``, every folder of which is read as a guide
    (the next run on those guides would fail on it)."""
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
    for guides in guide_folders:
        real = os.path.realpath(guides)
        if os.path.commonpath([real, inside]) == real:
            raise OutputFileError(
                f"{folder}: the output folder is inside the guides folder {guides}, every "
                "folder of which is read as a guide; refused: choose a folder outside it"
            )


@takes_paths("out")
def remove_stale_temporaries(out) -> list[Path]:
    """Remove the temporary files (or folders) of dead runs on ``out`` (no live run holds
    their lock)."""
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
            found = os.fstat(descriptor)
            if os.stat(candidate, follow_symlinks=False).st_ino == found.st_ino:
                if stat.S_ISDIR(found.st_mode):
                    shutil.rmtree(candidate)
                else:
                    os.unlink(candidate)
                removed.append(candidate)
        except OSError:
            pass
        finally:
            os.close(descriptor)
    return removed


def _create_locked(out: Path, folder: bool = False) -> tuple[Path, int]:
    """A new temporary file (or folder) beside ``out``, locked by this run (descriptor kept
    open)."""
    while True:
        temporary = out.with_name(_temporary_prefix(out) + secrets.token_hex(8))
        if folder:
            os.mkdir(temporary, 0o777)
            try:
                descriptor = os.open(temporary, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
            except FileNotFoundError:  # taken for stale by another run before the lock
                continue
        else:
            descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:  # another run locked it first, to remove it as stale
            os.close(descriptor)
            continue
        try:  # another run may have taken it for stale before the lock: then start again
            if os.stat(temporary).st_ino == os.fstat(descriptor).st_ino:
                return temporary, descriptor
        except FileNotFoundError:
            pass
        os.close(descriptor)


def _failed_within(error: OSError, folder: Path) -> Path | None:
    """The path ``error`` names, relative to ``folder`` (both compared absolute: either may
    be given relative); None when it names no path, or one elsewhere."""
    if not isinstance(error.filename, str):
        return None
    named, within = Path(os.path.abspath(error.filename)), Path(os.path.abspath(folder))
    return named.relative_to(within) if named.is_relative_to(within) else None


def _names_another_path(error: OSError, temporaries: list[Path]) -> bool:
    """Whether ``error`` names a path outside the ``temporaries`` an output is written to
    (an input, a scratch folder): then it is not worded as a failure to write the output."""
    return isinstance(error.filename, str) and all(
        _failed_within(error, temporary) is None for temporary in temporaries
    )


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


@takes_paths("outs")
@contextlib.contextmanager
def writing(
    outs, inputs: Iterable = (), replace: bool = True, package_files: bool = False
) -> Iterator[list[Path]]:
    """Temporary paths to write ``outs`` through; renamed onto them when the block ends well.

    ``outs`` is one path or a list (a guide's two files): all are renamed together, with
    Ctrl-C held back, so an interruption never leaves some new and some old. On an error
    or an interruption every temporary file is removed and the outputs are untouched.
    Raises :class:`OutputFileError` (one line naming the path) for any file-system failure
    here, including one raised inside the block on a temporary path (or on no path); the
    block's ``OSError`` on another path (an input) is raised as it is. ``replace=False``
    (one output only): an existing output is left as it is and :class:`OutputExistsError`
    raised, checked before the block and again, atomically, when the file is put in place.
    ``package_files``: as :func:`check_output`.
    """
    single = isinstance(outs, str | os.PathLike)
    outs = [Path(outs)] if single else [Path(o) for o in outs]
    inputs = list(inputs)
    if not replace and len(outs) != 1:
        raise ValueError(f"replace=False writes one output (got {len(outs)})")
    for out in outs:
        check_output(out, inputs, package_files=package_files)
        if not replace and os.path.lexists(out):
            raise OutputExistsError(out)
    created: list[tuple[Path, int]] = []
    made: list[Path] = []  # the folders made for the outputs, removed again if none is written
    current, in_block, written = outs[0], False, False
    try:
        for current in outs:
            made += _missing_folders(current.parent)
            current.parent.mkdir(parents=True, exist_ok=True)
            remove_stale_temporaries(current)
            created.append(_create_locked(current))
        in_block = True
        yield created[0][0] if single else [temporary for temporary, _ in created]
        in_block = False
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
        written = True
    except OSError as error:
        if in_block and _names_another_path(error, [temporary for temporary, _ in created]):
            raise
        raise OutputFileError(cannot_write(current, error)) from error
    finally:
        for temporary, descriptor in created:
            with contextlib.suppress(OSError):
                os.unlink(temporary)  # gone already when it was renamed
            os.close(descriptor)
        for folder in [] if written else reversed(made):
            with contextlib.suppress(OSError):  # left if anything else is in it now
                folder.rmdir()


def _missing_folders(folder: Path) -> list[Path]:
    """The folders of ``folder``'s path that do not exist, outermost first."""
    missing = []
    while not os.path.lexists(folder) and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    return missing[::-1]


@takes_paths("out")
@contextlib.contextmanager
def writing_folder(out) -> Iterator[Path]:
    """A temporary folder to write the folder ``out`` into, put in its place whole when the
    block ends well; the previous folder, if any, is then removed.

    The temporary folder is hidden beside ``out`` and locked like a temporary file
    (:func:`writing`). On an error or an interruption it is removed and ``out`` is left as
    it was. The new folder takes the place of the previous one in one step (Linux's
    ``renameat2`` exchange); where the system cannot exchange two folders, the previous
    one is first moved aside (a run killed outright between the two renames leaves both as
    temporary folders, which the next run removes). A folder that cannot be renamed (a
    mount point, as a container's volume is), whose own folder may not be written, or that
    is the current folder (``--out .``: replaced, it would leave the shell that ran the
    command in a deleted folder, showing nothing) is
    written the same way from inside: the temporary folder is hidden in ``out``, and its
    entries take the place of the previous ones when it is complete. Raises
    :class:`OutputFileError` for any file-system failure, including an ``OSError`` raised
    inside the block on a path in the temporary folder (or on no path), naming the path in
    ``out`` that failed; the block's ``OSError`` on a path elsewhere is raised as it is.
    """
    out = Path(os.path.realpath(out) if os.path.islink(out) else out)  # a link's folder
    check_output(out, kind="folder")
    inside = out / out.name  # the temporary folders of a run writing from inside ``out``
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        temporary, descriptor, in_out = _temporary_folder(out, inside)
    except OSError as error:
        raise OutputFileError(cannot_write(out, error)) from error
    in_block = True
    try:
        yield temporary
        in_block = False
        with _signals_held():
            if in_out:
                _put_entries(temporary, out, inside)
            else:
                _put_folder(temporary, out)
    except OSError as error:  # named as the path in ``out`` it was to be
        if in_block and _names_another_path(error, [temporary]):
            raise
        failed = _failed_within(error, temporary)
        shown = out if failed is None else out / failed
        raise OutputFileError(cannot_write(shown, error)) from error
    finally:
        # The new folder's half, on an error; the previous folder, once exchanged.
        shutil.rmtree(temporary, ignore_errors=True)
        os.close(descriptor)


_AT_FDCWD, _RENAME_EXCHANGE = -100, 2  # <fcntl.h>, <linux/fs.h>


def _exchange(first: Path, second: Path) -> bool:
    """Exchange two existing paths in one step (``renameat2(RENAME_EXCHANGE)``); False where
    the system or its file system cannot."""
    renameat2 = getattr(ctypes.CDLL(None, use_errno=True), "renameat2", None)
    if renameat2 is None:
        return False
    done = renameat2(_AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second),
                     _RENAME_EXCHANGE)  # fmt: skip
    if done == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):
        return False
    raise OSError(code, os.strerror(code), str(second))


def _put_folder(temporary: Path, out: Path) -> None:
    """``temporary`` renamed to ``out``; a previous ``out`` left at ``temporary``."""
    if not os.path.lexists(out):
        os.rename(temporary, out)
    elif not _exchange(temporary, out):
        aside = out.with_name(_temporary_prefix(out) + secrets.token_hex(8))
        os.rename(out, aside)
        os.rename(temporary, out)
        os.rename(aside, temporary)  # removed with the temporary folder


def _temporary_folder(out: Path, inside: Path) -> tuple[Path, int, bool]:
    """A new temporary folder for ``out``, locked: beside it, or in it (True) when ``out``
    is a mount point, is the current folder or its own folder may not be written (named
    after ``inside``)."""
    if not os.path.ismount(out) and not _is_current_folder(out):
        remove_stale_temporaries(out)
        try:
            return (*_create_locked(out, folder=True), False)
        except PermissionError:
            pass
    out.mkdir(exist_ok=True)
    remove_stale_temporaries(inside)
    return (*_create_locked(inside, folder=True), True)


def _is_current_folder(out: Path) -> bool:
    """Whether ``out`` is the current folder (links followed)."""
    try:
        return os.path.samefile(out, os.curdir)
    except OSError:  # either is missing: no folder to keep
        return False


def _put_entries(temporary: Path, out: Path, inside: Path) -> None:
    """The entries of ``temporary`` (a folder in ``out``) moved into ``out``, in place of
    its own: those first moved into another temporary folder in ``out``, then removed.
    Temporary folders of runs writing ``out`` from inside (named after ``inside``) stay."""
    aside, descriptor = _create_locked(inside, folder=True)
    try:
        ours = _temporary_prefix(inside)
        for name in os.listdir(out):
            if not name.startswith(ours):
                os.rename(out / name, aside / name)
        for name in os.listdir(temporary):
            os.rename(temporary / name, out / name)
    finally:
        shutil.rmtree(aside, ignore_errors=True)
        os.close(descriptor)
