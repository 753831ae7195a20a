# Shared by setup.sh and every setup.d/*.sh fragment (sourced; sourcing it twice is harmless).
# Each fragment sources it, so it also runs alone: bash setup.d/NN-name.sh
ROOT=${ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
VENV=${VENV:-$ROOT/.venv}
export ROOT VENV DEBIAN_FRONTEND=noninteractive

# apt_install PKG...: install the Debian packages that are missing (apt-get update at most
# every 12 hours).
apt_install() {
  local missing=() stamp=/var/lib/apt/.swiftcloud-updated
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  ((${#missing[@]})) || return 0
  echo "setup: apt-get install ${missing[*]}"
  if [[ ! -f $stamp ]] || [[ -n "$(find "$stamp" -mmin +720 2>/dev/null)" ]]; then
    apt-get update -qq && touch "$stamp"
  fi
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# pip_install_unless "MODULE[, MODULE]" PKG...: pip-install PKGs into the venv, pinned by
# constraints.txt, unless the modules import already.
pip_install_unless() {
  local imports=$1
  shift
  "$VENV/bin/python" -c "import $imports" 2>/dev/null && return 0
  echo "setup: pip install $*"
  "$VENV/bin/python" -m pip install -q -c "$ROOT/constraints.txt" "$@"
}

# go_install_tool NAME PACKAGE@VERSION CONSEQUENCE: build a Go program from the module proxy into
# $SWIFTCLOUD_TOOLS_BIN/NAME unless it is there; without a Go toolchain, warn with CONSEQUENCE.
go_install_tool() {
  local name=$1 package=$2 consequence=$3 bin=${SWIFTCLOUD_TOOLS_BIN:-/opt/swiftcloud/bin} go build
  [[ -x "$bin/$name" ]] && return 0
  go=$(command -v go || true)
  [[ -z "$go" && -x /usr/local/go/bin/go ]] && go=/usr/local/go/bin/go
  if [[ -z "$go" ]]; then
    echo "setup: WARNING: no Go toolchain, so $name is not built; $consequence" >&2
    return 0
  fi
  echo "setup: building $name ($package) into $bin"
  build=$(mktemp -d)
  (cd /tmp && GOTOOLCHAIN=local GOBIN="$build" GOFLAGS=-buildvcs=false "$go" install "$package")
  mkdir -p "$bin"
  mv "$build/$(basename "${package%@*}")" "$bin/$name"
  rm -rf "$build"
}
