# agentforge — developer entry points.  `make test` is what CI runs (.ci/run).
#
# The virtualenv is built once, behind a stamp file that depends on pyproject.toml:
# running `make test` twice does not reinstall; editing pyproject.toml does.

VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# Prefer the oldest supported interpreter so CI exercises the floor of requires-python.
PYTHON ?= $(shell command -v python3.11 >/dev/null 2>&1 && echo python3.11 || echo python3)

LINT_PATHS := agentforge_cli tests sample_tools benchmarks docs
CRM := sample_tools.crm:CrmTools

.DEFAULT_GOAL := test
.PHONY: install test lint demo bench soak fuzz corpus clean chromium

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --upgrade pip
	$(PY) -m pip install -e '.[dev,mcp,fuzz]'
	# Node reference MCP servers for tests/integrations; zod 3 makes the SDK write a reused
	# schema as a JSON Pointer $ref (#/properties/...), the form the tests check; the
	# TypeScript SDK drives server-everything in the record tests (ts_client.mjs)
	npm install --prefix $(VENV)/node --no-audit --no-fund \
		@modelcontextprotocol/server-sequential-thinking@2026.8.31 zod@3.25.76 \
		@modelcontextprotocol/server-everything@2026.8.31 @modelcontextprotocol/sdk@1.32.2
	touch $@

# Debian's Chromium, for the browser test of serve's CORS (tests/integrations/
# test_mcp_browser.py): installed with apt when missing (CI runs as root on Debian).
chromium:
	@command -v chromium >/dev/null 2>&1 || { \
		apt-get update && apt-get install -y --no-install-recommends chromium; }

install: $(STAMP) chromium

# Lint, the type check and the tests all run, so one CI log shows everything; the target
# fails if any failed.
test: $(STAMP) chromium
	@status=0; \
	$(VENV)/bin/ruff check $(LINT_PATHS) || status=1; \
	$(VENV)/bin/mypy || status=1; \
	$(PY) -m pytest -n auto || status=1; \
	exit $$status

# mypy reads its settings (strict, the files checked) from pyproject.toml.
lint: $(STAMP)
	@status=0; \
	$(VENV)/bin/ruff check $(LINT_PATHS) || status=1; \
	$(VENV)/bin/mypy || status=1; \
	exit $$status

# `make demo` installs only what it shows: the package and hypothesis (its fuzz step), no
# pip upgrade and none of the test dependencies. A virtualenv that `make test` built has
# all of it already.
DEMO_STAMP := $(VENV)/.installed-demo

$(DEMO_STAMP): pyproject.toml
	@if [ -f $(STAMP) ] && [ $(STAMP) -nt pyproject.toml ]; then touch $@; else \
		set -e; test -x $(PY) || $(PYTHON) -m venv $(VENV); \
		echo "installing agentforge and hypothesis into $(VENV)"; \
		$(PY) -m pip install -q --disable-pip-version-check -e '.[fuzz]'; \
		touch $@; fi

demo: $(DEMO_STAMP)
	$(VENV)/bin/agentforge tools list $(CRM)
	$(VENV)/bin/agentforge tools call queryCustomer '{"name":"长路","limit":"5"}' -t $(CRM)
	@echo '--- a call the model gets wrong (non-integer limit): exits 1, shown on purpose'
	$(VENV)/bin/agentforge tools call queryCustomer '{"name":"长路","limit":5.5}' -t $(CRM) || true
	$(VENV)/bin/agentforge tools check $(CRM) --provider openai-strict --provider gemini
	$(VENV)/bin/agentforge replay sample_tools/transcripts/crm.jsonl -t $(CRM)
	$(VENV)/bin/agentforge replay sample_tools/transcripts/crm_openai.json -t $(CRM)
	$(VENV)/bin/agentforge replay sample_tools/transcripts/crm_anthropic.json -t $(CRM)
	@echo '--- an English tool set: the volatile id and time of rollback are scrubbed'
	$(VENV)/bin/agentforge replay sample_tools/transcripts/deploy.jsonl -t sample_tools.deploy:DeployTools
	@echo '--- fuzzing a deliberately fragile tool finds its crash: exits 1, shown on purpose'
	$(VENV)/bin/agentforge tools fuzz sample_tools.fragile --seed 0 || true

# The benchmarks' own extra (fastmcp, the serve rows' baseline): `make test` never installs it.
BENCH_STAMP := $(VENV)/.installed-bench

$(BENCH_STAMP): $(STAMP)
	$(PY) -m pip install -e '.[dev,mcp,fuzz,bench]'
	# the cold `tools list` row: the reference server it lists, and the Inspector CLI beside it
	npm install --prefix $(VENV)/node --no-audit --no-fund \
		@modelcontextprotocol/server-everything@2026.8.31 @modelcontextprotocol/inspector@2.12.0
	touch $@

bench: $(BENCH_STAMP)
	@if [ -f benchmarks/run.py ]; then \
		$(PY) benchmarks/run.py; \
	else \
		echo "benchmarks: not yet"; \
	fi

# 50 000 calls through `serve` over stdio and 50 000 over HTTP, hostile clients mixed in:
# every request answered, the server's memory flat (docs/reliability.md). Not in `make test`.
soak: $(STAMP)
	$(PY) benchmarks/soak.py $(SOAK_ARGS)

# Fuzz the argument pipeline (library and `agentforge replay`); N defaults to 100 000.
fuzz: $(STAMP)
	$(PY) benchmarks/fuzz.py $(N)

# Replay every real recording of the corpus and check it against tests/corpus/expected.toml.
CORPUS ?= ../shared/corpus

# CORPUS_HTML=FILE also writes the run's HTML report (agentforge report) there.
corpus: $(STAMP)
	$(PY) tests/corpus/check_corpus.py $(CORPUS) $(if $(CORPUS_HTML),--html $(CORPUS_HTML))

clean:
	rm -rf $(VENV) build dist .pytest_cache .ruff_cache .hypothesis *.egg-info
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
