# The Botie workshop. Two commands matter: `make lab` and `make test`.
# Both create .venv on first use (and refresh it when pyproject.toml changes).

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.botie-installed
EXTRAS ?= notebooks,test
LAB_ARGS ?=
PRESENT_ARGS ?=
PYTEST_ARGS ?=
LESSON ?= 01
LEARNERS ?= 20
CLASSROOM_STAMP := $(VENV)/.botie-classroom

NOTEBOOKS := $(wildcard notebooks/*.ipynb notebooks/instructor/*.ipynb)
NBVAL := --nbval --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg
# One worker per core; loadscope keeps each notebook's cells (one kernel) and each test module on one worker.
WORKERS ?= auto
PARALLEL := -n $(WORKERS) --dist loadscope

MUTATION_ARGS ?=

.PHONY: help env lab test test-fast learner bench bench-extras check present lint mutation clean classroom-env publish-learner bench-class

help:
	@echo "make lab      open the workshop in JupyterLab (LAB_ARGS=--no-browser to pass flags)"
	@echo "make test     every test: unit, property, widget, notebooks (nbval), browser"
	@echo "make test-fast  the same without the real-browser tests (the quick loop while you work)"
	@echo "make learner  regenerate the learner notebooks from notebooks/instructor/"
	@echo "make bench    the benchmark report (make bench-extras first adds the LangChain peer row)"
	@echo "make mutation  mutmut over the library, one module at a time (MUTATION_ARGS=botie.context.budget for one)"
	@echo "make check    pre-flight: is this machine ready for the workshop? one table, a fix per failure"
	@echo "make present  LESSON=01: a lesson's panels without code, in Voila, for the projector"
	@echo "make publish-learner  commit the learner edition (no solutions) onto the branch 'learner' for nbgitpuller"
	@echo "make bench-class LEARNERS=20  simulated learners run every lesson through a local JupyterHub"

env: $(STAMP)

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[$(EXTRAS)]"
	@touch $(STAMP)

lab: $(STAMP)
	$(BIN)/python -m botie.lessons.lab notebooks $(LAB_ARGS)

test: $(STAMP) $(CLASSROOM_STAMP)
	$(BIN)/python -m pytest tests $(NBVAL) $(NOTEBOOKS) $(PARALLEL) $(PYTEST_ARGS)

# Everything but the real-browser tests and the JupyterHub test: unit, property, widget, strict nbval.
test-fast: $(STAMP)
	$(BIN)/python -m pytest tests --ignore=tests/browser --ignore=tests/classroom $(NBVAL) $(NOTEBOOKS) $(PARALLEL) $(PYTEST_ARGS)

learner: $(STAMP)
	$(BIN)/python -m botie.lessons.editions notebooks/instructor notebooks

bench: $(STAMP)
	$(BIN)/python -m bench

bench-extras: $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[$(EXTRAS),bench]"

check: $(STAMP)
	$(BIN)/python -m botie.lessons.preflight

present: $(STAMP)
	@$(BIN)/python -c "import voila" 2>/dev/null || $(BIN)/python -m pip install --quiet -e ".[$(EXTRAS),present]"
	$(BIN)/python -m botie.lessons.lab --present $(LESSON) $(PRESENT_ARGS)

# Mutation testing of the library (not the UI, not the lesson machinery), driven by the fast library
# tests; prints killed / timed out / survived per module and exits 1 on an unexplained survivor.
mutation: $(STAMP)
	$(BIN)/python -m tests.mutation $(MUTATION_ARGS)

# JupyterHub, the Python proxy and nbgitpuller (classroom/), for the hub test and bench-class.
classroom-env: $(CLASSROOM_STAMP)

$(CLASSROOM_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[$(EXTRAS),classroom]"
	@touch $(CLASSROOM_STAMP)

publish-learner:
	$(PYTHON) classroom/publish.py learner-branch

bench-class: $(CLASSROOM_STAMP)
	$(BIN)/python -m bench.classroom --learners $(LEARNERS)

lint: $(STAMP)
	$(BIN)/python -m ruff check botie tests bench

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis mutants
