# Installs what the emulated cluster needs (cluster/, tests/cluster/, bench/cluster_links.py):
#   - Debian packages: iproute2 (ip netns, veth, bridge, tc htb), util-linux (nsenter, unshare,
#     losetup, mount) and e2fsprogs (mkfs.ext4, for each node's own disk);
#   - toxiproxy-server, the latency proxy between regions, built from the Go module proxy into
#     $SWIFTCLOUD_TOOLS_BIN (default /opt/swiftcloud/bin; about a minute; skipped when there).
# Idempotent. Sourced by setup.sh; also runnable alone: bash setup.d/45-cluster.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.bash"
TOXIPROXY_VERSION=v2.5.0  # the newest release the Go module proxy serves here

apt_install iproute2 util-linux e2fsprogs

go_install_tool toxiproxy-server "github.com/Shopify/toxiproxy/v2/cmd/server@$TOXIPROXY_VERSION" \
  "clusters with remote regions cannot start"
