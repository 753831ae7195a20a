"""A MosaStore benefactor: stores chunks in a node-local directory and serves them.

One per node. Chunks are files named by their key under `--dir` (a tmpfs
such as /dev/shm keeps them in RAM), mode 600 in mode-700 directories; a
chunk is written to a temporary name and renamed, so a reader never sees a
partial chunk. Each file holds the chunk's bytes and then their BLAKE3 digest (the
digest the writer's message carried, checked on arrival, or for a chunk a client of this host
passed as a range of its own file over the benefactor's local socket, the digest of the bytes
the kernel copied), so reads stream with `sendfile` under that stored digest and the client
checks the bytes. Keys are checked against a strict pattern, so a request can never name a
file outside the chunk directory. A thread
heart-beats to the manager every second with the node name, the address
clients should use, and the free space.

    python -m mosastore benefactor --node n1 --dir /local/chunks \\
        --listen 0.0.0.0:7001 --advertise n1.cluster:7001 --manager head:7000 --secret-file S
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import logging
import mmap
import os
import re
import shutil
import stat
import threading
import uuid
from collections.abc import Callable

from blake3 import blake3

from hostkit.file_copy import copy_range
from mosastore.auth import check_secret, read_secret_file
from mosastore.metadata import check_name
from mosastore.protocol import MAX_PAYLOAD, Channel, Header, int_field, ok, payload_digest, recv_descriptor
from mosastore.rpc import Pool
from mosastore.server import Reply, Server

log = logging.getLogger("mosastore.benefactor")
KEY_PATTERN = re.compile(r"^[0-9a-f]{1,16}-[0-9a-f]{16}-[0-9]{1,9}$")
HEARTBEAT_INTERVAL = 1.0
DIGEST_BYTES = 32  # the chunk's digest, after its bytes in its file


def chunk_key(ino: int, write_id: str, index: int) -> str:
    """The key of chunk `index` of one write of inode `ino` (`write_id`: 16 hex digits)."""
    return f"{ino:x}-{write_id}-{index}"


def new_write_id() -> str:
    return uuid.uuid4().hex[:16]


class ChunkStore:
    """Chunks as files in one directory tree, sharded by two hex digits."""

    def __init__(self, directory: str, capacity: int | None = None) -> None:
        self.directory = os.path.abspath(directory)
        os.makedirs(self.directory, exist_ok=True)
        self._capacity = capacity

    def path(self, key: str) -> str:
        if not isinstance(key, str) or not KEY_PATTERN.match(key):
            raise OSError(errno.EINVAL, f"invalid chunk key {key!r}")
        return os.path.join(self.directory, key.split("-")[1][:2], key)

    def put(self, key: str, data: bytearray, digest: str) -> None:
        """Store a chunk with its (already checked) hex digest."""
        def fill(chunk: int) -> None:
            with open(chunk, "wb", closefd=False) as handle:
                handle.write(data)
                handle.write(bytes.fromhex(digest))
        self._write(key, fill)

    def put_from(self, key: str, source: int, offset: int, length: int) -> None:
        """Store as a chunk up to `length` bytes of the local file open as `source`, from
        `offset` (fewer where it ends sooner, as a read would), copied by the kernel; its digest
        is taken of the bytes stored (the writer may still be changing its file: what is kept is
        what was copied, and its digest matches it)."""
        if not stat.S_ISREG(os.fstat(source).st_mode):
            raise OSError(errno.EINVAL, "a chunk is copied from a regular file only")
        if not 0 <= length <= MAX_PAYLOAD or offset < 0:
            raise OSError(errno.EINVAL, f"bad range of {length} bytes at {offset}")
        def fill(chunk: int) -> None:
            copied = copy_range(source, offset, chunk, length)  # fewer if the file was cut short
            digest = blake3(max_threads=1)
            if copied:
                with mmap.mmap(chunk, copied, prot=mmap.PROT_READ) as stored:
                    digest.update(stored)
            os.pwrite(chunk, digest.digest(), copied)
        self._write(key, fill)

    def _write(self, key: str, fill: Callable[[int], None]) -> None:
        """A chunk's file, filled by `fill(descriptor)` under a temporary name and renamed."""
        final = self.path(key)
        os.makedirs(os.path.dirname(final), exist_ok=True)
        temporary = f"{final}.tmp-{uuid.uuid4().hex[:8]}"
        try:
            chunk = os.open(temporary, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
            try:
                fill(chunk)
            finally:
                os.close(chunk)
            os.replace(temporary, final)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.remove(temporary)
            raise

    def delete(self, keys: list[str]) -> int:
        removed = 0
        for key in keys:
            try:
                os.remove(self.path(key))
                removed += 1
            except FileNotFoundError:
                pass
        return removed

    def space(self) -> tuple[int, int]:
        """(capacity, free) in bytes."""
        usage = shutil.disk_usage(self.directory)
        if self._capacity is None:
            return usage.total, usage.free
        used = sum(entry.stat().st_size for shard in os.scandir(self.directory) if shard.is_dir()
                   for entry in os.scandir(shard.path))
        return self._capacity, max(0, min(usage.free, self._capacity - used))


class Benefactor:
    """Request handlers of one benefactor."""

    def __init__(self, node: str, store: ChunkStore) -> None:
        self.node = node
        self.store = store

    def op_ping(self, request: Header, payload: bytearray, channel: Channel) -> Reply:
        return ok(role="benefactor", node=self.node), b""

    def op_put(self, request: Header, payload: bytearray, channel: Channel) -> Reply:
        # The channel has checked the payload against the digest its header carried.
        self.store.put(request["key"], payload, request["d"] if payload else payload_digest(b""))
        return ok(), b""

    def op_put_from(self, request: Header, payload: bytearray, channel: Channel) -> Reply:
        """Store a chunk copied from the file a client of this host passed after the request
        (over the local socket only)."""
        source = recv_descriptor(channel.sock)
        try:
            self.store.put_from(request["key"], source, int_field(request, "offset"),
                                int_field(request, "length"))
        finally:
            os.close(source)
        return ok(), b""

    def op_get(self, request: Header, payload: bytearray, channel: Channel) -> Reply:
        """Stream a whole chunk under its stored digest."""
        path = self.store.path(request["key"])
        with open(path, "rb") as handle:
            count = os.fstat(handle.fileno()).st_size - DIGEST_BYTES
            if count < 0:
                raise OSError(errno.EIO, f"chunk {request['key']} is damaged")
            digest = os.pread(handle.fileno(), DIGEST_BYTES, count).hex()
            if not count:
                channel.send(ok())
                return None
            channel.send_header(ok(n=count, d=digest))
            channel.sock.sendfile(handle, 0, count)
        return None

    def op_delete(self, request: Header, payload: bytearray, channel: Channel) -> Reply:
        keys = request["keys"]
        if not isinstance(keys, list):
            raise TypeError("keys must be a list")
        return ok(removed=self.store.delete(keys)), b""

    def op_space(self, request: Header, payload: bytearray, channel: Channel) -> Reply:
        capacity, free = self.store.space()
        return ok(capacity=capacity, free=free), b""


def heartbeat_forever(manager: Pool, node: str, address: str, local: str, store: ChunkStore,
                      stop: threading.Event) -> None:
    """Tell the manager we are alive (and how much room we have, and the name of our local
    socket) every second."""
    registered = False
    while True:
        capacity, free = store.space()
        try:
            manager.call("heartbeat", node=node, address=address, local=local, capacity=capacity, free=free)
            if not registered:
                log.info("registered with the manager at %s as %s (%s)", manager.address, node, address)
                registered = True
        except OSError as error:
            log.warning("heartbeat to the manager failed: %s", error)
            registered = False
        if stop.wait(HEARTBEAT_INTERVAL):
            return


def main(argv: list[str] | None = None) -> int:
    """Run a benefactor in the foreground until SIGTERM/SIGINT."""
    from mosastore.daemon import block_stop_signals, run_until_signal, setup_logging

    parser = argparse.ArgumentParser(prog="mosastore benefactor", description="MosaStore benefactor (chunk server)")
    parser.add_argument("--node", required=True, help="this node's name (as workers see it)")
    parser.add_argument("--dir", required=True, help="node-local directory for chunks (tmpfs for RAM)")
    parser.add_argument("--listen", required=True, help="HOST:PORT to listen on (port 0: any free port)")
    parser.add_argument("--advertise", help="HOST:PORT clients use to reach us (default: the listening address)")
    parser.add_argument("--manager", required=True, help="the manager's HOST:PORT")
    parser.add_argument("--secret-file", required=True, help="mode-600 file holding the shared secret")
    parser.add_argument("--capacity-mb", type=int, help="offer at most this much space")
    args = parser.parse_args(argv)
    setup_logging(f"benefactor {args.node}")
    block_stop_signals()  # before any thread starts
    secret = check_secret(read_secret_file(args.secret_file))
    node = check_name(args.node)
    store = ChunkStore(args.dir, args.capacity_mb * 1024 * 1024 if args.capacity_mb else None)
    host, _, port = args.listen.rpartition(":")
    # Clients of this host and network pass their files here instead of sending the bytes. Not
    # named after the node: a socket's name has at most 107 bytes, a node's up to 255.
    local = f"mosastore-benefactor-{uuid.uuid4().hex}"
    server = Server(Benefactor(node, store), "benefactor", secret, host, int(port), local=local)
    address = args.advertise or f"{server.host}:{server.port}"
    stop = threading.Event()
    manager = Pool(args.manager, secret, retry_for=0.5)
    threading.Thread(target=heartbeat_forever, args=(manager, node, address, local, store, stop),
                     daemon=True).start()
    log.info("benefactor %s serving %s on %s", node, store.directory, address)
    try:
        run_until_signal(server.serve_forever)
    finally:
        stop.set()
        server.shutdown()
        manager.close()
    return 0
