# Installs what the power-grid LMP workflow needs (apps/lmps/, tests/apps/test_lmps.py):
#   - Python packages into $VENV: pandapower (the Illinois 200-bus case, and the rundcopp
#     reference in the tests; brings numpy, scipy and pandas) and highspy (HiGHS, the LP solver).
# No Debian packages. Idempotent: pip runs only when an import fails.
# Sourced by setup.sh (which sets ROOT and VENV); also runnable alone: bash setup.d/50-lmps.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.bash"

pip_install_unless "pandapower, highspy" pandapower highspy
