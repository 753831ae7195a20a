#!/usr/bin/env bash
# Runs the test suite, installing whatever is missing first (idempotently).
#   ./test.sh                        everything, on two workers (what .ci/run calls)
#   ./test.sh --quick                the quick tier (tests/tiers.py): about a minute
#   ./test.sh --serial               in one process, in file order (-n 0)
#   ./test.sh --random-order[=SEED]  in a random order (pytest-randomly); the seed is printed
#   ./test.sh ... PYTEST-ARGS        more pytest arguments, e.g. -k golden or --durations=30
#   ./test.sh tests/mpi ...          only these files or directories (else the whole tests/)
# Workers: each takes whole modules (tests/tiers.py), so a module's servers start once.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ORDER=(-p no:randomly)
WORKERS=(-n 2)
ARGS=()
TARGETS=(tests)
NAMED=()  # files or directories named on the command line (a test id's file part counts)
VALUE_NEXT=0  # the word after pytest's -k, -m, -p, -n, -o, -W or -c is that option's value
for arg in "$@"; do
  if ((VALUE_NEXT)); then
    ARGS+=("$arg")
    VALUE_NEXT=0
    continue
  fi
  case "$arg" in
    --random-order) ORDER=("--randomly-seed=$(((RANDOM << 15) | RANDOM))") ;;
    --random-order=*) ORDER=("--randomly-seed=${arg#*=}") ;;
    --serial) WORKERS=(-n 0) ;;
    -[kmpnoWc]) ARGS+=("$arg"); VALUE_NEXT=1 ;;
    -*) ARGS+=("$arg") ;;
    *) if [[ -e "${arg%%::*}" ]]; then NAMED+=("$(realpath "${arg%%::*}")${arg#"${arg%%::*}"}"); else ARGS+=("$arg"); fi ;;
  esac
done
if ((${#NAMED[@]})); then
  TARGETS=("${NAMED[@]}")
fi
"$ROOT/setup.sh" --no-demo
cd "$ROOT"
# pytest -q hides pytest-randomly's header: say how to repeat the order.
if [[ ${ORDER[0]} == --randomly-seed=* ]]; then
  echo "test.sh: a random order; --random-order=${ORDER[0]#*=} repeats it"
fi
exec "$ROOT/.venv/bin/python" -m pytest -q -p no:cacheprovider "${ORDER[@]}" "${WORKERS[@]}" ${ARGS[@]+"${ARGS[@]}"} "${TARGETS[@]}"
