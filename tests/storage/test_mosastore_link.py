"""The MosaStore client's manager requests from its event loop (`mosastore.client.link`),
against a real manager: answers, payloads both ways, errors, concurrency, refusal, absence."""

from __future__ import annotations

import errno
import socket

import pytest
import trio

from hostkit.records import ServiceRecord
from mosastore.auth import AuthenticationError, check_secret
from mosastore.client.link import ManagerLink
from mosastore.protocol import RemoteError
from mosastore.rpc import Pool, Unreachable

from .mosastore.stores import module_store


store = module_store("mosastore-link", benefactors=1)


def _link(store: ServiceRecord, retry_for: float = 5.0) -> ManagerLink:
    return ManagerLink(store.info["manager"], check_secret(store.secrets["secret"]), retry_for=retry_for)


def test_answers_match_the_blocking_client_and_payloads_travel_both_ways(store: ServiceRecord) -> None:
    pool = Pool(store.info["manager"], check_secret(store.secrets["secret"]), retry_for=1)
    expected = pool.call("getattr", ino=1)[0]["attrs"]
    pool.close()
    link = _link(store)

    async def exchange() -> tuple[dict[str, object], bytes]:
        attrs = (await link.call("getattr", ino=1))[0]["attrs"]
        await link.call("setxattr", b"\x00value\xff" * 1000, ino=1, name="user.link-test")
        _, value = await link.call("getxattr", ino=1, name="user.link-test")
        return attrs, bytes(value)

    attrs, value = trio.run(exchange)
    link.close()
    assert attrs["ino"] == expected["ino"] == 1 and attrs["mode"] == expected["mode"]
    assert value == b"\x00value\xff" * 1000


def test_a_server_error_is_raised_with_its_errno(store: ServiceRecord) -> None:
    link = _link(store)

    async def missing() -> None:
        await link.call("lookup", parent=1, name="no-such-name-here")

    with pytest.raises(RemoteError) as caught:
        trio.run(missing)
    link.close()
    assert caught.value.errno == errno.ENOENT


def test_concurrent_requests_all_get_their_own_answer(store: ServiceRecord) -> None:
    link = _link(store)
    names = [f"link-dir-{index}" for index in range(40)]
    made: dict[str, int] = {}

    async def make(name: str) -> None:
        reply, _ = await link.call("mkdir", parent=1, name=name, mode=0o755, uid=0, gid=0)
        found, _ = await link.call("lookup", parent=1, name=name)
        assert found["attrs"]["ino"] == reply["attrs"]["ino"]
        made[name] = reply["attrs"]["ino"]

    async def all_at_once() -> None:
        async with trio.open_nursery() as nursery:
            for name in names:
                nursery.start_soon(make, name)

    trio.run(all_at_once)
    link.close()
    assert sorted(made) == sorted(names) and len(set(made.values())) == len(names)


def test_a_wrong_secret_is_refused_at_once(store: ServiceRecord) -> None:
    link = ManagerLink(store.info["manager"], b"not-the-secret-of-this-store", retry_for=30.0)

    async def ping() -> None:
        with trio.fail_after(10):  # refused, not retried for the 30 s it may retry
            await link.call("ping")

    with pytest.raises(AuthenticationError):
        trio.run(ping)


def test_a_manager_that_cannot_be_reached_is_given_up_after_the_retry_window() -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        address = f"127.0.0.1:{probe.getsockname()[1]}"
    link = ManagerLink(address, b"0123456789abcdef", retry_for=0.3)

    async def ping() -> None:
        await link.call("ping")

    with pytest.raises(Unreachable):
        trio.run(ping)
