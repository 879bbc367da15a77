"""The command line's entry point: ``actuarial`` and ``python -m actuarial``.

Ctrl-C while the command line loads (its modules: a fraction of a second) ends as Ctrl-C
during a command does (:func:`interrupted`), not with a traceback. Output that cannot be
written (a full disk behind ``> file``) is one ``error:`` line, and text a terminal's
encoding lacks is written as ``\\u2713`` escapes (valid in JSON too), never a traceback.
"""

from __future__ import annotations

import codecs
import contextlib
import sys


def interrupted() -> None:
    """End a run that Ctrl-C stopped: one ``error:`` line and exit 130 (128 + SIGINT)."""
    print("error: interrupted", file=sys.stderr)
    sys.exit(130)


def _escape_what_the_encoding_lacks() -> None:
    """Standard output and error in an encoding other than UTF-8 (a Windows console or a
    redirection in cp1252, a latin-1 locale) write what it lacks as backslash escapes."""
    for stream in (sys.stdout, sys.stderr):
        encoding = getattr(stream, "encoding", None)
        if encoding and codecs.lookup(encoding).name != "utf-8" and hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")


def _output_failed(message: str) -> None:
    """End a run whose output could not be written: one ``error:`` line if standard error
    takes it, and exit 1."""
    with contextlib.suppress(OSError):
        print(f"error: {message}", file=sys.stderr, flush=True)
    sys.exit(1)


def main() -> None:
    _escape_what_the_encoding_lacks()
    try:
        from actuarial.cli import cli
        from actuarial.output_files import OutputFailed
    except KeyboardInterrupt:
        interrupted()
    try:
        cli(prog_name="actuarial")
    except OutputFailed as error:
        _output_failed(str(error))
    except OSError as error:  # click's own output (help, version, usage) on no file
        if error.filename is not None:
            raise
        _output_failed(str(OutputFailed("standard output", error)))


if __name__ == "__main__":
    main()
