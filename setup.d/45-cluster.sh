# Installs what the emulated cluster needs (cluster/, tests/cluster/, bench/cluster_links.py):
#   - Debian packages: iproute2 (ip netns, veth, bridge, tc htb) and util-linux (nsenter, unshare);
#   - toxiproxy-server, the latency proxy between regions, built from the Go module proxy into
#     $SWIFTCLOUD_TOOLS_BIN (default /opt/swiftcloud/bin; about a minute; skipped when there).
# Idempotent. Sourced by setup.sh; also runnable alone: bash setup.d/45-cluster.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.bash"
SWIFTCLOUD_TOOLS_BIN=${SWIFTCLOUD_TOOLS_BIN:-/opt/swiftcloud/bin}
TOXIPROXY_VERSION=v2.5.0  # the newest release the Go module proxy serves here

apt_install iproute2 util-linux

if [[ ! -x "$SWIFTCLOUD_TOOLS_BIN/toxiproxy-server" ]]; then
  go_bin=$(command -v go || true)
  [[ -z "$go_bin" && -x /usr/local/go/bin/go ]] && go_bin=/usr/local/go/bin/go
  if [[ -z "$go_bin" ]]; then
    echo "setup: WARNING: no Go toolchain, so toxiproxy is not built; clusters with remote regions fail" >&2
  else
    echo "setup: building toxiproxy $TOXIPROXY_VERSION into $SWIFTCLOUD_TOOLS_BIN"
    build=$(mktemp -d)
    (cd /tmp && GOTOOLCHAIN=local GOBIN="$build" GOFLAGS=-buildvcs=false \
      "$go_bin" install "github.com/Shopify/toxiproxy/v2/cmd/server@$TOXIPROXY_VERSION")
    mkdir -p "$SWIFTCLOUD_TOOLS_BIN"
    mv "$build/server" "$SWIFTCLOUD_TOOLS_BIN/toxiproxy-server"
    rm -rf "$build"
  fi
fi
