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
if [ "$what" = all ] || [ "$what" = python ]; then
  bash scripts/lint.sh || status=$?
  "$LEGCO_CACHE/venv/bin/python" -m pytest -p no:cacheprovider --timeout=1800 --durations=25 tests || status=$?
fi
if [ "$what" = all ] || [ "$what" = frontend ]; then
  if [ -f frontend/package.json ]; then (cd frontend && npm test --silent) || status=$?; fi
fi
exit $status
