# Two commands do all the set-up on a fresh machine:
#   make run    create .venv, install requirements, load the demo corpus if the store is empty, start the dashboard
#   make test   create .venv, install requirements (and Chromium for the browser test), run every test
#               in parallel: TEST_WORKERS pytest-xdist workers, one test file per worker at a time
#               (make test TEST_WORKERS=0 runs it serially in one process)
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell sha1sum requirements.txt | cut -c1-12)
PORT ?= 8501
# one worker per core, at most 4 (each loads torch and the model; the subprocess tests spawn more)
TEST_WORKERS ?= $(shell n=$$(nproc 2>/dev/null || echo 2); [ $$n -gt 4 ] && n=4; echo $$n)

.PHONY: run test lint demo bench perf chromium screenshot serve mutation calibrate

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
	OMP_NUM_THREADS=1 SMARTVECTOR_EMBED_THREADS=1 $(PY) -m pytest -q -n $(TEST_WORKERS) --dist loadfile

serve: $(STAMP)
	$(PY) -m smartvector_core serve --host 127.0.0.1 --port $(or $(API_PORT),8600)

lint: $(STAMP)
	$(VENV)/bin/ruff check .

demo: $(STAMP)
	$(PY) -m smartvector_core demo

bench: $(STAMP)
	$(PY) -m smartvector_core bench --suite paper

# The shipped confidence prior (retrieval/calibration.json), fitted live on many corpora: the paper
# suite, data/real/*, ../shared/realdata (TimeQA, SituatedQA) and RealTimeQA 2022 weeks (built
# here from the snapshot, outside the repository). Re-run after any scoring change.
REALDATA ?= ../shared/realdata
RTQA_SNAPSHOT ?= /work/.mirror/realtimeqa+realtimeqa_public/repo
RTQA_OUT ?= /tmp/rtqa2022
calibrate: $(STAMP)
	test -f $(RTQA_OUT)/queries.jsonl || python3 $(REALDATA)/realtimeqa_adapter.py --snapshot $(RTQA_SNAPSHOT) --out $(RTQA_OUT)
	OMP_NUM_THREADS=1 $(PY) -m smartvector_core --store .calibration/store calibration --fit-prior \
		--realdata $(REALDATA) --realtimeqa $(RTQA_OUT)

perf: $(STAMP)
	$(PY) -m smartvector_core perf --quick

screenshot: $(STAMP) chromium
	SMARTVECTOR_SCREENSHOT_MODEL=all-MiniLM-L6-v2 $(PY) -m pytest -q tests/ui/test_browser.py

# Mutation check of the core (a benchmark, not CI): copies of the repo, coverage-selected tests,
# summary in .mutation/mutation.md and .mutation/mutation.json (docs/TESTING.md)
mutation: $(STAMP)
	$(PY) -m pip install -q -r requirements-dev.txt
	$(PY) scripts/dev/mutation.py $(MUTATION_ARGS)
