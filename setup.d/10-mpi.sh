# Installs MPI for the MPI transport (engine/scheduler/mpi.py, tests/mpi/, bench/throughput.py):
#   mpi4py and the `mpich` wheel from PyPI into $VENV. The wheel brings MPICH's library and its
#   own launcher (.venv/bin/mpiexec, Hydra), so no apt package is needed, and it runs as root.
# Idempotent: pip runs only when mpi4py or the venv's mpiexec is missing.
# Sourced by setup.sh (which sets ROOT and VENV); also runnable alone: bash setup.d/10-mpi.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.bash"

if ! "$VENV/bin/python" -c "import mpi4py" 2>/dev/null || [[ ! -x "$VENV/bin/mpiexec" ]]; then
  echo "setup: pip install mpi4py mpich"
  "$VENV/bin/python" -m pip install -q -c "$ROOT/constraints.txt" mpi4py mpich
fi
