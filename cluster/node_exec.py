"""The `ssh` of the emulated cluster: MPICH's Hydra calls it to start a proxy on a node.

`mpiexec -launcher ssh -launcher-exec <cluster>/node-exec` runs `node-exec [-x] HOST
COMMAND...` for every host other than its own, as it would run ssh. Like sshd, it
joins the command's words into one line and splits it as a POSIX shell would
(Hydra quotes each word), then execs the result inside HOST's namespaces with
`nsenter`: no shell runs. The cluster record is `$SWIFTCLOUD_CLUSTER_STATE`.
"""

from __future__ import annotations

import os
import shlex
import sys

from cluster import state
from cluster.nodes import on_node

STATE_VARIABLE = "SWIFTCLOUD_CLUSTER_STATE"
SSH_FLAGS_WITHOUT_VALUE = {"-x", "-T", "-n", "-q"}


def script(python: str, project_root: str) -> str:
    """The executable file Hydra is given as its launcher."""
    return (f"#!{python}\n\"\"\"The emulated cluster's ssh for mpiexec (made by swiftcloud cluster up).\"\"\"\n"
            f"import sys\nsys.path.insert(0, {project_root!r})\n"
            "from cluster.node_exec import main\nsys.exit(main(sys.argv[1:]))\n")


def main(argv: list[str]) -> int:
    words = list(argv)
    while words and words[0] in SSH_FLAGS_WITHOUT_VALUE:
        words.pop(0)
    if len(words) < 2:
        print("node-exec: usage: node-exec [-x] HOST COMMAND...", file=sys.stderr)
        return 255
    host, command = words[0], shlex.split(" ".join(words[1:]))
    directory = os.environ.get(STATE_VARIABLE, "")
    cluster = state.load(os.path.dirname(directory)) if directory else None
    if cluster is None:
        print(f"node-exec: no cluster record at ${STATE_VARIABLE} ({directory or 'unset'})", file=sys.stderr)
        return 255
    try:
        argv = on_node(cluster.node(host), command, "/")
    except Exception as error:  # noqa: BLE001 - reported as ssh reports a host it cannot reach
        print(f"node-exec: {host}: {error}", file=sys.stderr)
        return 255
    os.execvp(argv[0], argv)
    return 255  # not reached: exec replaced this process
