#!/usr/bin/env bash
# `make lint`: the lint and type gate, with the rules in pyproject.toml.
#   ruff check   every Python file of the repository ([tool.ruff]: pycodestyle, pyflakes, isort,
#                bugbear, pyupgrade, simplify, mccabe, no print() in shared/ and services/ ...)
#   mypy         shared/, services/ and cli/, strict ([tool.mypy])
# Both always run, so one report shows everything; the exit status is non-zero if either failed.
# Installs the venv first when it is missing or stale (scripts/deps.sh python; cached).
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
export LEGCO_CACHE=${LEGCO_CACHE:-$repo/.cache}
bash scripts/deps.sh python || exit $?
venv="$LEGCO_CACHE/venv"
status=0
echo "[lint] ruff check"
"$venv/bin/ruff" check . || status=1
echo "[lint] mypy"
"$venv/bin/mypy" || status=1
[ $status = 0 ] && echo "[lint] ok" || echo "[lint] FAILED" >&2
exit $status
