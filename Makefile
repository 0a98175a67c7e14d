# Every target creates .venv on first use, so a fresh clone needs only Python 3.11+ and make.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# What running needs (make run, make workshop), and on top of it the test tools (pytest,
# Playwright, ruff, schemathesis: most of the venv's size), which only the test targets install.
STAMP := $(VENV)/.installed-run
TEST_STAMP := $(VENV)/.installed-test

.PHONY: run test check lint bench screenshots workshop clean frontend

REPLICAS ?= 3
PORT ?= 8500

# -qq (errors still print): setuptools warns on every editable install of a flat layout that a
# folder named as the package may shadow it, and here that folder is the package itself.
$(STAMP): pyproject.toml
	@echo "make: installing the playground into $(VENV) (the first time only; about a minute)"
	@$(PYTHON) -m venv $(VENV)
	@$(BIN)/pip install -qq --upgrade pip
	@$(BIN)/pip install -qq -e .
	@touch $(STAMP)

$(TEST_STAMP): $(STAMP)
	@echo "make: installing the test tools into $(VENV) (the first time only; about a minute)"
	@$(BIN)/pip install -qq -e '.[test]'
	@touch $(TEST_STAMP)

# `make run PORT=8600` serves on that port; without it, on 8501 or the next free one. It prints
# only the address to open.
run: $(STAMP)
	@$(BIN)/playground run $(if $(filter command line,$(origin PORT)),--port $(PORT))

# LangGraph.js, to make and read back the JS fixtures: installed where npm is (the tests that
# need it are skipped elsewhere; bash .ci/run installs Node).
JS_FIXTURES := tests/fixtures/langgraphjs
JS_STAMP := $(if $(shell command -v npm),$(JS_FIXTURES)/node_modules/.installed)

$(JS_FIXTURES)/node_modules/.installed: $(JS_FIXTURES)/package-lock.json
	cd $(JS_FIXTURES) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

# A real `langgraph dev` for the Agent Server tests, in its own venv (its pins clash with the
# test extras'); the tests that need it are skipped where it is missing.
SERVER_VENV := .venv-server
SERVER_REQS := tests/fixtures/agent_server/requirements.txt

$(SERVER_VENV)/.installed: $(SERVER_REQS)
	$(PYTHON) -m venv $(SERVER_VENV)
	$(SERVER_VENV)/bin/pip install --quiet --upgrade pip
	$(SERVER_VENV)/bin/pip install --quiet -r $(SERVER_REQS)
	touch $@

# Aegra 0.11, a second real Agent Server, in its own venv: it needs Python 3.12 or newer (on
# 3.11 pip quietly installs 0.6.0). The first such Python found (python3.13, python3.12, then
# pyenv's) makes it; where there is none, its tests are skipped and say why.
AEGRA_VENV := .venv-aegra
AEGRA_REQS := tests/fixtures/aegra/requirements.txt
AEGRA_PYTHON ?= $(shell for p in python3.12 python3.13 $(HOME)/.pyenv/versions/3.12*/bin/python3 \
	$(HOME)/.pyenv/versions/3.13*/bin/python3; do $$p -c 'import sys; \
	sys.exit(sys.version_info < (3, 12))' 2>/dev/null && { echo $$p; break; }; done)
AEGRA_STAMP := $(if $(AEGRA_PYTHON),$(AEGRA_VENV)/.installed)

$(AEGRA_VENV)/.installed: $(AEGRA_REQS)
	$(AEGRA_PYTHON) -m venv $(AEGRA_VENV)
	$(AEGRA_VENV)/bin/pip install --quiet --upgrade pip
	$(AEGRA_VENV)/bin/pip install --quiet -r $(AEGRA_REQS)
	touch $@

# Both spread the tests over every core (pytest-xdist): a module's tests stay on one worker,
# and the tests on a real Agent Server share one (tests/conftest.py groups them).
XDIST := -n auto --dist loadgroup

test: $(TEST_STAMP) $(JS_STAMP) $(SERVER_VENV)/.installed $(AEGRA_STAMP)
	$(BIN)/ruff check .
	$(BIN)/python -m pytest $(XDIST)

# The lane without the slow kinds: lint and every test that needs no browser, no Agent Server,
# no Node, no nginx and no fresh install (pytest markers; tests/conftest.py marks each test by
# what it uses), and the page check, the one browser test that walks every page.
check: $(TEST_STAMP)
	$(BIN)/ruff check .
	$(BIN)/python -m pytest $(XDIST) \
	  -m "(not browser and not server and not node and not replicas and not install) or page_check"

# The playground's drawings (the history tree, the timeline): d3, built by Vite into
# playground/ui/components/assets/drawings.js (committed, so installing the playground needs no
# Node). Run after changing frontend/drawings/src.
frontend:
	cd frontend/drawings && npm ci --no-audit --no-fund --loglevel=error && npm run build

lint: $(TEST_STAMP)
	$(BIN)/ruff check .

# The nearest peer CLI, for the thread list's benchmark only: in a venv of its own (it pins
# langgraph-checkpoint below 3.0, which the playground's LangGraph needs).
PEER_VENV := .venv-peer

$(PEER_VENV)/.installed:
	$(PYTHON) -m venv $(PEER_VENV)
	$(PEER_VENV)/bin/pip install --quiet --upgrade pip
	$(PEER_VENV)/bin/pip install --quiet 'langgraph-checkpoint-cli[all]==0.1.0'
	touch $@

# Postgres rows run when PLAYGROUND_DATABASE_URL (or PLAYGROUND_TEST_DATABASE_URL) is set.
bench: $(TEST_STAMP) $(PEER_VENV)/.installed
	$(BIN)/python -m bench

# The README's pictures: the browser tests' screenshots, kept in assets/screenshots.
screenshots: $(TEST_STAMP) $(SERVER_VENV)/.installed
	PLAYGROUND_SCREENSHOTS=$(CURDIR)/assets/screenshots $(BIN)/python -m pytest \
		tests/playground/ui/test_browser_workshop.py -k full_workshop
	PLAYGROUND_SCREENSHOTS=$(CURDIR)/assets/screenshots $(BIN)/python -m pytest \
		tests/playground/ui/test_browser_own_graph.py -k "chat_question or research or rerun_on_fixed"
	PLAYGROUND_SCREENSHOTS=$(CURDIR)/assets/screenshots $(BIN)/python -m pytest \
		tests/playground/ui/test_browser_template_apps.py -k "context_change or memory_chat"
	PLAYGROUND_SCREENSHOTS=$(CURDIR)/assets/screenshots $(BIN)/python -m pytest \
		tests/playground/ui/test_browser_other_writers.py
	PLAYGROUND_SCREENSHOTS=$(CURDIR)/assets/screenshots $(BIN)/python -m pytest \
		tests/playground/ui/test_browser_agent_server.py tests/playground/ui/test_browser_timeline.py
	PLAYGROUND_SCREENSHOTS=$(CURDIR)/assets/screenshots $(BIN)/python -m pytest \
		tests/playground/ui/test_browser_many_threads.py
	PLAYGROUND_SCREENSHOTS=$(CURDIR)/assets/screenshots $(BIN)/python -m pytest \
		tests/playground/ui/test_browser_board.py tests/playground/ui/test_browser_tour.py \
		tests/playground/ui/test_browser_aegra.py

# A big room: REPLICAS playground replicas behind nginx on PostgreSQL (deploy/workshop.py).
# FACILITATOR_KEY_ENV=NAME: the variable holding the facilitator's key for /board.
workshop: $(STAMP)
	$(BIN)/python -m deploy.workshop --replicas $(REPLICAS) --port $(PORT) \
		$(if $(FACILITATOR_KEY_ENV),--facilitator-key-env $(FACILITATOR_KEY_ENV))

clean:
	rm -rf $(VENV) $(SERVER_VENV) .playground
