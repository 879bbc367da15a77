# One command each: every target creates and fills .venv by itself on a fresh machine.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: test report screens notebooks bench bench-quick lab lint clean

# Each target installs what it needs into .venv: the package (editable) with the extras of
# pyproject.toml that target uses. One stamp per set of extras; a change to pyproject.toml
# re-installs.
$(VENV)/.created:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	touch $@

# [dev,report]: make test (ruff, pytest, nbval, the packaging test), make notebooks
$(STAMP): pyproject.toml | $(VENV)/.created
	$(BIN)/pip install --quiet -e '.[dev,report]'
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 >/dev/null
	touch $@

# [report]: make report
$(VENV)/.installed-report: pyproject.toml | $(VENV)/.created
	$(BIN)/pip install --quiet -e '.[report]'
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 >/dev/null
	touch $@

# [report,bench]: make bench (the peers; the benchmarks' provenance uses actuarial.report)
$(VENV)/.installed-bench: pyproject.toml | $(VENV)/.created
	$(BIN)/pip install --quiet -e '.[report,bench]'
	touch $@

# [report,lab]: make lab (JupyterLab; the notebooks import the [report] packages)
$(VENV)/.installed-lab: pyproject.toml | $(VENV)/.created
	$(BIN)/pip install --quiet -e '.[report,lab]'
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 >/dev/null
	touch $@

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# pytest runs one test file per processor at a time (pytest-xdist; a file's fixtures are made
# once), the slow files first (tests/conftest.py orders them), so they run beside the others.
test: lint
	HYPOTHESIS_PROFILE=repeatable $(BIN)/pytest -n auto --dist loadfile --no-loadscope-reorder tests
	$(BIN)/pytest --nbval notebooks --nbval-sanitize-with notebooks/sanitize.cfg -p no:cacheprovider

report: $(VENV)/.installed-report
	$(BIN)/actuarial report --out build/report

# The report's pages as a reader sees them (headless chromium): build/report-screens/NN_*.png.
screens: report $(STAMP)  # tests/browser.py drives chromium with playwright ([dev])
	$(BIN)/python tests/browser.py build/report build/report-screens

# Execute notebooks in place and normalize them (all, or one: make notebooks NB=notebooks/03_inciso_c.ipynb).
notebooks: $(STAMP)
	$(BIN)/python notebooks/normalize.py $(NB)

bench: $(VENV)/.installed-bench
	$(BIN)/python benchmarks/run.py

bench-quick: $(VENV)/.installed-bench
	$(BIN)/python benchmarks/run.py --quick

lab: $(VENV)/.installed-lab
	$(BIN)/jupyter lab notebooks

clean:
	rm -rf $(VENV) build
