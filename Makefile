# Two commands do all the set-up on a fresh machine:
#   make run    create .venv, install requirements, load the demo corpus if the store is empty, start the dashboard
#   make test   create .venv, install requirements (and Chromium for the browser test), run every test
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell sha1sum requirements.txt | cut -c1-12)
PORT ?= 8501

.PHONY: run test lint demo bench perf chromium screenshot serve mutation

$(STAMP): requirements.txt
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -r requirements.txt
	rm -f $(VENV)/.installed-*; touch $(STAMP)

run: $(STAMP)
	$(PY) -m smartvector_core demo --if-empty
	$(VENV)/bin/streamlit run app.py --server.address 127.0.0.1 --server.port $(PORT) --server.headless true

chromium:
	@test -x /usr/bin/chromium || { (apt-get update -qq && apt-get install -y -qq chromium >/dev/null) || echo "chromium not installed: the browser test will be skipped"; }

test: $(STAMP) chromium
	OMP_NUM_THREADS=1 SMARTVECTOR_EMBED_THREADS=1 $(PY) -m pytest -q

serve: $(STAMP)
	$(PY) -m smartvector_core serve --host 127.0.0.1 --port $(or $(API_PORT),8600)

lint: $(STAMP)
	$(VENV)/bin/ruff check .

demo: $(STAMP)
	$(PY) -m smartvector_core demo

bench: $(STAMP)
	$(PY) -m smartvector_core bench --suite paper

perf: $(STAMP)
	$(PY) -m smartvector_core perf --quick

screenshot: $(STAMP) chromium
	SMARTVECTOR_SCREENSHOT_MODEL=all-MiniLM-L6-v2 $(PY) -m pytest -q tests/ui/test_browser.py

# Mutation check of the core (a benchmark, not CI): copies of the repo, coverage-selected tests,
# summary in .mutation/mutation.md and .mutation/mutation.json (docs/TESTING.md)
mutation: $(STAMP)
	$(PY) -m pip install -q -r requirements-dev.txt
	$(PY) scripts/mutation.py $(MUTATION_ARGS)
