"""A node's first process: it makes the node a host and keeps it alive.

Started as `ip netns exec NETNS unshare --uts -- python -m cluster.holder NAME HOSTS
SCRATCH SHARED_SCRATCH CGROUP_MOUNTS STORE_MOUNT_TYPES`, so it runs in the node's network
namespace with a mount and a UTS namespace of its own. It sets the host name to the node's
name, binds the cluster's hosts file over /etc/hosts and the node's own scratch directory over
the cluster-wide scratch path, mounts the cgroup hierarchies the node's processes join
(CGROUP_MOUNTS, JSON [type, options, target]: `ip netns exec` gave the node a /sys of its
own, without them), detaches the copies of the host's store mounts (STORE_MOUNT_TYPES, a
JSON list of file system types: a node mounts its own stores, and a copy held here would keep
the host's client serving after the host unmounted it, until the cluster is taken down),
prints `ready`, and waits. Every other process of the node joins its namespaces with
`nsenter --target PID` (see nodes.py), so each node sees its own host name, hosts
file, scratch directory and store mounts, like a separate machine, while sharing the
host's file system everywhere else.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys

from hostkit.mounts import detach, mount_points


def bind(source: str, target: str) -> None:
    subprocess.run(["mount", "--bind", source, target], check=True, capture_output=True)


def main(argv: list[str]) -> int:
    name, hosts, scratch, shared_scratch, cgroups, store_mount_types = argv[:6]
    for mount_point in mount_points(json.loads(store_mount_types)):
        detach(mount_point)  # here only: the node's mount namespace is the host's slave
    socket.sethostname(name)
    bind(hosts, "/etc/hosts")
    bind(scratch, shared_scratch)
    hierarchies = json.loads(cgroups)
    if hierarchies:
        subprocess.run(["mount", "-t", "tmpfs", "-o", "mode=755", "cgroups", "/sys/fs/cgroup"], check=True,
                       capture_output=True)
    for kind, options, target in hierarchies:
        os.makedirs(target, exist_ok=True)
        subprocess.run(["mount", "-t", kind, "-o", options, kind, target], check=True, capture_output=True)
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(0))
    print("ready", flush=True)
    while True:
        signal.pause()


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except subprocess.CalledProcessError as error:
        print(f"holder: {' '.join(error.cmd)} failed: {error.stderr.decode(errors='replace').strip()}",
              file=sys.stderr)
        sys.exit(1)
