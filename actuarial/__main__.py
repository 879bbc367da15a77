"""The command line's entry point: ``actuarial`` and ``python -m actuarial``.

Ctrl-C while the command line loads (its modules: a fraction of a second) ends as Ctrl-C
during a command does (:func:`interrupted`), not with a traceback.
"""

from __future__ import annotations

import sys


def interrupted() -> None:
    """End a run that Ctrl-C stopped: one ``error:`` line and exit 130 (128 + SIGINT)."""
    print("error: interrupted", file=sys.stderr)
    sys.exit(130)


def main() -> None:
    try:
        from actuarial.cli import cli
    except KeyboardInterrupt:
        interrupted()
    cli(prog_name="actuarial")


if __name__ == "__main__":
    main()
