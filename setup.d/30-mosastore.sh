# Installs what the MosaStore-style store needs (storage_adapters/mosastore/):
#   - Debian packages: fuse3 (fusermount3), libfuse3-dev and pkg-config (pyfuse3 compiles
#     from source against libfuse3), plus a C compiler and Python headers for that build;
#   - Python packages into $VENV: pyfuse3 and trio (the FUSE client's event loop).
# Idempotent: each step runs only when its result is missing.
# Sourced by setup.sh (which sets ROOT and VENV and defines apt_install); also runnable
# alone: bash setup.d/30-mosastore.sh
ROOT=${ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
VENV=${VENV:-$ROOT/.venv}

if ! declare -F apt_install >/dev/null; then
  apt_install() {
    local missing=()
    for pkg in "$@"; do
      dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
    done
    if ((${#missing[@]})); then
      apt-get update -qq
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    fi
  }
fi

apt_install fuse3 libfuse3-dev pkg-config gcc attr

if ! "$VENV/bin/python" -c "import pyfuse3, trio" 2>/dev/null; then
  echo "setup: pip install pyfuse3 trio (pyfuse3 compiles against libfuse3)"
  constraints=()
  [[ -f "$ROOT/constraints.txt" ]] && constraints=(-c "$ROOT/constraints.txt")
  "$VENV/bin/python" -m pip install -q "${constraints[@]}" pyfuse3 trio
fi
