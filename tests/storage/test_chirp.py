"""Chirp: conformance in both modes against a real chirp_server, POSIX through our mount, security.

One service (`swiftcloud services start chirp` code: a chirp_server on
127.0.0.1 and our FUSE mount of it) serves the module; it is stopped by PID
and checked to be gone (no process, no mount) at the end. The security
tests show a subject the ACL does not list being refused, and that the
server's catalog reports go to this machine only.
"""

from __future__ import annotations

import io
import os
import shutil
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from hostkit.errors import StorageConfigError
from hostkit.mounts import mount_client, mounted_fstype
from hostkit.private_names import part_name
from hostkit.records import ServiceRecord
from storage_adapters.chirp import service
from storage_adapters.chirp.adapter import ChirpAdapter, ChirpMountAdapter
from storage_adapters.chirp.client import ChirpClient
from storage_adapters.chirp.protocol import AuthenticationRefused, Connection
from storage_adapters.paths import temp_sibling

from .abstract import StorageConformance
from .conftest import assert_service_gone, unique_name
from .mosastore.stores import skip_unless_fuse

MB = 1024 * 1024
ROOT = Path(__file__).resolve().parents[2]


def assert_nothing_left(record: ServiceRecord) -> None:
    assert_service_gone(service.processes(record), record.info["mountpoint"])
    servers = [p for p in service.processes(record) if p.role == "server"]
    assert service._members([p.pid for p in servers]) == [], "a connection process was left running"


@pytest.fixture(scope="module")
def chirp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServiceRecord]:
    service.find_binary()  # not installed: an error, never a skip (setup installs it)
    skip_unless_fuse()
    state = str(tmp_path_factory.mktemp("chirp-state"))
    record = service.start(state)
    try:
        yield record
    finally:
        service.stop(state)
        try:
            assert_nothing_left(record)
        finally:
            service.purge(state)  # the servers' data (under /var/lib/swiftcloud as root), whatever was found


def mount_of(record: ServiceRecord) -> Path:
    return Path(record.info["mountpoint"])


class TestChirpStaging(StorageConformance):
    @pytest.fixture
    def adapter(self, chirp: ServiceRecord) -> Iterator[ChirpAdapter]:
        adapter = ChirpAdapter(chirp.info["server"], subdir=unique_name("staging"))
        adapter.check()
        yield adapter
        adapter.close()


class TestChirpShared(StorageConformance):
    @pytest.fixture
    def adapter(self, chirp: ServiceRecord) -> Iterator[ChirpMountAdapter]:
        adapter = ChirpMountAdapter(chirp.info["mountpoint"], chirp.info["server"],
                                    subdir=unique_name("shared"), auto_mount=False)
        adapter.check()
        yield adapter
        adapter.close()


# ----- the protocol client -----

def test_connection_speaks_for_our_unix_subject(chirp: ServiceRecord) -> None:
    host, port = chirp.info["server"].split(":")
    connection = Connection(host, int(port))
    try:
        assert connection.subject == service.default_subjects()[0]
        assert connection.whoami() == connection.subject
        [entry] = connection.getacl("/")
        subject, rights = entry.split()
        # read, write, list, delete (the server adds "p", put, which "w" implies); never admin.
        assert subject == connection.subject and set(rights) == set("rwldp")
    finally:
        connection.close()


def test_pooled_connection_dropped_by_the_server_is_replaced(chirp: ServiceRecord) -> None:
    client = ChirpClient(chirp.info["server"])
    try:
        first = client.call(lambda c: c)
        first._socket.shutdown(socket.SHUT_RDWR)  # as the server does to a connection idle too long
        assert client.call(lambda c: c.stat("/")).is_dir
        assert client.call(lambda c: c) is not first
    finally:
        client.close()


# ----- POSIX through the mount -----

def run(*argv: str) -> str:
    result = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=120)
    assert result.returncode == 0, f"{argv} failed: {result.stderr}"
    return result.stdout


def test_posix_tools_through_the_mount(chirp: ServiceRecord, tmp_path: Path) -> None:
    root = mount_of(chirp) / unique_name("posix")
    root.mkdir()
    source = tmp_path / "source.bin"
    source.write_bytes(os.urandom(5 * MB + 12345))
    run("cp", str(source), str(root / "copy.bin"))
    assert run("sha256sum", str(root / "copy.bin")).split()[0] == run("sha256sum", str(source)).split()[0]
    run("mkdir", "-p", str(root / "sub" / "deeper"))
    run("mv", str(root / "copy.bin"), str(root / "sub" / "deeper" / "moved.bin"))
    assert "moved.bin" in run("ls", "-l", str(root / "sub" / "deeper"))
    assert not (root / "copy.bin").exists()
    run("cp", "-r", str(root / "sub"), str(root / "sub-copy"))
    assert (root / "sub-copy" / "deeper" / "moved.bin").read_bytes() == source.read_bytes()
    (root / "text.txt").write_text("line one\n")
    with open(root / "text.txt", "a") as handle:
        handle.write("line two\n")
    assert run("cat", str(root / "text.txt")) == "line one\nline two\n"
    run("rm", "-r", str(root / "sub-copy"))
    assert sorted(os.listdir(root)) == ["sub", "text.txt"]


def test_random_reads_writes_truncation_and_rewrites(chirp: ServiceRecord) -> None:
    path = mount_of(chirp) / unique_name("rw")
    data = bytearray(os.urandom(3 * MB + 100))
    with open(path, "wb") as handle:
        handle.write(data)
        handle.seek(MB // 2)
        handle.write(b"X" * 1000)
    data[MB // 2:MB // 2 + 1000] = b"X" * 1000
    with open(path, "rb") as handle:  # reads at random offsets, across read blocks
        for offset in (2 * MB + 5, 7, MB - 3, 3 * MB + 90):
            handle.seek(offset)
            assert handle.read(20) == bytes(data[offset:offset + 20])
    with open(path, "r+b") as handle:  # an in-place rewrite of a published file
        handle.seek(2 * MB)
        handle.write(b"Y" * 10)
    data[2 * MB:2 * MB + 10] = b"Y" * 10
    assert path.read_bytes() == data
    os.truncate(path, MB + 7)
    assert path.read_bytes() == data[:MB + 7]


def test_a_file_is_invisible_on_another_mount_until_closed(chirp: ServiceRecord, tmp_path: Path) -> None:
    """Two clients (two mounts) of one server: a reader elsewhere never sees a partial file."""
    other = service.mount(str(tmp_path / "mnt2"), chirp.info["server"], str(tmp_path / "spool"),
                          str(tmp_path / "client2.log"))
    try:
        name = unique_name("shared")
        payload = os.urandom(4 * MB + 3)
        with open(mount_of(chirp) / name, "wb") as handle:
            handle.write(payload)
            handle.flush()
            assert not (tmp_path / "mnt2" / name).exists()
        assert (tmp_path / "mnt2" / name).read_bytes() == payload
        (tmp_path / "mnt2" / f"{name}.back").write_bytes(payload[::-1])
        assert (mount_of(chirp) / f"{name}.back").read_bytes() == payload[::-1]
    finally:
        service.release(str(tmp_path / "mnt2"), other)
    assert mounted_fstype(str(tmp_path / "mnt2")) is None


def test_only_a_temporary_found_absent_is_not_asked_for_again(chirp: ServiceRecord, tmp_path: Path) -> None:
    """The mount (here with a 60 s entry timeout) lets the kernel keep the absence of a
    temporary, a store's or an app output's (a random name only its writer uses,
    `hostkit.private_names`), so its writer's stat and then its create cost one request; any
    other name is asked of the server at every look, as another node may create it at any
    moment. A temporary written through the mount is whole under its own name once closed."""
    mountpoint = tmp_path / "mnt-long"
    argv = service.mount_argv(str(mountpoint), chirp.info["server"], str(tmp_path / "spool")) + ["--timeout", "60"]
    mountpoint.mkdir()
    client = mount_client(argv, os.path.realpath(mountpoint), service.FSTYPE, "the Chirp client",
                          str(tmp_path / "client.log"))
    try:
        directory = unique_name("absent")
        (mountpoint / directory).mkdir()
        temporaries = (temp_sibling(f"{directory}/out.txt"), f"{directory}/{part_name('out.txt')}")
        plain = f"{directory}/plain.txt"
        assert not any((mountpoint / name).exists() for name in (*temporaries, plain))
        server = ChirpClient(chirp.info["server"])
        try:
            for name in (*temporaries, plain):  # created by another client of the server meanwhile
                server.call(lambda connection, name=name: connection.putfile(f"/{name}", io.BytesIO(b"elsewhere"), 9))
        finally:
            server.close()
        assert (mountpoint / plain).read_bytes() == b"elsewhere"
        assert not any((mountpoint / temporary).exists() for temporary in temporaries)
        for written in (temp_sibling(f"{directory}/mine.txt"), f"{directory}/{part_name('mine.txt')}"):
            (mountpoint / written).write_bytes(b"mine, whole")
            assert (mount_of(chirp) / written).read_bytes() == b"mine, whole"
    finally:
        service.release(str(mountpoint), client)
    assert mounted_fstype(str(mountpoint)) is None


def test_a_temporary_this_mount_published_is_read_from_its_local_copy(chirp: ServiceRecord) -> None:
    """An app's output temporary, which its worker looks up and reads back for the output's
    digest, is answered from the spool this mount published: no other node can change a
    temporary. Under its own name, after the rename, the file is the store's again."""
    directory = unique_name("copy")
    (mount_of(chirp) / directory).mkdir()
    temporary, other = (f"{directory}/{part_name(name)}" for name in ("out.txt", "err.txt"))
    client = ChirpClient(chirp.info["server"])

    def behind_the_mounts_back(path: str, data: bytes) -> None:  # what no workflow does to a temporary
        client.call(lambda c: c.putfile(f"/{path}", io.BytesIO(data), len(data)))

    try:
        for path in (temporary, other):
            (mount_of(chirp) / path).write_bytes(b"written here\n")
        changed = b"changed here\n"  # the same size: the kernel may keep the size it was told
        behind_the_mounts_back(temporary, changed)
        behind_the_mounts_back(other, b"changed, and longer\n")
    finally:
        client.close()
    assert (mount_of(chirp) / temporary).read_bytes() == b"written here\n"
    assert os.stat(mount_of(chirp) / other).st_size == len(b"written here\n")
    os.rename(mount_of(chirp) / temporary, mount_of(chirp) / directory / "out.txt")
    assert (mount_of(chirp) / directory / "out.txt").read_bytes() == changed


def test_a_listing_read_after_a_rename_does_not_bring_the_old_name_back(chirp: ServiceRecord) -> None:
    """A directory listing is taken at opendir and read later; a file renamed in between
    must not reappear under its old name (seen: an app's `exists(temp)` after its
    `os.replace(temp, final)` said yes, and its unlink then failed with ENOENT)."""
    directory = mount_of(chirp) / unique_name("listing")
    directory.mkdir()
    temp, final = directory / "out.zip.part", directory / "out.zip"
    temp.write_bytes(b"archive")
    with os.scandir(directory) as listing:  # opendir: the listing is taken now
        os.replace(temp, final)
        assert [entry.name for entry in listing] == ["out.zip.part"]  # read now, as taken
    assert not temp.exists() and final.read_bytes() == b"archive"


def test_a_writer_killed_by_a_signal_publishes_nothing(chirp: ServiceRecord) -> None:
    path = mount_of(chirp) / unique_name("killed")
    writer = subprocess.Popen([sys.executable, "-c", (
        "import sys, time\n"
        f"handle = open({str(path)!r}, 'wb')\n"
        "handle.write(b'partial' * 1000); handle.flush()\n"
        "print('written', flush=True)\n"
        "time.sleep(60)\n")], stdout=subprocess.PIPE, text=True)
    assert writer.stdout is not None and writer.stdout.readline() == "written\n"
    writer.send_signal(signal.SIGKILL)
    writer.wait(30)
    assert not path.exists()
    assert not [name for name in os.listdir(path.parent) if path.name in name]


# ----- security and configuration -----

def test_a_subject_the_acl_does_not_list_is_refused(chirp: ServiceRecord) -> None:
    """A client running as another unix user authenticates (as unix:nobody) but may do nothing."""
    probe = (
        "import sys, types\n"
        "protocol = sys.modules['protocol'] = types.ModuleType('protocol')\n"
        "exec(compile(sys.stdin.read(), 'protocol.py', 'exec'), protocol.__dict__)\n"
        "Connection = protocol.Connection\n"
        "host, port = sys.argv[1].split(':')\n"
        "c = Connection(host, int(port))\n"
        "print(c.subject)\n"
        "for attempt in (lambda: c.getlongdir('/'), lambda: c.mkdir('/intruder'), lambda: c.stat('/')):\n"
        "    try:\n"
        "        attempt(); print('allowed')\n"
        "    except PermissionError as error:\n"
        "        print('refused', error.strerror)\n")
    # The system's Python, given the protocol module's source on its input: the project may sit
    # in a home that only its owner can enter, and the module needs nothing beyond the standard
    # library.
    protocol_source = (ROOT / "storage_adapters" / "chirp" / "protocol.py").read_text()
    result = subprocess.run(["/usr/bin/python3", "-c", probe, chirp.info["server"]], input=protocol_source,
                            user="nobody", group="nogroup", env={"PATH": os.environ["PATH"]}, cwd="/",
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "unix:nobody"
    assert lines[1:] == ["refused chirp getlongdir refused: not authorized by the server's ACL"] + [
        f"refused chirp {op} refused: not authorized by the server's ACL" for op in ("mkdir", "stat")]
    assert "intruder" not in os.listdir(mount_of(chirp))


def test_methods_the_server_does_not_accept_are_refused(chirp: ServiceRecord) -> None:
    host, port = chirp.info["server"].split(":")
    with pytest.raises(AuthenticationRefused, match="accepted none of the methods hostname, address"):
        Connection(host, int(port), methods=("hostname", "address"))


def test_an_unreachable_server_is_a_configuration_error(tmp_path: Path) -> None:
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    adapter = ChirpAdapter(f"127.0.0.1:{port}")
    with pytest.raises(StorageConfigError, match="cannot reach the chirp server"):
        adapter.check()


def test_a_server_whose_acl_lists_only_others_is_a_clear_error(tmp_path: Path) -> None:
    state = str(tmp_path / "state")
    server = service.start_server(state, "node0", ["unix:somebody-else"])
    try:
        adapter = ChirpAdapter(f"127.0.0.1:{server.port}")
        with pytest.raises(StorageConfigError, match=r"ACL does not grant unix:\w+ access"):
            adapter.check()
        adapter.close()
    finally:
        service.stop_servers([server])
        service.purge(state)
    assert not server.running()


def test_catalog_reports_go_to_this_machine_only(tmp_path: Path) -> None:
    """chirp_server reports to a catalog at start; with `--advertise 127.0.0.1` it is ours,
    here a UDP socket on the catalog port, and the report names the server we started."""
    catalog = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        catalog.bind(("127.0.0.1", 9097))
    except OSError as error:
        pytest.fail(f"the catalog port 9097 is taken on 127.0.0.1: {error}")
    catalog.settimeout(30)
    state = str(tmp_path / "state")
    server = service.start_server(state, "node-catalog-probe", service.default_subjects())
    senders = set()
    try:
        while True:  # other servers of this test session may report too: wait for ours
            report, sender = catalog.recvfrom(65536)
            senders.add(sender[0])
            if b"node-catalog-probe" in report:
                break
    finally:
        catalog.close()
        service.stop_servers([server])
        service.purge(state)
    assert senders == {"127.0.0.1"}
    assert str(server.port).encode() in report


def test_try_it_mode_and_a_table_with_only_the_mode(chirp: ServiceRecord, tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT),
           "SWIFTCLOUD_STATE_DIR": str(Path(chirp.info["mountpoint"]).parent.parent)}
    (tmp_path / "in.txt").write_text("through chirp\n")
    for mode in ("staging", "shared"):
        work = tmp_path / mode
        work.mkdir()
        (work / "swiftcloud.toml").write_text(f'[storage.chirp]\nmode = "{mode}"\n')
        name = f"try/{mode}.txt"
        put = subprocess.run([sys.executable, "-m", "swiftcloud", "put", "--storage", "chirp", str(tmp_path / "in.txt"),
                              name], cwd=work, env=env, capture_output=True, text=True, timeout=60)
        assert put.returncode == 0, put.stderr
        assert (mount_of(chirp) / name).read_text() == "through chirp\n"
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "swiftcloud.toml").write_text('[storage.chirp]\nmode = "mounted"\n')
    result = subprocess.run([sys.executable, "-m", "swiftcloud", "get", "--storage", "chirp", "x", "y"], cwd=bad,
                            env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    assert "setting 'mode' must be \"staging\" or \"shared\"" in result.stderr
    assert shutil.which("chirp_server")
