# Installs what the storage layer needs (storage_adapters/, tests/storage/, bench/io_patterns.py):
#   - Debian packages: s3fs (s3fs-fuse), fuse3, openssh-server, openssh-client;
#   - Python packages into $VENV: boto3 (s3, s3fs), paramiko (scp), matplotlib (bench plots);
#   - the MinIO server, built from the Go module proxy into $SWIFTCLOUD_TOOLS_BIN
#     (default /opt/swiftcloud/bin/minio; about 5 minutes; skipped when already there).
# Idempotent: each step runs only when its result is missing.
# Sourced by setup.sh (which sets ROOT and VENV and defines apt_install); also runnable
# alone: bash setup.d/20-storage.sh
ROOT=${ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
VENV=${VENV:-$ROOT/.venv}
SWIFTCLOUD_TOOLS_BIN=${SWIFTCLOUD_TOOLS_BIN:-/opt/swiftcloud/bin}

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

apt_install s3fs fuse3 openssh-server openssh-client

if ! "$VENV/bin/python" -c "import boto3, paramiko, matplotlib" 2>/dev/null; then
  echo "setup: pip install boto3 paramiko matplotlib"
  constraints=()
  [[ -f "$ROOT/constraints.txt" ]] && constraints=(-c "$ROOT/constraints.txt")
  "$VENV/bin/python" -m pip install -q "${constraints[@]}" boto3 paramiko matplotlib
fi

if [[ ! -x "$SWIFTCLOUD_TOOLS_BIN/minio" ]]; then
  go_bin=$(command -v go || true)
  [[ -z "$go_bin" && -x /usr/local/go/bin/go ]] && go_bin=/usr/local/go/bin/go
  if [[ -z "$go_bin" ]]; then
    echo "setup: WARNING: no Go toolchain, so MinIO is not built; the s3 and s3fs tests will skip" >&2
  else
    echo "setup: building MinIO into $SWIFTCLOUD_TOOLS_BIN (about 5 minutes)"
    mkdir -p "$SWIFTCLOUD_TOOLS_BIN"
    (cd /tmp && GOTOOLCHAIN=local GOBIN="$SWIFTCLOUD_TOOLS_BIN" GOFLAGS=-buildvcs=false \
      "$go_bin" install github.com/minio/minio@latest)
  fi
fi
