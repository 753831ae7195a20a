# Installs what the MosaStore-style store needs (mosastore/):
#   - Debian packages: fuse3 (fusermount3, for mounts made by users other than root) and attr;
#   - Python packages into $VENV: trio (the FUSE client's event loop; the client speaks the
#     kernel's FUSE protocol itself, storage_adapters/fuse/session.py); blake3, the digest
#     that protects chunks on the wire, is a dependency of swiftcloud itself.
# Idempotent: each step runs only when its result is missing.
# Sourced by setup.sh (which sets ROOT and VENV and defines apt_install); also runnable
# alone: bash setup.d/30-mosastore.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.bash"

apt_install fuse3 attr

pip_install_unless "trio" trio
