# Installs MPI for the MPI transport (engine/scheduler/mpi.py, tests/mpi/, bench/throughput.py):
#   mpi4py and the `mpich` wheel from PyPI into $VENV. The wheel brings MPICH's library and its
#   own launcher (.venv/bin/mpiexec, Hydra), so no apt package is needed, and it runs as root.
#   Then builds the ranks' stub (engine/scheduler/rank_stub.c) with the C compiler.
# Idempotent: pip runs only when mpi4py or the venv's mpiexec is missing, the compiler is
#   installed only when missing, and the stub is built only when missing or older than its source.
# Sourced by setup.sh (which sets ROOT and VENV); also runnable alone: bash setup.d/10-mpi.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.bash"

if ! "$VENV/bin/python" -c "import mpi4py" 2>/dev/null || [[ ! -x "$VENV/bin/mpiexec" ]]; then
  echo "setup: pip install mpi4py mpich"
  "$VENV/bin/python" -m pip install -q -c "$ROOT/constraints.txt" mpi4py mpich
fi

# The stub mpiexec starts for each rank a zygote forks (engine/scheduler/rank_stub.c): C, as it
# starts beside every rank of every job. Built again whenever its source is newer.
apt_install gcc libc6-dev
STUB=$("$VENV/bin/python" -c 'from engine.scheduler.zygote_start import STUB; print(STUB)')
if [[ ! -x "$STUB" || "$ROOT/engine/scheduler/rank_stub.c" -nt "$STUB" ]]; then
  echo "setup: building $STUB"
  cc -O2 -Wall -Wextra -o "$STUB.new" "$ROOT/engine/scheduler/rank_stub.c"
  mv "$STUB.new" "$STUB"
fi
