# Installs what the Chirp backend needs (storage_adapters/chirp/):
#   - Debian's coop-computing-tools: chirp_server, and the chirp, chirp_get and chirp_put
#     clients (the benchmark compares our protocol client with them);
#   - a system user `swiftcloud` for chirp_server to switch to when started by root
#     (its files are private to that user rather than shared with every `nobody` daemon).
# The FUSE mount for the shared mode uses fuse3 and trio (setup.d/30-mosastore.sh).
# Idempotent. Sourced by setup.sh; also runnable alone: bash setup.d/35-chirp.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.bash"

apt_install coop-computing-tools

if [[ $(id -u) -eq 0 ]] && ! getent passwd swiftcloud >/dev/null; then
  echo "setup: adding the system user swiftcloud (chirp_server runs as it)"
  useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin swiftcloud
fi
