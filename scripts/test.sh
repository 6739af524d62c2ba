#!/usr/bin/env bash
# `make test`: installs what the tests need (cached), runs the lint gate (scripts/lint.sh: ruff
# and mypy), then the Python tests (unit, handler tests with FastStream's TestKafkaBroker,
# end-to-end on a real native stack started by the tests themselves on shifted ports) and the
# frontend's component tests. A lint failure fails the run, but the tests still run after it,
# so one report shows both.
# Usage: scripts/test.sh [python|frontend|all]
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
what=${1:-all}
export LEGCO_CACHE=${LEGCO_CACHE:-$repo/.cache}
bash scripts/deps.sh test   # the stack's, the browser and kubeconform, kustomize and the schemas of tests/unit/deploy
status=0
# The frontend's component tests (node) run beside the lint gate (mypy: one core); their output
# is printed after the Python tests, so the report keeps its order.
fe_log="$LEGCO_CACHE/frontend-test.log" fe_pid=
if { [ "$what" = all ] || [ "$what" = frontend ]; } && [ -f frontend/package.json ]; then
  (cd frontend && npm test --silent) > "$fe_log" 2>&1 &
  fe_pid=$!
fi
if [ "$what" = all ] || [ "$what" = python ]; then
  bash scripts/lint.sh || status=$?
  # LEGCO_TEST_WORKERS processes (pytest-xdist), each given whole test files and a test stack of
  # its own on shifted ports (tests/conftest.py): the end-to-end tests spend much of their time
  # waiting (outages, restarts, polling), so two share the 2 cores well. 1 = one process, no xdist.
  workers=${LEGCO_TEST_WORKERS:-2}
  xdist=(); [ "$workers" -gt 1 ] && xdist=(-n "$workers" --dist loadfile)
  "$LEGCO_CACHE/venv/bin/python" -m pytest -p no:cacheprovider --timeout=1800 --durations=25 "${xdist[@]}" tests || status=$?
fi
if [ -n "$fe_pid" ]; then
  fe_status=0
  wait "$fe_pid" || fe_status=$?
  cat "$fe_log"
  [ "$fe_status" = 0 ] || status=$fe_status
fi
exit $status
