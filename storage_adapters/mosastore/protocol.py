"""The MosaStore wire format: length-prefixed JSON headers, optionally followed by raw bytes.

Every message is `!I` (header length) + a UTF-8 JSON object + `header["n"]`
payload bytes. Requests carry `"op"`; replies carry `"ok"` and, on failure,
`"errno"` and `"error"`. Chunk data travels as the payload, never inside
JSON, so a 1 MiB chunk costs one `recv_into` into a preallocated buffer (and
a `sendfile` on the benefactor side). Headers are bounded, so a peer that has
not authenticated cannot make a server allocate much.
"""

from __future__ import annotations

import errno
import json
import socket
import struct
from typing import Any

PREFIX = struct.Struct("!I")
MAX_HEADER = 4 * 1024 * 1024
# The largest payload a peer may announce (chunks are at most 64 MiB).
MAX_PAYLOAD = 64 * 1024 * 1024

Header = dict[str, Any]


class ProtocolError(ConnectionError):
    """The peer broke the framing (bad length, bad JSON) or closed mid-message."""


class RemoteError(OSError):
    """A server answered a request with an error; `errno` says which."""


def send_message(sock: socket.socket, header: Header, payload: bytes | bytearray | memoryview = b"") -> None:
    """Send one message; `header["n"]` is set to the payload length."""
    if payload:
        header = {**header, "n": len(payload)}
    encoded = json.dumps(header, separators=(",", ":")).encode()
    sock.sendall(PREFIX.pack(len(encoded)) + encoded)
    if payload:
        sock.sendall(payload)


def recv_exact(sock: socket.socket, size: int) -> bytearray:
    """Exactly `size` bytes from `sock` into a fresh buffer (one copy from the kernel)."""
    buffer = bytearray(size)
    view = memoryview(buffer)
    received = 0
    while received < size:
        count = sock.recv_into(view[received:], size - received)
        if count == 0:
            raise ProtocolError("connection closed in the middle of a message")
        received += count
    return buffer


def recv_header(sock: socket.socket, limit: int = MAX_HEADER) -> Header | None:
    """The next header, or None when the peer closed the connection cleanly between messages."""
    first = sock.recv(PREFIX.size, socket.MSG_WAITALL)
    if not first:
        return None
    if len(first) < PREFIX.size:
        first += bytes(recv_exact(sock, PREFIX.size - len(first)))
    (length,) = PREFIX.unpack(first)
    if length > limit:
        raise ProtocolError(f"header of {length} bytes exceeds the limit of {limit}")
    try:
        header = json.loads(bytes(recv_exact(sock, length)))
    except ValueError as error:
        raise ProtocolError("header is not valid JSON") from error
    if not isinstance(header, dict):
        raise ProtocolError("header is not a JSON object")
    return header


def payload_size(header: Header) -> int:
    """The announced payload length, checked."""
    size = header.get("n", 0)
    if not isinstance(size, int) or size < 0 or size > MAX_PAYLOAD:
        raise ProtocolError(f"bad payload length {size!r}")
    return size


def recv_message(sock: socket.socket, limit: int = MAX_HEADER) -> tuple[Header, bytearray] | None:
    """The next header and its payload, or None at a clean end of stream."""
    header = recv_header(sock, limit)
    if header is None:
        return None
    size = payload_size(header)
    return header, (recv_exact(sock, size) if size else bytearray())


def ok(**fields: Any) -> Header:
    """A success reply."""
    return {"ok": True, **fields}


def failure(code: int, message: str) -> Header:
    """An error reply carrying an errno."""
    return {"ok": False, "errno": code, "error": message}


def raise_for(reply: Header) -> Header:
    """Return a success reply, or raise the RemoteError it describes."""
    if reply.get("ok"):
        return reply
    code = reply.get("errno")
    raise RemoteError(code if isinstance(code, int) else errno.EIO, str(reply.get("error", "remote error")))
