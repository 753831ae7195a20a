"""MosaStore: chunks a client of the benefactor's own host passes as a range of its file over the
benefactor's local socket, copied by the kernel instead of sent, and the socket's refusals."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from hostkit.ports import free_port
from hostkit.records import ServiceRecord
from mosastore import deploy
from mosastore.auth import AuthenticationError, check_secret
from mosastore.client.store import SpoolRange, StoreClient
from mosastore.protocol import RemoteError, local_socket
from mosastore.rpc import Connection, Pool

from .mosastore.stores import module_store

MB = 1024 * 1024
DATA = os.urandom(3 * MB + 12345)


store = module_store("mosastore-local", benefactors=2)


def _secret(record: ServiceRecord) -> bytes:
    return check_secret(record.secrets["secret"])


def _benefactors(record: ServiceRecord) -> dict[str, dict[str, object]]:
    nodes: dict[str, dict[str, object]] = Pool(record.info["manager"], _secret(record), retry_for=5).call(
        "benefactors")[0]["nodes"]
    return nodes


def _source(tmp_path: Path) -> int:
    path = tmp_path / "source"
    path.write_bytes(DATA)
    return os.open(path, os.O_RDONLY)


def test_every_benefactor_names_its_local_socket(store: ServiceRecord) -> None:
    nodes = _benefactors(store)
    assert {"node0", "node1"} <= set(nodes)
    nodes = {node: nodes[node] for node in ("node0", "node1")}
    names = [str(info["local"]) for info in nodes.values()]
    assert all(name.startswith("mosastore-benefactor-") for name in names) and len(set(names)) == 2


def test_a_range_of_a_passed_file_is_stored_as_a_chunk(store: ServiceRecord, tmp_path: Path) -> None:
    secret = _secret(store)
    info = _benefactors(store)["node1"]
    local, remote = Pool(local_socket(str(info["local"])), secret, retry_for=1), Pool(str(info["address"]), secret)
    source = _source(tmp_path)
    try:
        local.call("put_from", descriptor=source, key="1-00000000000000cc-0", offset=MB + 5, length=MB)
        # A range past the file's end keeps what there is, as a read would.
        local.call("put_from", descriptor=source, key="1-00000000000000cc-1", offset=3 * MB, length=MB)
    finally:
        os.close(source)
    # Served over TCP under the digest stored with it, which the client checks.
    assert remote.call("get", key="1-00000000000000cc-0")[1] == DATA[MB + 5:2 * MB + 5]
    assert remote.call("get", key="1-00000000000000cc-1")[1] == DATA[3 * MB:]


def test_a_file_is_taken_only_over_the_local_socket_and_only_a_regular_one(store: ServiceRecord) -> None:
    secret = _secret(store)
    info = _benefactors(store)["node0"]
    with pytest.raises(RemoteError) as over_tcp:
        Pool(str(info["address"]), secret).call("put_from", key="1-00000000000000dd-0", offset=0, length=10)
    assert over_tcp.value.errno == errno.EINVAL and "local socket" in str(over_tcp.value)
    reader, writer = os.pipe()
    try:
        with pytest.raises(RemoteError) as a_pipe:
            Pool(local_socket(str(info["local"])), secret).call(
                "put_from", descriptor=reader, key="1-00000000000000dd-0", offset=0, length=10)
    finally:
        os.close(reader)
        os.close(writer)
    assert a_pipe.value.errno == errno.EINVAL and "regular file" in str(a_pipe.value)


def test_the_local_socket_asks_for_the_secret(store: ServiceRecord) -> None:
    name = local_socket(str(_benefactors(store)["node0"]["local"]))
    with pytest.raises(AuthenticationError):
        Connection(name, b"not the secret of this store")


def test_the_client_copies_locally_and_sends_to_a_socket_out_of_reach(store: ServiceRecord, tmp_path: Path) -> None:
    client = StoreClient(store.info["manager"], _secret(store))
    used: list[str] = []
    pools = client._benefactors
    original = pools.get

    def recording(address: str) -> Pool:
        used.append(address)
        return original(address)

    pools.get = recording  # type: ignore[method-assign]
    source = _source(tmp_path)
    try:
        chunk = SpoolRange(source, MB, MB)
        try:
            client.put("node1", "2-00000000000000ee-0", chunk)
            assert used == [local_socket(str(_benefactors(store)["node1"]["local"]))]
            # A socket of another host or network (here, a name nobody serves) is given up for
            # good, and the chunk is sent instead.
            client._locals["node1"] = local_socket("mosastore-benefactor-of-another-network")
            used.clear()
            client.put("node1", "2-00000000000000ee-1", chunk)
            client.put("node1", "2-00000000000000ee-2", chunk)
            address = str(_benefactors(store)["node1"]["address"])
            assert used == [local_socket("mosastore-benefactor-of-another-network"), address, address]
        finally:
            chunk.close()
        for key in ("2-00000000000000ee-0", "2-00000000000000ee-1", "2-00000000000000ee-2"):
            assert client.fetch(key, ["node1"], MB)[0] == DATA[MB:2 * MB]
    finally:
        os.close(source)
        client.close()


def test_a_benefactor_of_a_long_node_name_serves_its_local_socket(store: ServiceRecord, tmp_path: Path) -> None:
    """A node's name may be 255 bytes, a socket's 107: the socket is not named after the node."""
    node = "n" * 200
    secret_file = os.path.join(store.info["log"], "secret")
    benefactor = deploy.start_benefactor(node, str(tmp_path / "chunks"), free_port(), store.info["manager"],
                                         secret_file, str(tmp_path / "benefactor.log"))
    try:
        deploy.wait_for_benefactors(store.info["manager"], _secret(store), [node])
        name = local_socket(str(_benefactors(store)[node]["local"]))
        assert Pool(name, _secret(store)).ping()["node"] == node
    finally:
        assert benefactor.stop()
