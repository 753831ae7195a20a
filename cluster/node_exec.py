"""The `ssh` of the emulated cluster: MPICH's Hydra calls it to start a proxy on a node.

`mpiexec -launcher ssh -launcher-exec <cluster>/node-exec` runs `node-exec [-x] HOST
COMMAND...` for every host other than its own, as it would run ssh. Like sshd, it
joins the command's words into one line and splits it as a POSIX shell would
(Hydra quotes each word), then execs the result inside HOST's namespaces with
`nsenter`: no shell runs.

It runs once per node at the start of every `run --cluster`, so it imports nothing but
the standard library (the cluster's record and its dataclasses cost about 40 ms of CPU a
launch): what it needs of each node is in the launch table (`LAUNCH_TABLE`, beside the
cluster record `$SWIFTCLOUD_CLUSTER_STATE`), written by `cluster up` once the nodes run.
A node's holder (the process whose namespaces it enters) is known by its PID and its
start time in clock ticks, so a PID reused since is never entered.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from typing import Any

from cluster.join_cgroup import join
from hostkit.process_start import start_ticks

STATE_VARIABLE = "SWIFTCLOUD_CLUSTER_STATE"
LAUNCH_TABLE = "launch.json"
SSH_FLAGS_WITHOUT_VALUE = {"-x", "-T", "-n", "-q"}


def script(python: str, project_root: str) -> str:
    """The executable file Hydra is given as its launcher."""
    return (f"#!{python}\n\"\"\"The emulated cluster's ssh for mpiexec (made by swiftcloud cluster up).\"\"\"\n"
            f"import sys\nsys.path.insert(0, {project_root!r})\n"
            "from cluster.node_exec import main\nsys.exit(main(sys.argv[1:]))\n")


def nsenter_argv(holder_pid: int, cwd: str, argv: list[str]) -> list[str]:
    """`argv` run inside the namespaces (network, mounts, host name) of the node whose holder
    is `holder_pid`, from `cwd`."""
    return ["nsenter", f"--target={holder_pid}", "--net", "--mount", "--uts", f"--wd={cwd}", "--", *argv]


def write_table(path: str, nodes: dict[str, tuple[int, list[str]]]) -> None:
    """The launch table: for each node name, its holder's PID and start, and its cgroups."""
    table = {name: {"holder": pid, "ticks": start_ticks(pid), "cgroups": cgroups}
             for name, (pid, cgroups) in nodes.items()}
    with open(path, "w", encoding="utf-8") as out:
        json.dump(table, out)


def main(argv: list[str]) -> int:
    words = list(argv)
    while words and words[0] in SSH_FLAGS_WITHOUT_VALUE:
        words.pop(0)
    if len(words) < 2:
        print("node-exec: usage: node-exec [-x] HOST COMMAND...", file=sys.stderr)
        return 255
    host, command = words[0], shlex.split(" ".join(words[1:]))
    record = os.environ.get(STATE_VARIABLE, "")
    node = _launch_entry(os.path.join(os.path.dirname(record), LAUNCH_TABLE), host) if record else None
    if node is None:
        print(f"node-exec: no cluster record at ${STATE_VARIABLE} ({record or 'unset'}) naming {host}",
              file=sys.stderr)
        return 255
    if start_ticks(node["holder"]) != node["ticks"]:
        print(f"node-exec: {host}: node {host} is not running: bring the cluster up again "
              "('swiftcloud cluster down', then 'up')", file=sys.stderr)
        return 255
    try:
        join(node["cgroups"])  # nsenter joins a node's namespaces, not its cgroups
        argv = nsenter_argv(node["holder"], "/", command)
        os.execvp(argv[0], argv)
    except OSError as error:
        print(f"node-exec: {host}: {error}", file=sys.stderr)
    return 255


def _launch_entry(path: str, host: str) -> dict[str, Any] | None:
    """Node `host`'s line of the launch table at `path` (None if there is none)."""
    try:
        with open(path, encoding="utf-8") as table:
            entry = json.load(table).get(host)
    except (OSError, ValueError, AttributeError):
        return None
    return entry if isinstance(entry, dict) else None
