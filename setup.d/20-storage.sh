# Installs what the storage layer needs (storage_adapters/, tests/storage/, bench/io_patterns.py):
#   - Debian packages: s3fs (s3fs-fuse), fuse3, openssh-server, openssh-client;
#   - Python packages into $VENV: boto3 (s3, s3fs), paramiko (scp), matplotlib (bench plots);
#   - the MinIO server, built from the Go module proxy into $SWIFTCLOUD_TOOLS_BIN
#     (default /opt/swiftcloud/bin/minio; about 5 minutes; skipped when already there).
# Idempotent: each step runs only when its result is missing.
# Sourced by setup.sh (which sets ROOT and VENV and defines apt_install); also runnable
# alone: bash setup.d/20-storage.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.bash"
SWIFTCLOUD_TOOLS_BIN=${SWIFTCLOUD_TOOLS_BIN:-/opt/swiftcloud/bin}

apt_install s3fs fuse3 openssh-server openssh-client

pip_install_unless "boto3, paramiko, matplotlib" boto3 paramiko matplotlib

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
