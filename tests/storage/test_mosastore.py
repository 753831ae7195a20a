"""MosaStore: conformance through the mount, POSIX tools, placement, security, and faults.

One store (manager, 4 benefactors, FUSE mount) serves most tests; the fault
tests each start their own, since they kill parts of it. Every store is
started by the real service code and stopped by PID, and teardown checks
that no process or mount is left.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import signal
import socket
import sqlite3
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from hostkit.errors import StorageConfigError
from hostkit.records import ServiceRecord
from mosastore import deploy, service
from mosastore.adapter import MosaStoreAdapter
from mosastore.auth import AuthenticationError, check_secret, client_handshake
from mosastore.protocol import Channel, ProtocolError, RemoteError, send_message
from mosastore.rpc import Connection, Pool

from .abstract import StorageConformance
from .conftest import unique_name
from .mosastore.locality import count_locality
from .mosastore.stores import assert_nothing_left, module_store, running_store, skip_unless_fuse

MB = 1024 * 1024


store = module_store("mosastore-state", benefactors=4)


def mount_of(record: ServiceRecord) -> Path:
    return Path(record.info["mountpoint"])


def adapter_for(record: ServiceRecord, subdir: str) -> MosaStoreAdapter:
    adapter = MosaStoreAdapter(record.info["mountpoint"], record.info["manager"], record.secrets["secret"],
                               subdir=subdir, auto_mount=False)
    adapter.check()
    return adapter


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def run(*argv: str, env: dict[str, str] | None = None) -> str:
    result = subprocess.run(argv, capture_output=True, text=True, env=env, check=False)
    assert result.returncode == 0, f"{argv} failed: {result.stderr}"
    return result.stdout


def location(path: Path) -> list[str]:
    return os.getxattr(path, "user.mosastore.location").decode().split(",")


class TestMosaStore(StorageConformance):
    @pytest.fixture
    def adapter(self, store: ServiceRecord) -> Iterator[MosaStoreAdapter]:
        adapter = adapter_for(store, unique_name("conformance"))
        yield adapter
        adapter.close()


# ----- POSIX tools through the mount -----

def test_posix_tools_through_the_mount(store: ServiceRecord, tmp_path: Path) -> None:
    root = mount_of(store) / unique_name("posix")
    root.mkdir()
    source = tmp_path / "source.bin"
    source.write_bytes(os.urandom(5 * MB + 12345))
    expected = run("sha256sum", str(source)).split()[0]
    run("cp", str(source), str(root / "copy.bin"))
    assert run("sha256sum", str(root / "copy.bin")).split()[0] == expected
    run("dd", f"if={source}", f"of={root / 'dd.bin'}", "bs=64k", "status=none")
    with open(tmp_path / "catted", "wb") as catted:
        subprocess.run(["cat", str(root / "dd.bin")], stdout=catted, check=True)
    assert (tmp_path / "catted").read_bytes() == source.read_bytes()
    run("mkdir", "-p", str(root / "sub" / "deeper"))
    run("mv", str(root / "copy.bin"), str(root / "sub" / "deeper" / "moved.bin"))
    listing = run("ls", "-l", str(root / "sub" / "deeper"))
    assert "moved.bin" in listing and str(5 * MB + 12345) in listing
    assert not (root / "copy.bin").exists()
    run("cp", "-r", str(root / "sub"), str(root / "sub-copy"))
    assert run("sha256sum", str(root / "sub-copy" / "deeper" / "moved.bin")).split()[0] == expected
    run("dd", "if=/dev/zero", f"of={root / 'zeros'}", "bs=1M", "count=3", "status=none")
    assert (root / "zeros").stat().st_size == 3 * MB
    (root / "text.txt").write_text("line one\n")
    with open(root / "text.txt", "a") as handle:
        handle.write("line two\n")
    assert run("cat", str(root / "text.txt")) == "line one\nline two\n"
    run("rm", "-r", str(root / "sub-copy"))
    assert sorted(os.listdir(root)) == ["dd.bin", "sub", "text.txt", "zeros"]


def test_random_writes_truncation_and_rewrites(store: ServiceRecord) -> None:
    path = mount_of(store) / unique_name("rw")
    data = bytearray(os.urandom(3 * MB + 100))
    with open(path, "wb") as handle:
        handle.write(data)
        handle.seek(MB // 2)
        handle.write(b"X" * 1000)  # into a chunk that may already be uploaded
    data[MB // 2:MB // 2 + 1000] = b"X" * 1000
    assert path.read_bytes() == data
    with open(path, "r+b") as handle:  # an in-place rewrite of a closed file
        handle.seek(2 * MB)
        handle.write(b"Y" * 10)
    data[2 * MB:2 * MB + 10] = b"Y" * 10
    assert path.read_bytes() == data
    os.truncate(path, MB + 7)
    assert path.read_bytes() == data[:MB + 7]
    with open(path, "r+b") as handle:  # a hole past the end reads as zeros
        handle.seek(2 * MB)
        handle.write(b"end")
    assert path.read_bytes() == bytes(data[:MB + 7]) + bytes(MB - 7) + b"end"


@contextlib.contextmanager
def _reading_meanwhile(path: Path, check: Callable[[bytes], None], threads: int) -> Iterator[list[BaseException]]:
    """`threads` threads read `path` whole, again and again, and `check` what they read, until
    the block ends; yields what failed (filled once the block has ended)."""
    failures: list[BaseException] = []
    stop = threading.Event()

    def read_again_and_again() -> None:
        try:
            while not stop.is_set():
                check(path.read_bytes())
        except BaseException as error:  # noqa: BLE001 - reported by the caller
            failures.append(error)

    readers = [threading.Thread(target=read_again_and_again) for _ in range(threads)]
    for reader in readers:
        reader.start()
    try:
        yield failures
    finally:
        stop.set()
        for reader in readers:
            reader.join()


def test_appends_while_the_same_file_is_read_lose_nothing(store: ServiceRecord) -> None:
    """Each append (an open for writing without truncation) first fills a new version with
    the file's current chunks; readers opening the file meanwhile must neither see that half
    filled version nor close it under the writer (they once did: EBADF, ESPIPE)."""
    path = mount_of(store) / unique_name("append")
    base = os.urandom(6 * MB + 17)
    path.write_bytes(base)
    lines = [f"line {i}\n".encode() for i in range(30)]

    def check(data: bytes) -> None:
        assert data[:len(base)] == base and b"".join(lines).startswith(data[len(base):]), len(data)

    with _reading_meanwhile(path, check, threads=2) as failures:
        for line in lines:
            with open(path, "ab") as handle:
                handle.write(line)
    assert not failures, failures
    assert path.read_bytes() == base + b"".join(lines)


def test_the_mount_passes_its_spools_through_where_the_kernel_can(store: ServiceRecord) -> None:
    """As root on Linux 6.9 or later the kernel reads and writes spools itself (FUSE
    passthrough); elsewhere the data goes through the requests."""
    log = (Path(store.info["log"]) / "client.log").read_text()
    release = tuple(int(part) for part in os.uname().release.split(".")[:2] if part.isdigit())
    expected = "on" if os.geteuid() == 0 and release >= (6, 9) else "off"
    assert f"passthrough {expected}" in log


def test_a_rewrite_while_the_local_copy_is_read_lands_in_it(store: ServiceRecord) -> None:
    """A file written here is read from its local copy, passed through; the kernel then lets no
    other file serve the inode, so a rewrite while a reader holds it open is written in the
    copy (the reader sees it change, as on a local disk), and every new open sees it whole."""
    path = mount_of(store) / unique_name("copy")
    first, second, third = os.urandom(2 * MB + 5), os.urandom(MB + 3), os.urandom(3 * MB + 1)
    path.write_bytes(first)
    with open(path, "rb") as held:
        assert held.read() == first
        path.write_bytes(second)
        assert path.read_bytes() == second
        held.seek(0)
        assert held.read() == second
        write_as("node3", path, third)  # another node's version, while the copy is held open
        assert path.read_bytes() == third
        assert _read_uncached(path) == third
    assert path.read_bytes() == third


def test_readers_and_a_rewriter_of_one_file_never_fail(store: ServiceRecord) -> None:
    """Readers opening a file while it is rewritten (truncated, or not) never get an error (an
    open the kernel finds in conflict with the files it has open fails with EIO), nor a byte
    no version had (zeros where the kernel's size of the file ran ahead of its bytes)."""
    path = mount_of(store) / unique_name("race")
    versions = [bytes([index]) * (MB // 2 + index * 4099) for index in range(1, 13)]
    path.write_bytes(versions[0])
    written = {version[0] for version in versions}

    def check(data: bytes) -> None:
        assert set(data) <= written, sorted(set(data) - written)

    with _reading_meanwhile(path, check, threads=3) as failures:
        for index, version in enumerate(versions[1:]):
            with open(path, "wb" if index % 2 else "r+b") as handle:
                handle.truncate(0)
                handle.write(version)
    assert not failures, failures
    assert path.read_bytes() == versions[-1]


# ----- placement and locations -----

def write_as(node: str, path: Path, data: bytes) -> None:
    """Write a file from a process that runs on emulated node `node`."""
    env = {**os.environ, "SWIFTCLOUD_NODE": node}
    subprocess.run([sys.executable, "-c", f"import sys; open({str(path)!r}, 'wb').write(sys.stdin.buffer.read())"],
                   input=data, env=env, check=True)


def test_local_placement_keeps_every_chunk_on_the_writers_node(store: ServiceRecord) -> None:
    directory = mount_of(store) / unique_name("local")
    directory.mkdir()
    os.setxattr(directory, "user.mosastore.placement", b"local")
    for node in ("node1", "node3"):
        write_as(node, directory / f"from-{node}", os.urandom(3 * MB))
        assert location(directory / f"from-{node}") == [node]


def test_scatter_collocate_and_replicate(store: ServiceRecord) -> None:
    root = mount_of(store) / unique_name("hints")
    root.mkdir()
    (root / "striped").write_bytes(os.urandom(8 * MB))
    assert len(location(root / "striped")) == 4  # the default stripes over every benefactor
    (root / "group").mkdir()
    os.setxattr(root / "group", "user.mosastore.placement", b"collocate:reduce-7")
    for index in range(3):
        write_as(f"node{index}", root / "group" / f"part{index}", os.urandom(2 * MB))
    holders = {tuple(location(root / "group" / f"part{index}")) for index in range(3)}
    assert len(holders) == 1 and len(next(iter(holders))) == 1
    with open(root / "broadcast", "wb") as handle:  # a hint on the file itself, set while writing
        os.setxattr(handle.fileno(), "user.mosastore.placement", b"replicate:3")
        handle.write(os.urandom(3 * MB))
    assert len(location(root / "broadcast")) == 3
    assert os.getxattr(root / "broadcast", "user.mosastore.placement") == b"replicate:3"


def test_a_hint_set_on_a_directory_holds_for_the_next_file_at_once(store: ServiceRecord) -> None:
    directory = mount_of(store) / unique_name("rehint")
    directory.mkdir()
    write_as("node3", directory / "before", os.urandom(MB))  # the client keeps this file's plan
    os.setxattr(directory, "user.mosastore.placement", b"local")
    write_as("node3", directory / "after", os.urandom(3 * MB))
    assert location(directory / "after") == ["node3"]


def test_small_files_of_one_directory_spread_over_the_benefactors(store: ServiceRecord) -> None:
    directory = mount_of(store) / unique_name("small")
    directory.mkdir()
    for index in range(12):  # one chunk each, from one writer: one plan, kept
        (directory / f"part{index}").write_bytes(os.urandom(MB // 4))
    holders = [location(directory / f"part{index}") for index in range(12)]
    assert all(len(nodes) == 1 for nodes in holders), holders
    assert len({nodes[0] for nodes in holders}) > 1, holders  # on 4 benefactors, all on one: 2e-7


def test_bad_hints_and_read_only_location_are_refused(store: ServiceRecord) -> None:
    directory = mount_of(store) / unique_name("bad")
    directory.mkdir()
    for bad in (b"nearby", b"replicate:0", b"replicate:x", b"collocate:"):
        with pytest.raises(OSError) as caught:
            os.setxattr(directory, "user.mosastore.placement", bad)
        assert caught.value.errno == 22
    (directory / "f").write_bytes(b"x")
    with pytest.raises(PermissionError):
        os.setxattr(directory / "f", "user.mosastore.location", b"node0")


def test_adapter_locations_placement_and_writer_tag(store: ServiceRecord, monkeypatch: pytest.MonkeyPatch) -> None:
    adapter = adapter_for(store, unique_name("adapter"))
    adapter.mkdir("pipeline")
    adapter.set_placement("pipeline", "local")
    assert adapter.placement("pipeline") == "local"
    monkeypatch.setenv("SWIFTCLOUD_NODE", "node2")  # this process's /proc environ predates it
    adapter.pipe("pipeline/a.bin", os.urandom(2 * MB))
    adapter.put_file(__file__, "pipeline/b.py")
    assert adapter.locations("pipeline/a.bin") == ["node2"]
    assert adapter.locations("pipeline/b.py") == ["node2"]
    assert adapter.locations("pipeline") == []
    assert adapter.locations("no/such/file") == []
    with pytest.raises(ValueError):
        adapter.set_placement("pipeline", "everywhere")


def test_locality_count_from_a_run_log(store: ServiceRecord, tmp_path: Path) -> None:
    adapter = adapter_for(store, unique_name("locality"))
    adapter.mkdir("stage")
    adapter.set_placement("stage", "local")
    events = []
    for task, node in enumerate(["node0", "node1", "node2", "node3", "node1"]):
        write_as(node, Path(adapter.local_path(f"stage/in{task}")), b"x" * 1000)
        ran_on = node if task != 4 else "node0"  # the last task ran away from its input
        events.append({"event": "start", "task": task, "node": ran_on, "inputs": [f"stage/in{task}"]})
    log = tmp_path / "events.jsonl"
    log.write_text("".join(f"{json.dumps(event)}\n" for event in events))
    result = count_locality(str(log), adapter)
    assert (result.local, result.counted) == (4, 5)
    assert result.fraction == pytest.approx(0.8)


# ----- security -----

def test_wrong_secrets_and_raw_connections_are_refused(store: ServiceRecord) -> None:
    manager = store.info["manager"]
    with pytest.raises(AuthenticationError):
        Pool(manager, check_secret("not-the-secret-at-all"), retry_for=1).ping()
    host, port = manager.rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=5) as raw:
        assert b"challenge" in raw.recv(4096)
        send_message(raw, {"op": "lookup", "parent": 1, "name": "x"})  # a request instead of a proof
        answer = b""
        while chunk := raw.recv(4096):
            answer += chunk
        assert b"attrs" not in answer  # the connection was closed without serving anything
    with pytest.raises(ValueError):
        check_secret("short")


def _session(address: str, secret: bytes) -> tuple[socket.socket, bytes]:
    """A connection that passed the handshake, and its session key."""
    host, port = address.rsplit(":", 1)
    sock = socket.create_connection((host, int(port)), timeout=10)
    return sock, client_handshake(sock, secret)[1]


def _frame(key: bytes, header: dict[str, object], payload: bytes = b"") -> bytes:
    """The bytes a client's channel sends as its first message."""
    ours, theirs = socket.socketpair()
    with ours, theirs:
        Channel(ours, key, client=True).send(header, payload)
        ours.shutdown(socket.SHUT_WR)
        return _answer(theirs)


def _answer(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection."""
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return data


def test_messages_altered_replayed_or_with_a_wrong_payload_are_refused(store: ServiceRecord) -> None:
    secret = check_secret(store.secrets["secret"])
    manager = store.info["manager"]
    sock, key = _session(manager, secret)
    with sock:
        ping = _frame(key, {"op": "ping"})
        sock.sendall(ping)
        assert Channel(sock, key, client=True).recv()[0]["ok"] is True  # a good message is served
        sock.sendall(ping)  # the same message again: a replay
        assert _answer(sock) == b""
    sock, key = _session(manager, secret)
    with sock:
        altered = _frame(key, {"op": "ping"}).replace(b'"ping"', b'"pinG"')
        sock.sendall(altered)
        assert _answer(sock) == b""
    node = service.processes(store)[1]
    benefactor = f"127.0.0.1:{node.port}"
    chunk_key = "1-00000000000000aa-0"
    sock, key = _session(benefactor, secret)
    with sock:
        frame = _frame(key, {"op": "put", "key": chunk_key}, b"good bytes")
        sock.sendall(frame.replace(b"good bytes", b"evil bytes"))  # the payload does not match "d"
        assert _answer(sock) == b""
    with pytest.raises(RemoteError) as caught:
        Pool(benefactor, secret, retry_for=1).call("get", key=chunk_key)
    assert caught.value.errno == errno.ENOENT  # nothing was stored


def test_a_chunk_altered_on_the_wire_is_refused_by_the_client(store: ServiceRecord) -> None:
    secret = check_secret(store.secrets["secret"])
    node = service.processes(store)[1]
    chunk_key = "1-00000000000000bb-0"
    data = os.urandom(1 << 20)
    Pool(f"127.0.0.1:{node.port}", secret, retry_for=1).call("put", data, key=chunk_key)
    listener = socket.create_server(("127.0.0.1", 0))

    def tamper() -> None:
        client, _ = listener.accept()
        upstream = socket.create_connection(("127.0.0.1", node.port))
        threading.Thread(target=lambda: _pump(client, upstream, None), daemon=True).start()
        _pump(upstream, client, 512 * 1024)  # flips one byte half-way into the chunk

    threading.Thread(target=tamper, daemon=True).start()
    connection = Connection(f"127.0.0.1:{listener.getsockname()[1]}", secret)
    try:
        with pytest.raises(ProtocolError, match="digest"):
            connection.call({"op": "get", "key": chunk_key})
    finally:
        connection.close()
        listener.close()
    _, untampered = Pool(f"127.0.0.1:{node.port}", secret, retry_for=1).call("get", key=chunk_key)
    assert untampered == data


def _pump(source: socket.socket, sink: socket.socket, flip_at: int | None) -> None:
    """Copy `source` to `sink`, inverting the byte at offset `flip_at` of the stream."""
    seen = 0
    with contextlib.suppress(OSError):
        while data := source.recv(65536):
            if flip_at is not None and seen <= flip_at < seen + len(data):
                data = bytearray(data)
                data[flip_at - seen] ^= 0xFF
            seen += len(data)
            sink.sendall(data)
    with contextlib.suppress(OSError):
        sink.shutdown(socket.SHUT_WR)


def _chunk_files(record: ServiceRecord) -> set[Path]:
    return {path for path in (Path(record.info["log"]) / "benefactors").rglob("*") if path.is_file()}


def _flip_byte_at_rest(chunk: Path) -> None:
    """Invert one byte of a chunk's data on its benefactor's disk (not its stored digest)."""
    with open(chunk, "r+b") as handle:
        handle.seek(1000)
        byte = handle.read(1)
        handle.seek(1000)
        handle.write(bytes([byte[0] ^ 0xFF]))


def _read_uncached(path: Path) -> bytes:
    """The file's bytes as the store serves them: read by a process of another node (the
    mount's local copy of a file serves its writer's node only), the kernel's cached pages
    dropped first."""
    reader = ("import os, sys\nwith open(sys.argv[1], 'rb') as handle:\n"
              "    os.posix_fadvise(handle.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)\n"
              "    sys.stdout.buffer.write(handle.read())\n")
    done = subprocess.run([sys.executable, "-c", reader, str(path)], capture_output=True, check=False,
                          env={**os.environ, "SWIFTCLOUD_NODE": "node3"})
    if done.returncode != 0:
        number = errno.EIO if "Input/output error" in done.stderr.decode() else errno.EPERM
        raise OSError(number, done.stderr.decode().strip().splitlines()[-1])
    return done.stdout


def test_a_chunk_altered_at_rest_is_never_served(store: ServiceRecord) -> None:
    """A byte flipped in a chunk file on a benefactor's disk: a read of the only copy fails
    (EIO, the client saying which check failed); with a second replica, the reader gets the
    right bytes from it (issue 30 item 5)."""
    root = mount_of(store) / unique_name("at-rest")
    root.mkdir()
    data = os.urandom(MB // 2)  # one chunk
    before = _chunk_files(store)
    (root / "single").write_bytes(data)
    (chunk,) = _chunk_files(store) - before
    _flip_byte_at_rest(chunk)
    with pytest.raises(OSError) as failure:
        _read_uncached(root / "single")
    assert failure.value.errno == errno.EIO
    log = (Path(store.info["log"]) / "client.log").read_text()
    assert "sent data that failed its integrity check (a payload does not match its digest)" in log
    before = _chunk_files(store)
    with open(root / "replicated", "wb") as handle:
        os.setxattr(handle.fileno(), "user.mosastore.placement", b"replicate:2")
        handle.write(data)
    copies = sorted(_chunk_files(store) - before)
    assert len(copies) == 2
    _flip_byte_at_rest(copies[0])
    assert _read_uncached(root / "replicated") == data


def test_inode_numbers_are_reserved_in_blocks_that_never_overlap(store: ServiceRecord) -> None:
    manager = Pool(store.info["manager"], check_secret(store.secrets["secret"]), retry_for=1)
    first = manager.call("reserve", count=256)[0]
    second = manager.call("reserve", count=1)[0]
    assert first["count"] == 256 and second["count"] == 1
    assert second["ino"] >= first["ino"] + 256
    for count in (0, -1, 4097):
        with pytest.raises(RemoteError) as caught:
            manager.call("reserve", count=count)
        assert caught.value.errno == errno.EINVAL
    manager.close()


def test_a_directory_shows_the_files_created_in_it_at_once(store: ServiceRecord) -> None:
    """The client keeps directories' attributes (the kernel forgets them at every create), so
    its own changes must replace what it keeps: the commit's answer carries the directory's."""
    directory = mount_of(store) / unique_name("dir-attrs")
    directory.mkdir()
    (directory / "first").write_bytes(b"x")
    before = directory.stat()  # the kernel forgot them at the create: the client answers, and keeps them
    (directory / "second").write_bytes(b"y")
    after = directory.stat()
    assert after.st_mtime_ns > before.st_mtime_ns
    assert after.st_mtime_ns >= (directory / "second").stat().st_mtime_ns
    (directory / "second").unlink()
    assert directory.stat().st_mtime_ns > after.st_mtime_ns


def test_a_file_created_in_a_directory_removed_elsewhere_fails_at_close_and_publishes_nothing(
        store: ServiceRecord) -> None:
    """Creating a file asks the manager nothing (its inode number was reserved ahead): a
    directory another node removed meanwhile shows at the commit, as an error of the close."""
    name = unique_name("gone")
    directory = mount_of(store) / name
    directory.mkdir()
    manager = Pool(store.info["manager"], check_secret(store.secrets["secret"]), retry_for=1)
    manager.call("rmdir", parent=1, name=name)  # as another node's client would
    manager.close()
    handle = open(directory / "orphan", "wb")  # the kernel still knows the directory
    handle.write(b"data")
    with pytest.raises(FileNotFoundError):
        handle.close()
    assert not directory.exists()


def test_listing_a_directory_while_files_are_written_in_it_never_fails(store: ServiceRecord) -> None:
    """A listing merges the manager's names with the files being written here, as they are once
    the manager has answered (a file published meanwhile once made it fail: EIO)."""
    directory = mount_of(store) / unique_name("listing")
    directory.mkdir()
    names = [f"f{index}" for index in range(300)]
    failures: list[OSError] = []
    stop = threading.Event()

    def list_again_and_again() -> None:
        while not stop.is_set():
            try:
                listed = os.listdir(directory)
            except OSError as error:
                failures.append(error)
                return
            assert len(listed) == len(set(listed)), "a name listed twice"

    lister = threading.Thread(target=list_again_and_again)
    lister.start()
    try:
        for name in names:
            (directory / name).write_bytes(b"x")
    finally:
        stop.set()
        lister.join()
    assert failures == []
    assert sorted(os.listdir(directory)) == sorted(names)


def test_files_keep_no_set_id_bits_and_directories_keep_theirs(store: ServiceRecord) -> None:
    """The mounts tell the kernel they remove set-ID bits at every write themselves (so it stops
    asking for capabilities before each write): they keep none on files to begin with."""
    directory = mount_of(store) / unique_name("set-id")
    directory.mkdir()
    os.chmod(directory, 0o2755)
    path = directory / "tool"
    path.write_bytes(b"#!/bin/sh\n")
    os.chmod(path, 0o6755)
    assert stat.S_IMODE(path.stat().st_mode) == 0o755
    created = os.open(directory / "created", os.O_WRONLY | os.O_CREAT, 0o4750)
    os.close(created)
    assert stat.S_IMODE((directory / "created").stat().st_mode) == 0o750 & ~_umask()
    assert stat.S_IMODE(directory.stat().st_mode) == 0o2755


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


def test_names_and_chunk_keys_cannot_escape(store: ServiceRecord) -> None:
    secret = check_secret(store.secrets["secret"])
    manager = Pool(store.info["manager"], secret, retry_for=1)
    for name in ("..", ".", "a/b", "", "x\x00y"):
        with pytest.raises(RemoteError) as caught:
            manager.call("mkdir", parent=1, name=name, mode=0o755, uid=0, gid=0)
        assert caught.value.errno == 22
    node = service.processes(store)[1]
    benefactor = Pool(f"127.0.0.1:{node.port}", secret, retry_for=1)
    for key in ("../../etc/passwd", "/etc/passwd", "1-0123456789abcdef-0/../x"):
        with pytest.raises(RemoteError) as caught:
            benefactor.call("get", key=key)
        assert caught.value.errno == 22
    manager.close()
    benefactor.close()


def test_the_secret_is_never_logged_or_on_a_command_line(store: ServiceRecord) -> None:
    secret = store.secrets["secret"]
    Pool(store.info["manager"], check_secret("a-wrong-secret-1234"), retry_for=1).close()
    for log in Path(store.info["log"]).glob("*.log"):
        assert secret not in log.read_text()
    for process in service.processes(store):
        with open(f"/proc/{process.pid}/cmdline", "rb") as cmdline:
            assert secret.encode() not in cmdline.read()


# ----- faults -----

def test_killing_a_benefactor_during_replicated_reads_loses_nothing(tmp_path: Path) -> None:
    with running_store(str(tmp_path / "state"), benefactors=3) as record:
        root = mount_of(record) / "inputs"
        root.mkdir()
        os.setxattr(root, "user.mosastore.placement", b"replicate:2")
        # Large enough that most chunks are fetched after the kill (read-ahead is 8 chunks + 4 MiB).
        payloads = {f"f{index}": os.urandom(32 * MB + index) for index in range(3)}
        for name, data in payloads.items():
            (root / name).write_bytes(data)
        victim_node = location(root / "f0")[0]
        victim = next(p for p in service.processes(record) if p.node == victim_node and p.role == "benefactor")
        progress = threading.Semaphore(0)
        killed = threading.Event()
        results: dict[str, str] = {}
        after_kill: list[int] = []

        def read(name: str) -> None:
            hasher = hashlib.sha256()
            with open(root / name, "rb") as handle:
                os.posix_fadvise(handle.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)
                while block := handle.read(256 * 1024):
                    hasher.update(block)
                    if killed.is_set():
                        after_kill.append(len(block))
                    progress.release()
                    time.sleep(0.005)  # slow readers, so that the kill lands in the middle
            results[name] = hasher.hexdigest()

        readers = [threading.Thread(target=read, args=(name,)) for name in payloads]
        for reader in readers:
            reader.start()
        for _ in range(8):
            progress.acquire(timeout=30)
        os.kill(victim.pid, signal.SIGKILL)
        killed.set()
        for reader in readers:
            reader.join(timeout=120)
        assert results == {name: digest(data) for name, data in payloads.items()}
        assert sum(after_kill) > 2 * 20 * MB  # most of the bytes were read after the kill
        assert not victim.running()
        # Writes right after the loss (the manager still counts the node as alive) go elsewhere.
        fresh = os.urandom(6 * MB)
        (mount_of(record) / "after-loss.bin").write_bytes(fresh)
        assert (mount_of(record) / "after-loss.bin").read_bytes() == fresh
        assert victim_node not in location(mount_of(record) / "after-loss.bin")


def test_a_write_no_benefactor_can_take_fails_and_the_mount_serves_on(tmp_path: Path) -> None:
    """The only benefactor is gone: a file's chunks find no node (nor a spare) to go to. Its
    close reports the failure, the manager never hears of the file, and the mount goes on
    serving (a failed copy once ended the client itself)."""
    with running_store(str(tmp_path / "state"), benefactors=1) as record:
        benefactor = next(p for p in service.processes(record) if p.role == "benefactor")
        os.kill(benefactor.pid, signal.SIGKILL)
        with pytest.raises(OSError) as failed:
            (mount_of(record) / "lost.bin").write_bytes(os.urandom(3 * MB))
        assert failed.value.errno == errno.EIO
        manager = Pool(record.info["manager"], check_secret(record.secrets["secret"]), retry_for=5)
        with pytest.raises(RemoteError) as unpublished:
            manager.call("lookup", parent=1, name="lost.bin")
        assert unpublished.value.errno == errno.ENOENT
        (mount_of(record) / "empty").touch()  # an empty file needs no benefactor
        assert "empty" in os.listdir(mount_of(record))
        assert manager.call("lookup", parent=1, name="empty")[0]["attrs"]["size"] == 0


def test_a_lost_benefactors_copies_are_made_again_on_the_others(tmp_path: Path) -> None:
    """Issue 30 item 2: 4 benefactors, files replicated twice. The holder of every file's first
    copy is killed; once it is lost (`repair_after`, here 4 s: as soon as it is dead) the
    manager copies what it held to the others, so that no file names it any more. Then the
    other original holder of f0 is killed too: every file still reads back whole, from the
    copies the repair made."""
    with running_store(str(tmp_path / "state"), benefactors=4, repair_after=4.0) as record:
        root = mount_of(record) / "inputs"
        root.mkdir()
        os.setxattr(root, "user.mosastore.placement", b"replicate:2")
        payloads = {f"f{index}": os.urandom(3 * MB + index) for index in range(6)}
        for name, data in payloads.items():
            write_as("node1", root / name, data)  # the writer's node holds the first copy
        holders = {name: location(root / name) for name in payloads}
        assert all(len(nodes) == 2 and "node1" in nodes for nodes in holders.values()), holders
        benefactors = {p.node: p for p in service.processes(record) if p.role == "benefactor"}
        os.kill(benefactors["node1"].pid, signal.SIGKILL)
        deadline = time.monotonic() + 60
        while any("node1" in location(root / name) for name in payloads):
            assert time.monotonic() < deadline, {name: location(root / name) for name in payloads}
            time.sleep(0.2)
        repaired = {name: location(root / name) for name in payloads}
        assert all(len(nodes) == 2 for nodes in repaired.values()), repaired
        second = holders["f0"][1] if holders["f0"][0] == "node1" else holders["f0"][0]
        os.kill(benefactors[second].pid, signal.SIGKILL)
        for name, data in payloads.items():
            assert _read_uncached(root / name) == data, name


def test_a_manager_restart_keeps_every_closed_file(tmp_path: Path) -> None:
    with running_store(str(tmp_path / "state"), benefactors=2) as record:
        adapter = adapter_for(record, "kept")
        payloads = {f"dir{index % 3}/file{index}": os.urandom(MB * (index % 3) + 17 * index) for index in range(12)}
        for path, data in payloads.items():
            adapter.pipe(path, data)
        adapter.rename("dir0", "renamed0")
        service.restart_manager(str(tmp_path / "state"), kill=True)
        expected = {path.replace("dir0/", "renamed0/"): data for path, data in payloads.items()}
        assert adapter.find("") == sorted(expected)
        for path, data in expected.items():
            assert adapter.cat(path) == data
        adapter.pipe("after-restart.txt", b"still writable")
        assert adapter.cat("after-restart.txt") == b"still writable"


def test_a_writer_killed_before_close_never_publishes(tmp_path: Path) -> None:
    with running_store(str(tmp_path / "state"), benefactors=2) as record:
        target = mount_of(record) / "output.bin"
        writer = subprocess.Popen([sys.executable, "-c", (
            "import os, signal, sys\n"
            f"handle = open({str(target)!r}, 'wb')\n"
            "handle.write(os.urandom(5 * 1024 * 1024)); handle.flush()\n"
            "print('written', flush=True); sys.stdin.read()\n"
        )], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert writer.stdout is not None and writer.stdout.readline() == b"written\n"
        writer.kill()
        writer.wait()
        writer.stdin.close()  # type: ignore[union-attr]
        writer.stdout.close()
        assert not target.exists()
        assert os.listdir(mount_of(record)) == []
        # A writer that exits normally without closing still publishes its file whole.
        subprocess.run([sys.executable, "-c", f"import os; open({str(target)!r}, 'wb').write(b'done'); os._exit(0)"],
                       check=True)
        assert target.read_bytes() == b"done"


def test_a_client_crash_during_a_write_never_publishes(tmp_path: Path) -> None:
    with running_store(str(tmp_path / "state"), benefactors=2) as record:
        target = mount_of(record) / "half.bin"
        descriptor = os.open(target, os.O_WRONLY | os.O_CREAT, 0o644)
        os.write(descriptor, os.urandom(3 * MB))
        record = service.restart_client(str(tmp_path / "state"), kill=True)
        with contextlib.suppress(OSError):
            os.close(descriptor)  # on the dead connection of the old mount
        assert not target.exists()
        assert os.listdir(mount_of(record)) == []


# ----- try-it mode, auto-mount and configuration errors -----

def test_services_command_and_try_it_mode(tmp_path: Path) -> None:
    state = str(tmp_path / "state")
    env = {**os.environ, "SWIFTCLOUD_STATE_DIR": state}
    cli = [sys.executable, "-m", "swiftcloud"]
    skip_unless_fuse()
    started = run(*cli, "services", "start", "mosastore", "--benefactors", "2", "--state-dir", state, env=env)
    assert "nodes node0,node1" in started
    record = service.load_record(state, service.NAME)
    assert record is not None
    try:
        (tmp_path / "in.txt").write_bytes(b"through the CLI")
        run(*cli, "put", str(tmp_path / "in.txt"), "cli/in.txt", "--storage", "mosastore", env=env)
        run(*cli, "get", "cli/in.txt", str(tmp_path / "back.txt"), "--storage", "mosastore", env=env)
        assert (tmp_path / "back.txt").read_bytes() == b"through the CLI"
        assert "mosastore running" in run(*cli, "services", "status", "mosastore", "--state-dir", state, env=env)
        assert record.secrets["secret"] not in started
    finally:
        stopped = run(*cli, "services", "stop", "mosastore", "--state-dir", state, env=env)
    assert stopped.strip() == "mosastore stopped"
    assert_nothing_left(record)


def test_auto_mount_and_configuration_errors(store: ServiceRecord, tmp_path: Path) -> None:
    manager, secret = store.info["manager"], store.secrets["secret"]
    mounted = MosaStoreAdapter(str(tmp_path / "own-mount"), manager, secret, work_dir=str(tmp_path / "work"))
    mounted.check()
    try:
        assert deploy.mounted_fstype(str(tmp_path / "own-mount")) == deploy.FSTYPE
        mounted.pipe("auto/x.txt", b"mounted by the adapter")
        assert (mount_of(store) / "auto" / "x.txt").read_bytes() == b"mounted by the adapter"
    finally:
        mounted.close()
    assert deploy.mounted_fstype(str(tmp_path / "own-mount")) is None
    wrong = MosaStoreAdapter(str(tmp_path / "m2"), manager, "wrong-secret-wrong-secret", work_dir=str(tmp_path / "w"))
    with pytest.raises(StorageConfigError, match="refused the secret"):
        wrong.check()
    unreachable = MosaStoreAdapter(str(tmp_path / "m3"), "127.0.0.1:1", secret, work_dir=str(tmp_path / "w"))
    with pytest.raises(StorageConfigError, match="cannot reach the manager") as caught:
        unreachable.check()
    assert secret not in str(caught.value)
    with pytest.raises(StorageConfigError, match="auto_mount is false"):
        MosaStoreAdapter(str(tmp_path / "m4"), manager, secret, auto_mount=False).check()


def test_deleted_and_replaced_files_free_their_chunks(store: ServiceRecord) -> None:
    benefactors = Path(store.info["log"]) / "benefactors"

    def chunk_files() -> int:
        return sum(1 for path in benefactors.rglob("*") if path.is_file())

    def settle(expected: int) -> int:
        deadline = time.monotonic() + 10
        while chunk_files() != expected and time.monotonic() < deadline:
            time.sleep(0.1)
        return chunk_files()

    # Earlier tests' garbage first: the manager deletes a chunk, then its row in `garbage`.
    database = Path(store.info["mountpoint"]).parent / "manager" / "meta.db"
    assert database.is_file()

    def garbage_pending() -> int:
        with contextlib.closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True)) as db:
            return db.execute("SELECT COUNT(*) FROM garbage").fetchone()[0]

    deadline = time.monotonic() + 10
    while garbage_pending() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert garbage_pending() == 0, "the manager did not collect earlier garbage"
    before = chunk_files()
    path = mount_of(store) / unique_name("garbage")
    path.write_bytes(os.urandom(5 * MB))
    assert chunk_files() == before + 5
    path.write_bytes(os.urandom(2 * MB))  # replaced: the 5 old chunks go
    assert settle(before + 2) == before + 2
    path.unlink()
    assert settle(before) == before


def test_chunks_and_metadata_are_private_to_the_owner(store: ServiceRecord) -> None:
    """Whatever the umask, the store's data at rest is readable by its owner only (issue 16 item 7)."""
    (mount_of(store) / unique_name("private")).write_bytes(os.urandom(3 * MB))
    state = Path(store.info["mountpoint"]).parent
    data = [state / "manager"] + sorted((state / "benefactors").iterdir())
    checked = 0
    for top in data:
        for path in [top, *top.rglob("*")]:
            assert path.stat().st_mode & 0o077 == 0, f"{path} is open to others: {oct(path.stat().st_mode)}"
            checked += path.is_file()
    assert checked >= 2  # the metadata database and at least one chunk


def test_unauthenticated_connections_are_bounded(store: ServiceRecord) -> None:
    """Idle connections that never authenticate cannot pile up threads without bound (issue 16 item 7)."""
    from mosastore.server import MAX_HANDSHAKING

    host, port = store.info["manager"].rsplit(":", 1)
    idle = [socket.create_connection((host, int(port)), timeout=5) for _ in range(MAX_HANDSHAKING + 8)]
    try:
        refused = 0
        for sock in idle:
            sock.settimeout(5)
            data = sock.recv(4096)
            refused += data == b""  # closed at once instead of being sent a challenge
        assert refused >= 8
    finally:
        for sock in idle:
            sock.close()
    Pool(store.info["manager"], check_secret(store.secrets["secret"]), retry_for=15).ping()  # still serving
