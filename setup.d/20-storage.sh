# Installs what the storage layer needs (storage_adapters/, tests/storage/, bench/io_patterns.py):
#   - Debian packages: s3fs (s3fs-fuse), fuse3, openssh-server, openssh-client, fio (io_patterns --fio);
#   - Python packages into $VENV: boto3 (s3, s3fs), paramiko (scp), matplotlib (bench plots);
#   - the MinIO server, built from the Go module proxy into $SWIFTCLOUD_TOOLS_BIN
#     (default /opt/swiftcloud/bin/minio; about 5 minutes; skipped when already there).
# Idempotent: each step runs only when its result is missing.
# Sourced by setup.sh (which sets ROOT and VENV and defines apt_install); also runnable
# alone: bash setup.d/20-storage.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.bash"

apt_install s3fs fuse3 openssh-server openssh-client fio

pip_install_unless "boto3, paramiko, matplotlib" boto3 paramiko matplotlib

# About 5 minutes on a new machine.
go_install_tool minio github.com/minio/minio@latest "the s3 and s3fs tests will fail"
