"""The `ssh` of the emulated cluster: MPICH's Hydra calls it to start a proxy on a node.

`mpiexec -launcher ssh -launcher-exec <cluster>/node-exec` runs `node-exec [-x] HOST
COMMAND...` for every host other than its own, as it would run ssh. Like ssh, it joins the
command's words into one line, which a POSIX shell splits (Hydra quotes each word for that),
and runs it inside HOST's namespaces with `nsenter`, after moving itself into HOST's cgroups.

It runs once per node at the start of every `run --cluster`, all of them at once beside the
ranks' own start, so it is a shell script (`script`, written by `cluster up`): as a Python
program it took 15 ms a node alone and, eight at a time on two cores, held the last node's
proxy back 0.14 s. What it needs of each node is in the launch table (`LAUNCH_TABLE`, beside
the cluster record `$SWIFTCLOUD_CLUSTER_STATE`, one line a node: name, holder PID, the
holder's start in clock ticks, cgroup directories), written once the nodes run. A node's
holder (the process whose namespaces it enters) is known by its PID and its start time, so
a PID reused since is never entered.

`on_node(node, argv)` is the same from Python: the argv that runs `argv` inside a node, the
command joining the node's cgroups (`JOIN_CGROUPS`, a shell line that also execs in place:
its CPU share, cpulimit.py, and on a host with cgroup v2 the cluster's cgroup where its disk
throttle holds), then its network, mount and UTS namespaces with `nsenter`, and exec'ing.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from hostkit.errors import ServiceError
from hostkit.process_start import start_ticks

if TYPE_CHECKING:
    from cluster.state import Node

LAUNCHER = "node-exec"  # the script's name in the cluster's directory
STATE_VARIABLE = "SWIFTCLOUD_CLUSTER_STATE"
SHARED_SCRATCH = "scratch"  # under the cluster directory: each node sees its own behind it
ZYGOTES = "zygotes"  # under the cluster directory: the sockets of runs' zygotes, seen by every node
LAUNCH_TABLE = "launch.table"
# With "$@" = CGROUP_DIR... -- COMMAND...: move this shell into each cgroup, leaving "$@" =
# COMMAND. Its failure message begins with `{who}` and ends the shell with `{status}`. Shared
# by the script below and by on_node (`JOIN_CGROUPS`).
JOIN_LOOP = ('while [ "$1" != -- ]; do echo $$ 2>/dev/null > "$1/cgroup.procs" || '
             '{{ echo "{who}cannot join the node\'s cgroup $1" >&2; exit {status}; }}; shift; done; shift')
# `sh -c JOIN_CGROUPS join-cgroups CGROUP_DIR... -- COMMAND...`: move into each cgroup, then
# become COMMAND (so it keeps the PID, and its children are born in the groups). A shell starts
# in 0.7 ms against 6 for Python with -S: every process started on a node pays it (MPI
# proxies, daemons, mounts).
JOIN_CGROUPS = JOIN_LOOP.format(who="", status=126) + '; exec "$@"'

# Hydra's ssh options that take no value; field 22 of /proc/PID/stat (the 20th after the
# command's closing parenthesis) is the start in clock ticks (hostkit.process_start).
_SCRIPT = """#!/bin/sh
# The emulated cluster's ssh for mpiexec (made by swiftcloud cluster up; see cluster/node_exec.py).
while [ $# -gt 0 ]; do
  case $1 in -x|-T|-n|-q) shift ;; *) break ;; esac
done
if [ $# -lt 2 ]; then
  echo "node-exec: usage: node-exec [-x] HOST COMMAND..." >&2
  exit 255
fi
host=$1
shift
line="$*"
set -f
found=
if [ -n "$__STATE__" ] && [ -r "${__STATE__%/*}/__TABLE__" ]; then
  while read -r name holder ticks cgroups; do
    if [ "$name" = "$host" ]; then found=1; break; fi
  done < "${__STATE__%/*}/__TABLE__"
fi
if [ -z "$found" ]; then
  echo "node-exec: no cluster record at \\$__STATE__ (${__STATE__:-unset}) naming $host" >&2
  exit 255
fi
stat=
{ read -r stat < "/proc/$holder/stat"; } 2>/dev/null
set -- ${stat##*) }
[ $# -ge 20 ] && shift 19
if [ -z "$stat" ] || [ "$1" != "$ticks" ]; then
  echo "node-exec: $host: node $host is not running: bring the cluster up again ('swiftcloud cluster down', then 'up')" >&2
  exit 255
fi
set +f
eval "set -- $cgroups -- nsenter --target=$holder --net --mount --uts --wd=/ -- $line"
__JOIN__
exec "$@"
"""


def script() -> str:
    """The executable file Hydra is given as its launcher."""
    return (_SCRIPT.replace("__STATE__", STATE_VARIABLE).replace("__TABLE__", LAUNCH_TABLE)
            .replace("__JOIN__", JOIN_LOOP.format(who="node-exec: $host: ", status=255)))


def on_node(node: Node, argv: list[str], cwd: str | None = None) -> list[str]:
    """`argv` run inside `node` (its network, mounts and host name), from `cwd`."""
    if not node.up():
        raise ServiceError(f"node {node.name} is not running: bring the cluster up again "
                           "('swiftcloud cluster down', then 'up')")
    # The cgroups are joined before nsenter: inside the node, /sys is the network namespace's
    # own (as `ip netns exec` mounts it) and holds no cgroup hierarchy.
    cgroups = node.cgroups()
    join = ["/bin/sh", "-c", JOIN_CGROUPS, "join-cgroups", *cgroups, "--"] if cgroups else []
    return [*join, *nsenter_argv(node.holder_pid, cwd or os.getcwd(), argv)]


def nsenter_argv(holder_pid: int, cwd: str, argv: list[str]) -> list[str]:
    """`argv` run inside the namespaces (network, mounts, host name) of the node whose holder
    is `holder_pid`, from `cwd`."""
    return ["nsenter", f"--target={holder_pid}", "--net", "--mount", "--uts", f"--wd={cwd}", "--", *argv]


def write_table(path: str, nodes: dict[str, tuple[int, list[str]]]) -> None:
    """The launch table: for each node name, its holder's PID and start, and its cgroups."""
    lines = []
    for name, (pid, cgroups) in nodes.items():
        if any(char.isspace() for part in (name, *cgroups) for char in part):
            raise ValueError(f"node {name!r}: a name or cgroup with white space cannot go in the launch table")
        lines.append(" ".join([name, str(pid), str(start_ticks(pid)), *cgroups]) + "\n")
    with open(path, "w", encoding="utf-8") as out:
        out.writelines(lines)


def install(directory: str, nodes: dict[str, tuple[int, list[str]]]) -> None:
    """Write the launcher and its launch table into the cluster's `directory`: at `cluster up`,
    and again by a run on a cluster an older swiftcloud brought up (its launcher may need what
    is no longer there)."""
    write_table(os.path.join(directory, LAUNCH_TABLE), nodes)
    launcher = os.path.join(directory, LAUNCHER)
    with open(launcher, "w", encoding="utf-8") as out:
        out.write(script())
    os.chmod(launcher, 0o700)


def installed(directory: str) -> bool:
    """Are this swiftcloud's launcher and a launch table in the cluster's `directory`?"""
    try:
        with open(os.path.join(directory, LAUNCHER), encoding="utf-8") as launcher:
            current = launcher.read() == script()
    except (OSError, ValueError):
        return False
    return current and os.path.exists(os.path.join(directory, LAUNCH_TABLE))
