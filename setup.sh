#!/usr/bin/env bash
# Installs everything swiftcloud needs on a Debian machine (idempotent: re-running
# only installs what is missing), then runs the demo workflow (parallel BLAST).
#   ./setup.sh              install + demo
#   ./setup.sh --no-demo    install only (used by ./test.sh)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
VENV="$ROOT/.venv"
# shellcheck source=setup.d/common.bash
source "$ROOT/setup.d/common.bash"   # ROOT, VENV, apt_install, pip_install_unless
RUN_DEMO=1
[[ "${1:-}" == "--no-demo" ]] && RUN_DEMO=0

# Debian packages the engine itself uses (each setup.d/ fragment adds its own).
APT_PACKAGES=(python3-venv graphviz)

apt_install "${APT_PACKAGES[@]}"

if [[ ! -x "$VENV/bin/python" ]]; then
  echo "setup: creating $VENV"
  python3 -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install -q --upgrade pip
# PYTHONWARNINGS: setuptools' editable-install notice is noise for users of this script.
# editable_mode=compat puts the checkout on sys.path with a plain .pth line: the default
# import-hook finder costs every Python process we start (each MPI rank) about 10 ms.
PYTHONWARNINGS=ignore "$VENV/bin/python" -m pip install -q -c "$ROOT/constraints.txt" \
  --config-settings editable_mode=compat -e "$ROOT[test]"

# Optional components (storage servers, MPI, science apps) install through fragments.
for fragment in "$ROOT"/setup.d/*.sh; do
  [[ -e "$fragment" ]] || continue
  echo "setup: $(basename "$fragment")"
  # shellcheck source=/dev/null
  source "$fragment"
done

# Byte-compile our own modules: every run starts three or more Python processes
# (the CLI, each worker rank), and with PYTHONDONTWRITEBYTECODE set, as on some
# managed machines, each would recompile every module at every start (hostkit/bytecode.py).
(cd "$ROOT" && "$VENV/bin/python" -c 'import sys; from hostkit.bytecode import byte_compile; byte_compile(sys.argv[1])' "$ROOT")

echo "setup: done ($("$VENV/bin/swiftcloud" --help >/dev/null && echo "swiftcloud installed in $VENV/bin"))"

if ((RUN_DEMO)); then
  cd "$ROOT"
  echo "setup: running the demo: parallel BLAST on generated proteins (apps/blast, outputs in out/blast/)"
  "$VENV/bin/swiftcloud" run apps/blast/blast.swift
fi
