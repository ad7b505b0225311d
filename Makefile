# The two commands a fresh machine needs: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/pip install --quiet -e '.[dev,openspiel]'
	touch $(STAMP)

# A round-robin of every built-in bot (demo-sized search budgets) on every registered game mode,
# stored in results/arena.db; 60 s of play shared between the modes, then the leaderboards.
# Run it again and the new games add to the same ratings.
demo: $(STAMP)
	$(BIN)/arena tournament run all --bots builtin --format round-robin --rounds 3 --for 60s --no-standings
	$(BIN)/arena leaderboard

test: $(STAMP)
	$(BIN)/python -m pytest -q

bench: $(STAMP)
	$(BIN)/python bench/engine.py

clean:
	rm -rf $(VENV) build *.egg-info
