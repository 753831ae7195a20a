#!/usr/bin/env bash
# Runs the whole test suite (installing whatever is missing first, idempotently).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
"$ROOT/setup.sh" --no-demo
cd "$ROOT"
exec "$ROOT/.venv/bin/python" -m pytest -q -p no:cacheprovider "$@" tests
