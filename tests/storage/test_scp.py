"""The conformance suite on the `scp` backend against a real OpenSSH sshd on loopback."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from hostkit.records import ServiceRecord
from storage_adapters.scp import ScpAdapter

from .abstract import StorageConformance
from .conftest import unique_name


def scp_adapter(server: ServiceRecord, root: str) -> ScpAdapter:
    info = server.info
    return ScpAdapter(info["host"], root, info["key_file"], info["known_hosts"], info["port"], info["user"])


class TestScp(StorageConformance):
    @pytest.fixture
    def adapter(self, sshd_server: ServiceRecord) -> Iterator[ScpAdapter]:
        root = os.path.join(sshd_server.info["root"], unique_name("scp"))
        os.makedirs(root)
        store = scp_adapter(sshd_server, root)
        store.check()
        yield store
        store.close()


def test_sessions_are_reused_not_leaked(sshd_server: ServiceRecord) -> None:
    root = os.path.join(sshd_server.info["root"], unique_name("pool"))
    os.makedirs(root)
    with scp_adapter(sshd_server, root) as store:
        store.check()
        for index in range(30):
            store.pipe(f"f{index}", b"x")
            assert store.cat(f"f{index}") == b"x"
        # sshd allows 10 sessions per connection: sequential work must reuse one.
        assert len(store._idle) == 1
