"""The FUSE client's requests to the manager, made on its event loop.

A request handed to a worker thread (`trio.to_thread`) cost the client about as much CPU
again as the request itself: thread wake-ups, the interpreter lock passed back and forth,
the thread renamed for each job. Here a connection is opened and authenticated in a worker
thread, once (`rpc.Connection`: the handshake is blocking), and then speaks from the loop
over a trio socket, with the same framing and checks (`protocol.Channel.seal`/`open`) and
the same retry rules as the threads' `rpc.Pool` (`rpc.Retry`): a manager restart is ridden
out for `retry_for` seconds.
"""

from __future__ import annotations

import errno
from typing import Any

import trio

from mosastore.protocol import PREFIX, TAG_BYTES, Header, ProtocolError, check_payload, payload_size, raise_for
from mosastore.rpc import CALL_TIMEOUT, Connection, Retry


class LoopConnection:
    """One authenticated connection, used from the event loop by one task at a time."""

    def __init__(self, connection: Connection) -> None:
        self._channel = connection.channel
        self._socket = trio.socket.from_stdlib_socket(connection.channel.sock)  # now non-blocking

    @classmethod
    async def open(cls, address: str, secret: bytes) -> LoopConnection:
        return cls(await trio.to_thread.run_sync(Connection, address, secret))

    async def call(self, header: Header, payload: bytes | bytearray | memoryview) -> tuple[Header, bytearray]:
        """Send one request and return the checked reply and its payload."""
        with trio.move_on_after(CALL_TIMEOUT):
            await self._send(self._channel.seal(header, payload))
            if payload:
                await self._send(payload)
            (length,) = PREFIX.unpack(await self._receive(PREFIX.size))
            encoded = bytes(await self._receive(length))
            reply = self._channel.open(encoded, bytes(await self._receive(TAG_BYTES)))
            size = payload_size(reply)
            data = await self._receive(size) if size else bytearray()
            if size:
                check_payload(reply, data)
            return reply, data
        raise TimeoutError(errno.ETIMEDOUT, f"no answer in {CALL_TIMEOUT:.0f} s")

    def close(self) -> None:
        # The socket under trio's, which closes anywhere (trio's only on the loop; a mount
        # closes its link once serving has ended). No task waits on it when it is closed.
        self._channel.close()

    async def _send(self, data: bytes | bytearray | memoryview) -> None:
        view = memoryview(data)
        while view:
            view = view[await self._socket.send(view):]

    async def _receive(self, size: int) -> bytearray:
        buffer = bytearray(size)
        view = memoryview(buffer)
        received = 0
        while received < size:
            count = await self._socket.recv_into(view[received:])
            if count == 0:
                raise ProtocolError("the server closed the connection")
            received += count
        return buffer


class ManagerLink:
    """Idle connections to the manager, reused by the loop's tasks (see the module docstring)."""

    def __init__(self, address: str, secret: bytes, retry_for: float = 60.0, max_idle: int = 16) -> None:
        self._address = address
        self._secret = secret
        self._retry_for = retry_for
        self._max_idle = max_idle
        self._idle: list[LoopConnection] = []

    async def call(self, op: str, payload: bytes | bytearray | memoryview = b"",
                   **fields: Any) -> tuple[Header, bytearray]:
        """Run one request; returns the success reply and its payload (`RemoteError` else)."""
        header = {"op": op, **fields}
        retry = Retry(self._address, self._retry_for)
        while True:
            connection = self._idle.pop() if self._idle else None
            fresh = connection is None
            try:
                if connection is None:
                    connection = await LoopConnection.open(self._address, self._secret)
                reply, data = await connection.call(header, payload)
            except Exception as error:  # noqa: BLE001 - `Retry` re-raises what is not retried
                if connection is not None:
                    connection.close()
                await trio.sleep(retry.after(error, fresh))
                continue
            except BaseException:  # cancelled: the connection may be in the middle of a message
                if connection is not None:
                    connection.close()
                raise
            if len(self._idle) < self._max_idle:
                self._idle.append(connection)
            else:
                connection.close()
            return raise_for(reply), data

    def close(self) -> None:
        """Close every idle connection; later calls open new ones."""
        idle, self._idle = self._idle, []
        for connection in idle:
            connection.close()
