"""The MosaStore manager: namespace and metadata server, benefactor registry, garbage collector.

Clients ask it for names, attributes and chunk lists (one `open` per file
open, never one request per chunk), reserve blocks of inode numbers for new files,
ask for a placement plan and commit finished files. Benefactors register by
heart-beating every second; one that is silent for `dead_after` seconds is
not given new chunks (its replicas still serve reads when it comes back).
One silent for `repair_after` seconds (30 by default) is lost: a repair
thread copies each chunk it held from a surviving replica to a live
benefactor that has none, and points the file at the new copy, as HDFS
re-replicates the blocks of a dead DataNode; what the lost node held becomes
garbage, deleted if it ever returns. State lives in SQLite
(`metadata.Metadata`), so a restart keeps every committed file. A collector
thread deletes the chunks of removed or replaced files from their benefactors.

    python -m mosastore manager --listen 127.0.0.1:7000 \\
        --db /var/lib/mosastore/meta.db --secret-file /etc/mosastore/secret
"""

from __future__ import annotations

import argparse
import errno
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from mosastore.auth import check_secret, read_secret_file
from mosastore.metadata import Metadata, check_name
from mosastore.placement import (
    LOCATION_XATTR,
    PLACEMENT_XATTR,
    Hint,
    choose_group_node,
    holders,
    make_plan,
    parse_hint,
)
from mosastore.protocol import Channel, Header, int_field, ok
from mosastore.rpc import PoolSet
from mosastore.server import Reply, Server

log = logging.getLogger("mosastore.manager")
DEFAULT_CHUNK_SIZE = 1024 * 1024
READDIR_BATCH = 1000
MAX_RESERVED = 4096  # inode numbers one `reserve` may take
GC_BATCH = 2000
REPAIR_BATCH = 200  # files read from the metadata at a time by the repair thread
# A repair round that could copy nothing (no survivor, no room) is not run again until the
# benefactors change, or this long after: a full scan of the metadata costs.
RESETTLE_S = 60.0


class Manager:
    """The request handlers (`op_*`) and background duties of the manager."""

    def __init__(self, metadata: Metadata, secret: bytes, chunk_size: int = DEFAULT_CHUNK_SIZE,
                 dead_after: float = 4.0, repair_after: float = 30.0) -> None:
        self.metadata = metadata
        self.chunk_size = chunk_size
        self.dead_after = dead_after
        self.repair_after = repair_after
        self._started = time.monotonic()
        self._settled: tuple[frozenset[str], frozenset[str]] | None = None  # see RESETTLE_S
        self._settled_at = 0.0
        # node -> (last heartbeat on the monotonic clock, free bytes, capacity bytes)
        self._seen: dict[str, tuple[float, int, int]] = {}
        self._addresses = metadata.known_benefactors()
        self._locals: dict[str, str] = {}  # node -> its local socket's name (as heard, not saved)
        self._lock = threading.Lock()
        self._pools = PoolSet(secret, retry_for=2.0)
        self._stopping = threading.Event()

    # ----- benefactors -----

    def live(self) -> dict[str, int]:
        """Live benefactors → free bytes."""
        now = time.monotonic()
        with self._lock:
            return {node: free for node, (seen, free, _) in self._seen.items() if now - seen < self.dead_after}

    def lost(self) -> set[str]:
        """Benefactors silent for `repair_after` seconds (known ones never heard from since this
        manager started count from its start)."""
        now = time.monotonic()
        with self._lock:
            return {node for node in self._addresses
                    if now - self._seen.get(node, (self._started, 0, 0))[0] >= self.repair_after}

    def op_heartbeat(self, request: Header, payload: bytearray, channel: Channel) -> Reply:
        node, address = check_name(request["node"]), str(request["address"])
        with self._lock:
            known = self._addresses.get(node)
            self._seen[node] = (time.monotonic(), int_field(request, "free"), int_field(request, "capacity"))
            self._addresses[node] = address
            self._locals[node] = str(request.get("local", ""))
        if known != address:
            self.metadata.save_benefactor(node, address)
            log.info("benefactor %s registered at %s", node, address)
        return ok(), b""

    def op_benefactors(self, request: Header, payload: bytearray, channel: Channel) -> Reply:
        live = self.live()
        with self._lock:
            nodes = {node: {"address": address, "local": self._locals.get(node, ""), "alive": node in live,
                            "free": live.get(node, 0)}
                     for node, address in self._addresses.items()}
        return ok(nodes=nodes), b""

    # ----- namespace -----

    def op_ping(self, request: Header, payload: bytearray, channel: Channel) -> Reply:
        return ok(role="manager", chunk_size=self.chunk_size), b""

    def op_getattr(self, request: Header, payload: bytearray, channel: Channel) -> Reply:
        return ok(attrs=self.metadata.getattr(int_field(request, "ino"))), b""

    def op_lookup(self, request: Header, payload: bytearray, channel: Channel) -> Reply:
        return ok(attrs=self.metadata.lookup(int_field(request, "parent"), request["name"])), b""

    def op_readdir(self, request: Header, payload: bytearray, channel: Channel) -> Reply:
        entries = self.metadata.readdir(int_field(request, "ino"), int_field(request, "after"), READDIR_BATCH)
        return ok(entries=entries), b""

    def op_open(self, request: Header, payload: bytearray, channel: Channel) -> Reply:
        return ok(file=self.metadata.open(int_field(request, "ino"))), b""

    def op_mkdir(self, request: Header, payload: bytearray, channel: Channel) -> Reply:
        attrs = self.metadata.mkdir(int_field(request, "parent"), request["name"], int_field(request, "mode"),
                                    int_field(request, "uid"), int_field(request, "gid"))
        return ok(attrs=attrs), b""

    def op_unlink(self, request: Header, payload: bytearray, channel: Channel) -> Reply:
        return ok(ino=self.metadata.unlink(int_field(request, "parent"), request["name"])), b""

    def op_rmdir(self, request: Header, payload: bytearray, channel: Channel) -> Reply:
        self.metadata.rmdir(int_field(request, "parent"), request["name"])
        return ok(), b""

    def op_rename(self, request: Header, payload: bytearray, channel: Channel) -> Reply:
        replaced = self.metadata.rename(int_field(request, "old_parent"), request["old_name"],
                                        int_field(request, "new_parent"), request["new_name"],
                                        int_field(request, "flags"))
        return ok(replaced=replaced), b""

    def op_setattr(self, request: Header, payload: bytearray, channel: Channel) -> Reply:
        changes = {key: int_field(request, key) for key in ("mode", "uid", "gid", "mtime_ns") if key in request}
        return ok(attrs=self.metadata.setattr(int_field(request, "ino"), changes)), b""

    def op_statfs(self, request: Header, payload: bytearray, channel: Channel) -> Reply:
        live = self.live()
        with self._lock:
            capacity = sum(self._seen[node][2] for node in live)
        return ok(free=sum(live.values()), capacity=capacity, **self.metadata.statfs()), b""

    # ----- writing files -----

    def op_reserve(self, request: Header, payload: bytearray, channel: Channel) -> Reply:
        """A block of `count` fresh inode numbers for files a client will create (`ino`, the first)."""
        count = int_field(request, "count")
        if not 1 <= count <= MAX_RESERVED:
            raise OSError(errno.EINVAL, f"count must be 1 to {MAX_RESERVED}")
        return ok(ino=self.metadata.reserve(count), count=count), b""

    def op_plan(self, request: Header, payload: bytearray, channel: Channel) -> Reply:
        """The plan for an explicit hint, or for the hint of inode `start` or its nearest ancestor."""
        hint = parse_hint(request["hint"]) if request.get("hint") else self._inherited_hint(int_field(request, "start"))
        return ok(plan=self._plan(hint, str(request["writer"]))), b""

    def op_commit(self, request: Header, payload: bytearray, channel: Channel) -> Reply:
        keys = ("size", "chunk_size", "chunks", "mode", "uid", "gid", "mtime_ns", "xattrs")
        fields = {key: request[key] for key in keys}
        _check_chunks(fields["chunks"])
        attrs, parent = self.metadata.commit(int_field(request, "ino"), int_field(request, "parent"),
                                             str(request["name"]), fields)
        return ok(attrs=attrs, parent=parent), b""

    def op_discard(self, request: Header, payload: bytearray, channel: Channel) -> Reply:
        """Chunks of a write that was abandoned: collect them."""
        _check_chunks(request["chunks"])
        self.metadata.add_garbage(request["chunks"])
        return ok(), b""

    def _inherited_hint(self, ino: int) -> Hint:
        for _, xattrs in self.metadata.parent_chain(ino):
            if PLACEMENT_XATTR in xattrs:
                return parse_hint(bytes.fromhex(xattrs[PLACEMENT_XATTR]).decode())
        return Hint()

    def _plan(self, hint: Hint, writer: str) -> dict[str, object]:
        live = self.live()
        deadline = time.monotonic() + self.dead_after
        while not live and time.monotonic() < deadline:
            # Just restarted, or every benefactor is briefly late: give heartbeats a chance.
            time.sleep(0.1)
            live = self.live()
        if not live:
            raise OSError(errno.ENOSPC, "no live benefactor to store data on")
        group_node = None
        if hint.kind == "collocate":
            group_node = self.metadata.group_node(hint.group)
            if group_node not in live:
                group_node = choose_group_node(live, self.metadata.groups_per_node())
                self.metadata.set_group_node(hint.group, group_node)
        return make_plan(hint, writer, live, group_node).to_json()

    # ----- extended attributes -----

    def op_getxattr(self, request: Header, payload: bytearray, channel: Channel) -> Reply:
        ino, name = int_field(request, "ino"), str(request["name"])
        if name == LOCATION_XATTR:
            try:
                opened = self.metadata.open(ino)
            except IsADirectoryError as error:
                raise OSError(errno.ENODATA, "directories have no location") from error
            return ok(), ",".join(holders(opened["chunks"])).encode()
        value = self.metadata.xattrs(ino).get(name)
        if value is None:
            raise OSError(errno.ENODATA, "no such attribute")
        return ok(), bytes.fromhex(value)

    def op_setxattr(self, request: Header, payload: bytearray, channel: Channel) -> Reply:
        ino, name = int_field(request, "ino"), str(request["name"])
        if name == LOCATION_XATTR:
            raise OSError(errno.EPERM, f"{LOCATION_XATTR} is read-only")
        if name == PLACEMENT_XATTR:
            try:
                parse_hint(bytes(payload).decode())
            except (UnicodeDecodeError, ValueError) as error:
                raise OSError(errno.EINVAL, str(error)) from error
        xattrs = self.metadata.xattrs(ino)
        xattrs[name] = bytes(payload).hex()
        self.metadata.set_xattrs(ino, xattrs)
        return ok(), b""

    def op_listxattr(self, request: Header, payload: bytearray, channel: Channel) -> Reply:
        ino = int_field(request, "ino")
        names = sorted(self.metadata.xattrs(ino))
        return ok(names=names), b""

    def op_removexattr(self, request: Header, payload: bytearray, channel: Channel) -> Reply:
        ino, name = int_field(request, "ino"), str(request["name"])
        xattrs = self.metadata.xattrs(ino)
        if xattrs.pop(name, None) is None:
            raise OSError(errno.ENODATA, "no such attribute")
        self.metadata.set_xattrs(ino, xattrs)
        return ok(), b""

    # ----- background duties -----

    def every(self, interval: float, duty: Callable[[], int], what: str) -> None:
        """Run `duty` every `interval` seconds until `stop()`. A round that fails is logged and the
        next one starts afresh: what it left undone (garbage rows, unrepaired chunks) is still there."""
        while not self._stopping.wait(interval):
            try:
                duty()
            except Exception:  # noqa: BLE001 - a background duty must outlive one bad round
                log.exception("%s failed", what)

    # ----- garbage collection -----

    def collect_garbage(self) -> int:
        """One round: returns how many chunk copies were deleted."""
        live = self.live()
        by_node: dict[str, list[str]] = {}
        for key, node in self.metadata.garbage(GC_BATCH):
            by_node.setdefault(node, []).append(key)
        deleted = 0
        for node, keys in by_node.items():
            address = self._addresses.get(node)
            if node not in live or address is None:
                continue
            try:
                self._pools.get(address).call("delete", keys=keys)
            except OSError as error:
                log.warning("could not delete %d chunks on %s: %s", len(keys), node, error)
                continue
            self.metadata.collected([(key, node) for key in keys])
            deleted += len(keys)
        return deleted

    # ----- repair of the replicas of lost benefactors -----

    def repair(self) -> int:
        """One round: every file with a chunk copy on a lost benefactor gets a new copy on a live
        one; returns how many chunk copies were made."""
        lost = self.lost()
        live = self.live()
        membership = (frozenset(lost), frozenset(live))
        if not lost or (membership == self._settled and time.monotonic() - self._settled_at < RESETTLE_S):
            return 0  # nothing changed since a round that could copy nothing more
        made, after = 0, 0
        while files := self.metadata.files_on(lost, after, REPAIR_BATCH):
            for ino, version, chunks in files:
                after = ino
                repaired, copies = [], []
                for key, nodes, length in chunks:
                    new_nodes = self._copied_elsewhere(key, nodes, length, lost, live)
                    repaired.append([key, new_nodes, length])
                    copies += [[key, [node], length] for node in new_nodes if node not in nodes]
                if not copies:
                    continue  # no survivor or no room: tried again next round
                if self.metadata.replace_chunks(ino, version, repaired):
                    # The copies replaced are garbage: deleted if their lost nodes ever come back.
                    self.metadata.add_garbage([[key, [n for n in nodes if n not in new[1]], length]
                                               for (key, nodes, length), new in zip(chunks, repaired)])
                    made += len(copies)
                else:  # rewritten or removed meanwhile: the new copies belong to no file
                    self.metadata.add_garbage(copies)
        if not made:
            self._settled, self._settled_at = membership, time.monotonic()
        else:
            log.info("re-replicated %d chunk copies held by lost benefactor(s) %s", made, ", ".join(sorted(lost)))
        return made

    def _copied_elsewhere(self, key: str, nodes: list[str], length: int, lost: set[str],
                          live: dict[str, int]) -> list[str]:
        """The nodes of chunk `key` with each copy on a lost node replaced by a new one on a
        live node that had none, as far as a survivor and room allow."""
        sources = [node for node in nodes if node in live]
        spare = sorted((node for node in live if node not in nodes), key=lambda node: -live[node])
        result = []
        for node in nodes:
            if node not in lost or not sources or not spare:
                result.append(node)
                continue
            target = spare.pop(0)
            try:
                self._copy(key, length, sources, target)
            except OSError as error:
                log.warning("could not copy chunk %s to %s: %s", key, target, error)
                result.append(node)
                continue
            result.append(target)
        return result

    def _copy(self, key: str, length: int, sources: list[str], target: str) -> None:
        """Chunk `key` from the first source that serves it whole to `target` (digests checked on
        both legs by the channel)."""
        failures = []
        for source in sources:
            try:
                _, data = self._pools.get(self._addresses[source]).call("get", key=key)
            except OSError as error:
                failures.append(f"{source}: {error.strerror or error}")
                continue
            if len(data) != length:
                failures.append(f"{source}: {len(data)} bytes, expected {length}")
                continue
            self._pools.get(self._addresses[target]).call("put", data, key=key)
            return
        raise OSError(errno.EIO, "no survivor served it (" + "; ".join(failures) + ")")

    def stop(self) -> None:
        self._stopping.set()
        self._pools.close()


def _check_chunks(chunks: Any) -> None:
    if not isinstance(chunks, list) or not all(
        isinstance(c, list) and len(c) == 3 and isinstance(c[0], str) and isinstance(c[1], list)
        and all(isinstance(n, str) for n in c[1]) and isinstance(c[2], int) for c in chunks
    ):
        raise ValueError("chunks must be [[key, [node, ...], length], ...]")


def main(argv: list[str] | None = None) -> int:
    """Run a manager in the foreground until SIGTERM/SIGINT."""
    from mosastore.daemon import block_stop_signals, run_until_signal, setup_logging

    parser = argparse.ArgumentParser(prog="mosastore manager", description="MosaStore metadata manager")
    parser.add_argument("--listen", required=True, help="HOST:PORT to listen on")
    parser.add_argument("--db", required=True, help="SQLite file holding the namespace")
    parser.add_argument("--secret-file", required=True, help="mode-600 file holding the shared secret")
    parser.add_argument("--chunk-size", type=int, default=DEFAULT_CHUNK_SIZE, help="bytes per chunk (default 1 MiB)")
    parser.add_argument("--dead-after", type=float, default=4.0,
                        help="seconds without heartbeat before a benefactor is dead")
    parser.add_argument("--repair-after", type=float, default=30.0,
                        help="seconds without heartbeat before a benefactor is lost and what it held is"
                             " copied elsewhere (default 30)")
    parser.add_argument("--durable", action="store_true", help="fsync every metadata transaction")
    args = parser.parse_args(argv)
    setup_logging("manager")
    block_stop_signals()  # before any thread starts
    secret = check_secret(read_secret_file(args.secret_file))
    if not 4096 <= args.chunk_size <= 64 * 1024 * 1024:
        parser.error("--chunk-size must be between 4 KiB and 64 MiB")
    if args.repair_after < args.dead_after:
        parser.error("--repair-after must be at least --dead-after: a node is lost only once it is dead")
    metadata = Metadata(args.db, durable=args.durable)
    manager = Manager(metadata, secret, args.chunk_size, args.dead_after, args.repair_after)
    host, _, port = args.listen.rpartition(":")
    server = Server(manager, "manager", secret, host, int(port))
    threading.Thread(target=manager.every, args=(0.5, manager.collect_garbage, "garbage collection"),
                     daemon=True).start()
    threading.Thread(target=manager.every, args=(1.0, manager.repair, "repair"), daemon=True).start()
    log.info("manager listening on %s:%s, metadata in %s", server.host, server.port, args.db)
    try:
        run_until_signal(server.serve_forever)
    finally:
        server.shutdown()
        manager.stop()
        metadata.close()
    return 0
