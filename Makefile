# One command each: every target creates and fills .venv by itself on a fresh machine.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: test report screens notebooks bench bench-quick lab lint clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev,bench]'
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 >/dev/null
	touch $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check .

test: lint
	$(BIN)/pytest tests
	$(BIN)/pytest --nbval notebooks --nbval-sanitize-with notebooks/sanitize.cfg -p no:cacheprovider

report: $(STAMP)
	$(BIN)/actuarial report --out build/report

# The report's pages as a reader sees them (headless chromium): build/report-screens/NN_*.png.
screens: report
	$(BIN)/python tests/browser.py build/report build/report-screens

# Execute notebooks in place and normalize them (all, or one: make notebooks NB=notebooks/03_inciso_c.ipynb).
notebooks: $(STAMP)
	$(BIN)/python notebooks/normalize.py $(NB)

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

bench-quick: $(STAMP)
	$(BIN)/python benchmarks/run.py --quick

lab: $(STAMP)
	$(BIN)/jupyter lab notebooks

clean:
	rm -rf $(VENV) build
