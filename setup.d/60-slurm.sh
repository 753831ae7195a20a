# Installs what batch submission needs (batch/, tests/batch/, `swiftcloud submit`):
#   - Debian packages: slurm-wlm and munge, for the trial Slurm that `swiftcloud services start
#     slurm` and the tests run in a network namespace (batch/slurm_service.py);
#   - psij-python, the portable job API `submit` drives, with its dependencies. psij-python
#     0.9.11 (the newest) pins packaging<=25 while pandapower (the LMP workflow) needs 26;
#     psij uses packaging for nothing the newer one lacks, so it is installed without its pin.
# Idempotent. Sourced by setup.sh; also runnable alone: bash setup.d/60-slurm.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.bash"

apt_install slurm-wlm munge

pip_install_unless "pystache, typeguard" pystache typeguard
if ! "$VENV/bin/python" -c "import psij" 2>/dev/null; then
  echo "setup: pip install psij-python (without its packaging pin)"
  "$VENV/bin/python" -m pip install -q --no-deps -c "$ROOT/constraints.txt" psij-python
fi
