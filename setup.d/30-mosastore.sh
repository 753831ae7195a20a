# Installs what the MosaStore-style store needs (mosastore/):
#   - Debian packages: fuse3 (fusermount3), libfuse3-dev and pkg-config (pyfuse3 compiles
#     from source against libfuse3), plus a C compiler and Python headers for that build;
#   - Python packages into $VENV: pyfuse3 and trio (the FUSE client's event loop); blake3,
#     the digest that protects chunks on the wire, is a dependency of swiftcloud itself.
# Idempotent: each step runs only when its result is missing.
# Sourced by setup.sh (which sets ROOT and VENV and defines apt_install); also runnable
# alone: bash setup.d/30-mosastore.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.bash"

apt_install fuse3 libfuse3-dev pkg-config gcc attr

pip_install_unless "pyfuse3, trio" pyfuse3 trio  # pyfuse3 compiles against libfuse3
