"""A disk of its own for each node: a loop device over a sparse file, throttled as a device.

Each node's directory (`ClusterState.node_dir`: its scratch directory, MosaStore chunks,
DataNode blocks, the FUSE clients' spools) is an ext4 file system on a loop device of its
own, mounted in the host's mount namespace at `<cluster>/nodes/NODE`, before the node's
holder starts (so the holder, and every process that joins it, sees it; the holder binds
its scratch directory as before). The loop device does direct I/O on its backing file, so
the host's page cache holds each block once, and the kernel's block throttle limits what
reaches the device, reads and writes alike, to the region's `disk_mbps` (MB/s = 10^6
bytes/s, as dd reports):

- cgroup v1 (this machine): `blkio.throttle.{read,write}_bps_device` in the ROOT blkio
  cgroup. v1 charges buffered writeback to the root group whoever dirtied the pages, so a
  rule at the root is the one that also holds for writeback, and it holds for every
  process of the host, node or not.
- cgroup v2: the root has no `io.max`, so the rules go in a child cgroup of the cluster's
  (`swiftcloud-TAG`), and every process started on a node joins it (node_exec.on_node joins
  its cgroups first). v2 charges writeback to the cgroup that dirtied the pages, so the
  limit holds for buffered writes of the node's processes too.

Writes into the page cache are not limited, as on a real host with RAM; `fsync`, writeback
and cold reads are. The disks are sparse (24 GiB each, enough for the study's largest files
on every store): only what is written takes room on the host. Each part is recorded before
it is made (image, loop device, throttle rule), so `remove` also cleans up after a crash.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass

from hostkit.errors import MissingDependencyError, ServiceError
from hostkit.mounts import cgroup2_root

GIB = 1 << 30
DISK_BYTES = 24 * GIB  # sparse: the study's 1000 MB files, times stores and replicas, fit
# What the host must have free per node before disks are made: a new disk takes 4.4 MB
# (measured), and the quick study's workflows on 8 nodes took 79 MB in all at their peak.
# Parts that write big files check their own needs (study.io.check_disk).
MIN_FREE_PER_NODE = GIB // 2
V1_ROOT = "/sys/fs/cgroup/blkio"
V1_RULES = ("blkio.throttle.read_bps_device", "blkio.throttle.write_bps_device")
CGROUP_PREFIX = "swiftcloud-"
# ext4 without zeroing its inode tables now (lazy_itable_init) or later (noinit_itable at
# mount): a kernel thread doing that would spend the throttled disk's bandwidth behind
# the measurements' backs. The disk is new and thrown away at `down`, so nothing is lost.
MKFS_ARGV = ("mkfs.ext4", "-q", "-F", "-E", "lazy_itable_init=1,lazy_journal_init=1,nodiscard")
MOUNT_OPTIONS = "noinit_itable"


@dataclass
class Disk:
    """One node's disk, as recorded: its backing file, mount point, loop device, the
    device number its throttle rules name, and (cgroup v2) the cgroup holding them."""

    node: str
    image: str
    mountpoint: str
    bytes_per_second: int
    device: str = ""
    rule: str = ""
    cgroup: str = ""


def _run(*argv: str) -> str:
    try:
        done = subprocess.run(list(argv), capture_output=True, text=True, check=False)
    except FileNotFoundError:
        raise MissingDependencyError(f"{argv[0]} is missing: install util-linux and e2fsprogs (./setup.sh)") from None
    if done.returncode != 0:
        raise ServiceError(f"'{' '.join(argv)}' failed: {done.stderr.strip() or done.returncode}")
    return done.stdout


def mechanism() -> str:
    """'v1' when the blkio throttle of cgroup v1 is there (chosen first: it holds for
    writeback of every process), else 'v2' when cgroup v2 has the io controller."""
    if all(os.path.exists(os.path.join(V1_ROOT, rule)) for rule in V1_RULES):
        return "v1"
    if cgroup2_root("io") is not None:
        return "v2"
    raise ServiceError("no block I/O throttling on this host (neither cgroup v1 blkio nor cgroup v2 io): "
                       "set disk_mbps = 0 in the region file to keep the nodes' directories on the host's disk")


def check_space(directory: str, nodes: int) -> None:
    """Refuse to make `nodes` disks when the host file system of `directory` (or of its
    nearest existing parent: the check comes before anything is made) is nearly full."""
    while not os.path.exists(directory):
        directory = os.path.dirname(directory)
    free = shutil.disk_usage(directory).free
    if free < nodes * MIN_FREE_PER_NODE:
        raise ServiceError(f"the disk holding {directory} has {free / GIB:.1f} GiB free; {nodes} node disks need "
                           f"at least {nodes * MIN_FREE_PER_NODE / GIB:g} GiB ({MIN_FREE_PER_NODE / GIB:g} GiB a "
                           "node): free some space, use another --state-dir, or set disk_mbps = 0 in the region file")


def make(disk: Disk, cgroup: str, record: Callable[[], None]) -> None:
    """Make `disk` (a sparse file, ext4 on it, a loop device, its throttle, the mount),
    calling `record()` after each part is known and before the next is made. `cgroup`
    is the cluster's cgroup v2 directory ('' for v1)."""
    with open(disk.image, "wb") as image:
        image.truncate(DISK_BYTES)
    _run(*MKFS_ARGV, disk.image)  # on the file, before the throttle: mkfs is not what is measured
    # `down` finds the loop device by its backing file too (losetup -j), in case `up`
    # died between attaching it and recording it.
    disk.device = _run("losetup", "--find", "--show", "--direct-io=on", disk.image).strip()
    number = os.stat(disk.device).st_rdev
    disk.rule = f"{os.major(number)}:{os.minor(number)}"
    disk.cgroup = cgroup
    record()
    _throttle(disk, disk.bytes_per_second)
    os.makedirs(disk.mountpoint, mode=0o700, exist_ok=True)
    _run("mount", "-t", "ext4", "-o", MOUNT_OPTIONS, disk.device, disk.mountpoint)
    # Shared, so that unmounting it at `down` also unmounts the copies that namespaces made
    # since (`ip netns exec` makes the host's mounts slaves in its namespace).
    _run("mount", "--make-shared", disk.mountpoint)
    os.chmod(disk.mountpoint, 0o700)


def set_rate(disk: Disk, bytes_per_second: int) -> None:
    """Change the disk's throttle (0: none)."""
    _throttle(disk, bytes_per_second)


def _throttle(disk: Disk, bytes_per_second: int) -> None:
    if disk.cgroup:
        limit = str(bytes_per_second) if bytes_per_second else "max"
        with open(os.path.join(disk.cgroup, "io.max"), "w") as rules:
            rules.write(f"{disk.rule} rbps={limit} wbps={limit}\n")
        return
    for rule in V1_RULES:
        with open(os.path.join(V1_ROOT, rule), "w") as rules:
            rules.write(f"{disk.rule} {bytes_per_second}\n")


def v1_rate(rule: str) -> dict[str, int]:
    """The read and write limits (bytes/s) that cgroup v1 has for device `rule` (MAJ:MIN)."""
    found = {}
    for name in V1_RULES:
        with open(os.path.join(V1_ROOT, name)) as rules:
            for line in rules:
                device, _, value = line.partition(" ")
                if device == rule:
                    found[name] = int(value)
    return found


def cgroup_path(tag: str) -> str:
    """The cgroup v2 directory of cluster `tag`, a child of the root."""
    root = cgroup2_root("io")
    if root is None:
        raise ServiceError("cgroup v2 has no io controller on this host")
    return os.path.join(root, CGROUP_PREFIX + tag)


def make_cgroup(path: str) -> None:
    """Make the cluster's cgroup v2 directory, with the io controller enabled for the root's children."""
    control = os.path.join(os.path.dirname(path), "cgroup.subtree_control")
    with open(control) as current:
        enabled = current.read().split()
    if "io" not in enabled:
        with open(control, "w") as change:
            change.write("+io\n")
    os.makedirs(path, exist_ok=True)


def remove(disk: Disk) -> None:
    """Unmount the disk, lift its throttle, detach every loop device over its image and
    delete the image; each step is skipped when already done."""
    if os.path.ismount(disk.mountpoint):
        _run("umount", disk.mountpoint)
    if disk.rule and not disk.cgroup:
        _throttle(disk, 0)  # cgroup v2's rules go with the cluster's cgroup
    if os.path.exists(disk.image):
        for line in _run("losetup", "-j", disk.image).splitlines():
            _run("losetup", "-d", line.partition(":")[0])
        os.remove(disk.image)


def remove_orphans(belongs: Callable[[str], bool]) -> int:
    """Remove the disks of a cluster whose record is gone: every mount and loop device of a
    node disk (`.../cluster/nodes/NODE`, `.../cluster/disks/NODE.img`) whose cluster directory
    `belongs(directory)`; their throttles are lifted (v1) and their images deleted. How many."""
    pattern = re.compile(r"(/.*)/(?:nodes/node[0-9]+|disks/node[0-9]+\.img)(?: \(deleted\))?")
    with open("/proc/self/mountinfo") as table:
        for line in table:
            target = line.split()[4]
            found = pattern.fullmatch(target)
            if found and belongs(found.group(1)):
                _run("umount", target)
    removed = 0
    listing = _run("losetup", "--list", "--noheadings", "--raw", "--output", "NAME,BACK-FILE")
    for line in listing.splitlines():
        device, _, backing = line.partition(" ")
        found = pattern.fullmatch(backing.replace("\\x20", " "))
        if found and belongs(found.group(1)):
            number = os.stat(device).st_rdev
            disk = Disk("", backing.removesuffix(" (deleted)"), "", 0, device, f"{os.major(number)}:{os.minor(number)}")
            if all(os.path.exists(os.path.join(V1_ROOT, rule)) for rule in V1_RULES):
                _throttle(disk, 0)  # cgroup v2's rules go with the cluster's cgroup
            _run("losetup", "-d", device)
            if os.path.exists(disk.image):
                os.remove(disk.image)
            removed += 1
    return removed


def orphan_cgroup(tag: str) -> str:
    """The cgroup v2 directory cluster `tag` would have ('' without cgroup v2's io controller)."""
    return cgroup_path(tag) if cgroup2_root("io") is not None else ""


def remove_cgroup(path: str) -> None:
    """Remove the cluster's cgroup v2 directory (its processes have ended)."""
    if path and os.path.isdir(path):
        os.rmdir(path)
