"""hostkit.namespaces: a forked process joins another's namespaces and cgroups (what the
zygote's ranks do on the emulated cluster), enters the cgroups later from a namespace that
cannot see them, and reads the cgroup tables right."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable

import pytest

from cluster import cpulimit
from hostkit import namespaces

MOUNTINFO = """\
31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,xattr,name=systemd
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
22 1 8:1 / / rw,relatime - ext4 /dev/vda rw
"""


def test_the_cgroup_tables_are_read_by_hierarchy() -> None:
    where = {hierarchy: namespaces.cgroup_mount(MOUNTINFO, hierarchy)
             for hierarchy in ("cpu,cpuacct", "cpuacct,cpu", "memory", "name=systemd", "", "blkio")}
    assert where == {"cpu,cpuacct": "/sys/fs/cgroup/cpu,cpuacct", "cpuacct,cpu": "/sys/fs/cgroup/cpu,cpuacct",
                     "memory": "/sys/fs/cgroup/memory", "name=systemd": "/sys/fs/cgroup/systemd",
                     "": "/sys/fs/cgroup/unified", "blkio": None}
    table = "9:name=systemd:/\n4:memory:/a/b\n1:cpu,cpuacct:/swiftcloud-x/node1\n0::/\n"
    assert namespaces.cgroups_of(table) == {"name=systemd": "/", "memory": "/a/b",
                                            "cpu,cpuacct": "/swiftcloud-x/node1", "": "/"}


def _in_child(work: Callable[[], str]) -> list[str]:
    """Fork a child that runs `work`; the words of what it returned (the test fails with the
    error it met, if any)."""
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(reader)
            os.write(writer, work().encode())
        except BaseException as error:  # noqa: BLE001 - reported to the test through the pipe
            os.write(writer, f"error {error}".encode())
        finally:
            os._exit(0)
    os.close(writer)
    with os.fdopen(reader) as out:
        words = out.read().split()
    os.waitpid(pid, 0)
    assert words[0] != "error", " ".join(words)
    return words


def _joined(target: int) -> tuple[str, list[int]]:
    """Fork a child that joins `target`; what it then sees: its host name and the inodes of
    its network, host-name and mount namespaces."""
    def join() -> str:
        namespaces.enter(namespaces.cgroup_doors(target))
        namespaces.join_namespaces(target)
        return " ".join([os.uname().nodename, *(str(os.stat(f"/proc/self/ns/{kind}").st_ino)
                                                for kind in namespaces.NAMESPACES)])

    words = _in_child(join)
    return words[0], [int(word) for word in words[1:]]


def _namespaces_of(pid: int) -> list[int]:
    return [os.stat(f"/proc/{pid}/ns/{kind}").st_ino for kind in namespaces.NAMESPACES]


def test_joining_a_process_of_this_host_changes_nothing() -> None:
    assert _joined(os.getpid()) == (os.uname().nodename, _namespaces_of(os.getpid()))


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("unshare") is None, reason="needs root and unshare")
def test_a_forked_process_joins_the_namespaces_of_another_host() -> None:
    host = subprocess.Popen(["unshare", "--net", "--uts", "--mount", "--", "sh", "-c",
                             "hostname elsewhere && echo ready && exec sleep 60"], stdout=subprocess.PIPE, text=True)
    try:
        assert host.stdout is not None and host.stdout.readline() == "ready\n"
        name, inodes = _joined(host.pid)
        assert (name, inodes) == ("elsewhere", _namespaces_of(host.pid))
        assert inodes != _namespaces_of(os.getpid())
    finally:
        host.kill()
        host.wait()


def _cpu_cgroup(pid: int | str) -> str:
    return namespaces.cgroups_of(open(f"/proc/{pid}/cgroup").read())["cpu"]


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("unshare") is None or not os.path.isdir(cpulimit.V1_CPU),
                    reason="needs root, unshare and cgroup v1's cpu hierarchy")
def test_a_process_enters_another_hosts_cgroups_from_its_namespaces() -> None:
    """As a rank of the emulated cluster does once MPI is up: its node's cgroups are opened on
    this host, and entered from inside the node's mount namespace, where no cgroup is mounted."""
    parent = cpulimit.parent_dir(f"test{os.getpid()}")
    node_cgroup = cpulimit.make(parent, "node1")
    host = subprocess.Popen(["unshare", "--mount", "--", "sh", "-c",
                             "mount -t tmpfs none /sys/fs/cgroup && echo ready && exec sleep 60"],
                            stdout=subprocess.PIPE, text=True)
    try:
        assert host.stdout is not None and host.stdout.readline() == "ready\n"
        with open(os.path.join(node_cgroup, "cgroup.procs"), "w", encoding="ascii") as procs:
            procs.write(str(host.pid))

        def enter_later() -> str:
            doors = namespaces.cgroup_doors(host.pid)
            namespaces.join_namespaces(host.pid)
            hidden = not os.path.exists(os.path.join(cpulimit.V1_CPU, "cgroup.procs"))
            before = _cpu_cgroup("self")
            namespaces.enter(doors)
            return f"{hidden} {before} {_cpu_cgroup('self')}"

        words = _in_child(enter_later)
        assert words == ["True", _cpu_cgroup(os.getpid()), _cpu_cgroup(host.pid)]
        assert node_cgroup.endswith(words[2])
    finally:
        host.kill()
        host.wait()
        cpulimit.remove(parent)
    assert not os.path.exists(parent)
