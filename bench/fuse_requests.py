"""What a FUSE request costs in our Python front end (`storage_adapters.fuse.session`), with
nothing behind it: a null file system (writes are counted and dropped, reads return zeros),
mounted by a child process whose CPU time and request counts are measured while this process
writes and reads one file with 4 KiB, 128 KiB and 1 MiB system calls: plain, with the kernel's
writeback cache, and passed through to a local file (what the mounts do with a file being
written).

For each case it prints the application's MB/s, how many FUSE requests the kernel sent and
their mean size, and the daemon's CPU microseconds per request and CPU seconds per GB moved:
the floor under every mount built on this front end (MosaStore, HDFS, Chirp), before any
store is involved. The reference is local disk, the same system calls in the same run.

    .venv/bin/python bench/fuse_requests.py --megabytes 256
"""

from __future__ import annotations

import argparse
import errno
import json
import os
import signal
import stat
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

import psutil

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from hostkit.mounts import detach, mounted_fstype  # noqa: E402

MB = 1024 * 1024
BLOCKS = {"4 KiB": 4096, "128 KiB": 128 * 1024, "1 MiB": MB}
DATA_INODE, STATS_INODE = 2, 3
FSTYPE = "fuse.nullfs"
# Requests carry the data (plain), the kernel gathers writes first (writeback), or the kernel
# reads and writes a local file itself (passthrough: Linux 6.9 and later, root).
MODES = ("plain", "writeback", "passthrough")


def serve(mountpoint: str, size: int, mode: str, backing: str) -> None:
    """Mount the null file system at `mountpoint` and serve it until SIGTERM. In mode
    `passthrough` the data file is the local file `backing`, read and written by the kernel."""
    import trio

    from storage_adapters.fuse import ops, session

    zeros = bytes(MB)
    counts: dict[str, list[int]] = {}

    def count(operation: str, moved: int = 0) -> None:
        entry = counts.setdefault(operation, [0, 0])
        entry[0] += 1
        entry[1] += moved

    class NullFS(ops.Operations):
        enable_writeback_cache = mode == "writeback"
        enable_passthrough = mode == "passthrough"
        passthrough: session.Passthrough
        backing: int | None = None  # descriptor of the local file passed through
        backing_id: int | None = None

        def _attributes(self, inode: int) -> ops.EntryAttributes:
            attrs = ops.EntryAttributes()
            attrs.st_ino = inode
            attrs.st_mode = (stat.S_IFDIR | 0o755) if inode == ops.ROOT_INODE else (stat.S_IFREG | 0o644)
            attrs.st_size = size if inode == DATA_INODE else 0 if inode == ops.ROOT_INODE else 4096
            attrs.st_blksize = MB
            attrs.attr_timeout = attrs.entry_timeout = 3600
            return attrs

        async def getattr(self, inode: int, ctx: Any = None) -> ops.EntryAttributes:
            count("getattr")
            return self._attributes(inode)

        async def lookup(self, parent: int, name: bytes, ctx: Any) -> ops.EntryAttributes:
            count("lookup")
            inode = {b"data": DATA_INODE, b"stats": STATS_INODE}.get(name)
            if parent != ops.ROOT_INODE or inode is None:
                raise ops.FUSEError(errno.ENOENT)
            return self._attributes(inode)

        async def setattr(self, inode: int, attr: Any, fields: Any, fh: Any, ctx: Any) -> ops.EntryAttributes:
            count("setattr")
            return self._attributes(inode)

        async def open(self, inode: int, flags: int, ctx: Any) -> ops.FileInfo:
            count("open")
            if inode == DATA_INODE and self.enable_passthrough and self.backing_id is None:
                self.backing = os.open(backing, os.O_RDWR)
                self.backing_id = self.passthrough.register(self.backing)
            return ops.FileInfo(fh=inode, direct_io=inode == STATS_INODE,
                                backing_id=self.backing_id if inode == DATA_INODE else None)

        async def read(self, fh: int, offset: int, length: int) -> bytes:
            if fh == STATS_INODE:
                return json.dumps(counts).encode()[offset:offset + length]
            count("read", length)
            return memoryview(zeros)[:min(length, max(0, size - offset))]  # type: ignore[return-value]

        async def write(self, fh: int, offset: int, buf: bytes) -> int:
            count("write", len(buf))
            return len(buf)

        async def flush(self, fh: int) -> None:
            count("flush")

        async def fsync(self, fh: int, datasync: bool) -> None:
            count("fsync")
            if fh == DATA_INODE and self.backing is not None:  # the kernel leaves it to us
                os.fsync(self.backing)

        async def release(self, fh: int) -> None:
            count("release")

    async def main(requests: session.Session) -> None:
        fs.passthrough = requests.passthrough
        async with trio.open_nursery() as nursery:
            async def stop_on_signal() -> None:
                with trio.open_signal_receiver(signal.SIGTERM) as signals:
                    async for _ in signals:
                        nursery.cancel_scope.cancel()
                        return
            nursery.start_soon(stop_on_signal)
            await requests.run()
            nursery.cancel_scope.cancel()

    fs = NullFS()
    device = session.mount(mountpoint, "nullfs", allow_other=False)
    try:
        trio.run(main, session.Session(fs, device))
    finally:
        detach(mountpoint)
        os.close(device)


def cpu_seconds(pid: int) -> float:
    """User plus system CPU seconds of process `pid` (all its threads)."""
    times = psutil.Process(pid).cpu_times()
    return times.user + times.system


def transfer(path: str, pattern: str, block: int, total: int) -> float:
    """Write or read `total` bytes of `path` in `block`-sized system calls; seconds taken
    (a write ends with fsync, so every byte reached the file system)."""
    buffer = bytes(block)
    start = time.perf_counter()
    if pattern == "write":
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        for _ in range(total // block):
            os.write(descriptor, buffer)
        os.fsync(descriptor)
    else:
        descriptor = os.open(path, os.O_RDONLY)
        while os.read(descriptor, block):
            pass
    os.close(descriptor)
    return time.perf_counter() - start


class Mounted:
    """A null file system served by a child process."""

    def __init__(self, mountpoint: str, size: int, mode: str, backing: str) -> None:
        self.mountpoint = mountpoint
        self.process = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--serve", mountpoint,
                                         "--size", str(size), "--mode", mode, "--backing", backing])
        deadline = time.monotonic() + 30
        while mounted_fstype(mountpoint) != FSTYPE:
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("the null file system did not mount")
            time.sleep(0.05)

    def counts(self) -> dict[str, list[int]]:
        with open(os.path.join(self.mountpoint, "stats")) as handle:
            return json.load(handle)

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)


def measure(work: str, pattern: str, block: int, mode: str, total: int) -> dict[str, float]:
    """One case on the null mount: MB/s, requests, mean request size, daemon CPU."""
    mountpoint = os.path.join(work, "mnt")
    os.makedirs(mountpoint, exist_ok=True)
    mount = Mounted(mountpoint, total, mode, os.path.join(work, "local"))
    try:
        before, cpu_before = mount.counts(), cpu_seconds(mount.process.pid)
        seconds = transfer(os.path.join(mountpoint, "data"), pattern, block, total)
        cpu = cpu_seconds(mount.process.pid) - cpu_before
        after = mount.counts()
    finally:
        mount.stop()
    requests = sum(entry[0] for entry in after.values()) - sum(entry[0] for entry in before.values())
    data_requests = after.get(pattern, [0, 0])[0] - before.get(pattern, [0, 0])[0]
    return {"mb_s": total / MB / seconds, "requests": requests, "data_requests": data_requests,
            "request_kib": total / max(1, data_requests) / 1024, "us_per_request": cpu / max(1, requests) * 1e6,
            "cpu_s_per_gb": cpu / (total / 1024**3)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--megabytes", type=int, default=256, help="bytes moved per case, in MB (default 256)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per case; medians are printed (default 3)")
    parser.add_argument("--out", default=None, help="write the results as JSON to this file")
    parser.add_argument("--serve", metavar="MOUNTPOINT", help=argparse.SUPPRESS)
    parser.add_argument("--size", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--mode", choices=MODES, default="plain", help=argparse.SUPPRESS)
    parser.add_argument("--backing", default="", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        serve(args.serve, args.size, args.mode, args.backing)
        return 0
    total = args.megabytes * MB
    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="fuse-requests-") as work:
        for pattern in ("write", "read"):
            for label, block in BLOCKS.items():
                local = os.path.join(work, "local")
                if pattern == "read":
                    transfer(local, "write", MB, total)
                reference = statistics.median(total / MB / transfer(local, pattern, block, total)
                                              for _ in range(args.repeat))
                for mode in MODES:
                    runs = [measure(work, pattern, block, mode, total) for _ in range(args.repeat)]
                    row = {key: statistics.median(run[key] for run in runs) for key in runs[0]}
                    results.append({"pattern": pattern, "block": label, "mode": mode,
                                    "local_mb_s": reference, **row})
    print(f"{'pattern':8}{'syscall':>9}{'mode':>12}{'MB/s':>9}{'x local':>9}{'requests':>10}"
          f"{'KiB/req':>9}{'us/req':>8}{'CPU s/GB':>10}")
    for row in results:
        print(f"{row['pattern']:8}{row['block']:>9}{row['mode']:>12}{row['mb_s']:9.0f}"
              f"{row['mb_s'] / row['local_mb_s']:8.2f}x{row['requests']:10.0f}{row['request_kib']:9.0f}"
              f"{row['us_per_request']:8.0f}{row['cpu_s_per_gb']:10.2f}")
    print("(medians; requests: every FUSE request during the case; us/req and CPU s/GB: the daemon's CPU)")
    if args.out:
        with open(args.out, "w") as handle:
            json.dump(results, handle, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
