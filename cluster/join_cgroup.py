"""Join a cgroup, then become a command: `python join_cgroup.py CGROUP_DIR COMMAND...`.

On hosts with cgroup v2, a node's disk throttle (`io.max`) holds only for processes in the
cluster's cgroup, and `nsenter` joins namespaces but not cgroups: nodes.on_node runs this
file (by path, with nothing but the standard library, so it needs no PYTHONPATH) between
`nsenter` and the command. It execs in place, so the command keeps this process's PID.
"""

import os
import sys


def main(argv: list[str]) -> None:
    directory, command = argv[0], argv[1:]
    try:
        with open(os.path.join(directory, "cgroup.procs"), "w") as procs:
            procs.write(f"{os.getpid()}\n")
        os.execvp(command[0], command)
    except OSError as error:
        sys.exit(f"cannot run {command[0]} in the cgroup {directory}: {error.strerror}")


if __name__ == "__main__":
    main(sys.argv[1:])
