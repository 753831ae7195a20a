"""Join cgroups, then become a command: `python join_cgroup.py CGROUP_DIR... -- COMMAND...`.

`nsenter` joins a node's namespaces but not its cgroups, and two limits hold only for the
processes inside a node's cgroups: its CPU share (cpulimit.py) and, on hosts with cgroup v2,
its disk throttle (`io.max`, disks.py). nodes.on_node runs this file (by path, with nothing
but the standard library, so it needs no PYTHONPATH) between `nsenter` and the command. It
execs in place, so the command keeps this process's PID, and its children inherit the groups.
"""

import os
import sys


def join(directories: list[str]) -> None:
    """Move this process into the cgroups `directories` (its children will be born there)."""
    for directory in directories:
        with open(os.path.join(directory, "cgroup.procs"), "w") as procs:
            procs.write(f"{os.getpid()}\n")


def main(argv: list[str]) -> None:
    if "--" not in argv:
        sys.exit("usage: join_cgroup.py CGROUP_DIR... -- COMMAND...")
    split = argv.index("--")
    directories, command = argv[:split], argv[split + 1:]
    try:
        join(directories)
        os.execvp(command[0], command)
    except OSError as error:
        sys.exit(f"cannot run {command[0]} in the cgroups {', '.join(directories)}: {error.strerror}")


if __name__ == "__main__":
    main(sys.argv[1:])
