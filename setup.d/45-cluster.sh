# Installs what the emulated cluster needs (cluster/, tests/cluster/, bench/cluster_links.py):
# Debian packages iproute2 (ip netns, veth, bridge, tc htb, ip tuntap and ip rule for the delay
# line between regions), util-linux (nsenter, unshare, losetup, mount) and e2fsprogs (mkfs.ext4,
# for each node's own disk).
# Idempotent. Sourced by setup.sh; also runnable alone: bash setup.d/45-cluster.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.bash"

apt_install iproute2 util-linux e2fsprogs
