"""Execute notebooks in place and strip run-to-run noise, so that diffs stay reviewable.

    python notebooks/normalize.py                         # every notebooks/NN_*.ipynb
    python notebooks/normalize.py notebooks/03_inciso_c.ipynb

Each notebook runs top to bottom with its own `parameters` cell (working directory: this
folder, kernel python3); then actuarial.report.normalize_notebook keeps the outputs, numbers
the code cells 1, 2, 3, ... in order (a null count with outputs reads as "never run" to
nbval), keeps only the kernelspec and the language name in the notebook metadata and only
`tags` in cell metadata, and numbers cell ids cell-00, cell-01, ...
(`make notebooks` or `make notebooks NB=notebooks/03_inciso_c.ipynb`).
"""

import argparse
import sys
from pathlib import Path

from actuarial.report import ReportError, execute_in_place, notebook_paths


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", type=Path, help="default: all of notebooks/")
    parser.add_argument("--timeout", type=int, default=600, help="seconds per cell")
    arguments = parser.parse_args()
    paths = arguments.notebooks or notebook_paths(Path(__file__).resolve().parent)
    failed = 0
    for path in paths:
        try:
            changed = execute_in_place(path, timeout=arguments.timeout)
        except ReportError as error:
            print(f"FAILED {path}\n{error}", file=sys.stderr)
            failed += 1
            continue
        print(f"{'updated' if changed else 'unchanged'}: {path}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
