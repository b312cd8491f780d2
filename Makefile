# The Botie workshop. Two commands matter: `make lab` and `make test`.
# Both create .venv on first use, installing the exact versions in the lock
# (requirements/workshop.txt), and refresh it when the lock or pyproject.toml changes.

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.botie-installed
# The lock `make env` installs (runtime + notebooks + test); `make lock` rewrites requirements/*.txt.
LOCK   := requirements/workshop.txt
LAB_ARGS ?=
PRESENT_ARGS ?=
PYTEST_ARGS ?=
LESSON ?= 01
LEARNERS ?= 20
CLASSROOM_STAMP := $(VENV)/.botie-classroom

NOTEBOOKS := $(wildcard notebooks/*.ipynb notebooks/instructor/*.ipynb)
# pyproject's addopts leave the nbval plugin out (it slows every start); the notebook targets load it here.
NBVAL := -p nbval --nbval --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg
# One worker per core; loadscope keeps each notebook's cells (one kernel) and each test module on one worker.
WORKERS ?= auto
PARALLEL := -n $(WORKERS) --dist loadscope
# The quick loop (no real browser): `make test-fast`, and `make test-pythons` on each supported Python.
FAST_TESTS := tests --ignore=tests/browser --ignore=tests/classroom $(NBVAL) $(NOTEBOOKS) $(PARALLEL) $(PYTEST_ARGS)
# The library's own tests (context, actions, the turn, the model seam, errors, the public API and the
# layering): no notebooks, no widgets, no browser. The loop while changing botie/ outside botie/lessons.
LIB_TESTS := tests/context tests/actions $(wildcard tests/test_turn*.py) tests/test_model.py tests/test_errors.py \
	tests/test_shared_checks.py tests/test_api.py tests/test_import.py tests/test_layout.py \
	tests/test_strategies.py tests/test_adapters.py
# Install a lock file into .venv (hash-checked; pip changes only what differs). --no-compile halves
# the first start: Python compiles each module when it is first imported, and most never are.
INSTALL_LOCK := $(BIN)/python -m pip install --quiet --no-compile --require-hashes -r

MUTATION_ARGS ?=

.PHONY: help env lock lab test test-fast test-lib test-pythons learner bench bench-extras check present lint mutation clean classroom-env publish-learner bench-class

help:
	@echo "make lab      open the workshop in JupyterLab (LAB_ARGS=--no-browser to pass flags)"
	@echo "make test     every test: unit, property, widget, notebooks (nbval), browser"
	@echo "make test-fast  the same without the real-browser tests (the quick loop while you work)"
	@echo "make test-lib  the library's tests only (no notebooks, widgets or browser); seconds, not minutes"
	@echo "make test-pythons  the fast tests and nbval on Python 3.10 and 3.13 (nox)"
	@echo "make lock     re-resolve requirements/*.txt and environment.yml after pyproject.toml changes"
	@echo "make learner  regenerate the learner notebooks from notebooks/instructor/"
	@echo "make bench    the benchmark report (make bench-extras first adds the LangChain peer row)"
	@echo "make mutation  mutmut over the library, one module at a time (MUTATION_ARGS=botie.context.budget for one)"
	@echo "make lint     ruff check, ruff format --check and mypy, as CI runs them before the tests"
	@echo "make check    pre-flight: is this machine ready for the workshop? one table, a fix per failure"
	@echo "make present  LESSON=01: a lesson's panels without code, in Voila, for the projector"
	@echo "make publish-learner  commit the learner edition (no solutions) onto the branch 'learner' for nbgitpuller"
	@echo "make bench-class LEARNERS=20  simulated learners run every lesson through a local JupyterHub"

env: $(STAMP)

# Short progress lines: the first start is quiet for about half a minute otherwise.
$(STAMP): pyproject.toml $(LOCK) requirements/pip.txt
	@test -x $(BIN)/python || { echo "botie: creating the environment in $(VENV)/ (first time only)"; \
		$(PYTHON) -m venv $(VENV); }
	@echo "botie: installing pip $$(sed -n 's/^pip==\([^ ]*\).*/\1/p' requirements/pip.txt), the installer the lock names"
	@$(INSTALL_LOCK) requirements/pip.txt
	@echo "botie: installing up to $$(grep -oE '^[A-Za-z0-9][A-Za-z0-9._-]*==' $(LOCK) | sort -u | wc -l | tr -d ' ') \
	packages pinned in $(LOCK), each checked against its hash"
	@$(INSTALL_LOCK) $(LOCK)
	@echo "botie: installing the workshop package itself (editable, from this folder)"
	@PYTHONWARNINGS="ignore:Editable installation" $(BIN)/python -m pip install --quiet --no-deps -e .
	@touch $(STAMP)
	@echo "botie: environment ready in $(VENV)/"

# Re-resolve every lock file and environment.yml's pins (uv, installed into .venv on first use).
# Needs only a Python, not a working environment: re-run it after a merge, even over conflict markers.
lock:
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m tools.lockfile $(if $(UPGRADE),--upgrade)

lab: $(STAMP)
	@echo "botie: starting JupyterLab on notebooks/ (stop it with Ctrl-C)"
	@$(BIN)/python -m botie.lessons.tooling.lab notebooks $(LAB_ARGS)

test: $(STAMP) $(CLASSROOM_STAMP)
	$(BIN)/python -m pytest tests $(NBVAL) $(NOTEBOOKS) $(PARALLEL) $(PYTEST_ARGS)

# Everything but the real-browser tests and the JupyterHub test: unit, property, widget, strict nbval.
test-fast: $(STAMP)
	$(BIN)/python -m pytest $(FAST_TESTS)

test-lib: $(STAMP)
	$(BIN)/python -m pytest $(LIB_TESTS) $(PYTEST_ARGS)

# The fast tests and strict nbval on the oldest and newest supported Python (noxfile.py finds them),
# each in a fresh environment installed from the lock.
test-pythons: $(STAMP)
	@$(BIN)/python -c "import nox" 2>/dev/null || $(INSTALL_LOCK) requirements/pythons.txt
	$(BIN)/python -m nox --noxfile noxfile.py -- $(FAST_TESTS)

learner: $(STAMP)
	$(BIN)/python -m botie.lessons.tooling.editions notebooks/instructor notebooks

bench: $(STAMP)
	$(BIN)/python -m bench

bench-extras: $(STAMP)
	$(INSTALL_LOCK) requirements/bench.txt

check: $(STAMP)
	$(BIN)/python -m botie.lessons.tooling.preflight

present: $(STAMP)
	@$(BIN)/python -c "import voila" 2>/dev/null || $(INSTALL_LOCK) requirements/present.txt
	$(BIN)/python -m botie.lessons.tooling.lab --present $(LESSON) $(PRESENT_ARGS)

# Mutation testing of the library (not the UI, not the lesson machinery), driven by the fast library
# tests; prints killed / timed out / survived per module and exits 1 on an unexplained survivor.
mutation: $(STAMP)
	$(BIN)/python -m tools.mutation $(MUTATION_ARGS)

# JupyterHub, the Python proxy and nbgitpuller (classroom/), for the hub test and bench-class.
classroom-env: $(CLASSROOM_STAMP)

$(CLASSROOM_STAMP): $(STAMP) requirements/classroom.txt
	$(INSTALL_LOCK) requirements/classroom.txt
	@touch $(CLASSROOM_STAMP)

publish-learner:
	$(PYTHON) classroom/publish.py learner-branch

bench-class: $(CLASSROOM_STAMP)
	$(BIN)/python -m bench.classroom --learners $(LEARNERS)

# The style checks CI runs before the tests: lint, formatting, types (mypy reads its paths and its
# strict and looser parts from pyproject.toml). .pre-commit-config.yaml runs the same three commands;
# tests/test_lint.py fails if the two drift apart.
LINT_PATHS := botie tests bench tools classroom noxfile.py

lint: $(STAMP)
	$(BIN)/python -m ruff check $(LINT_PATHS)
	$(BIN)/python -m ruff format --check $(LINT_PATHS)
	$(BIN)/python -m mypy

clean:
	rm -rf $(VENV) .nox .pytest_cache .hypothesis .mypy_cache mutants
