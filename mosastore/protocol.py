"""The MosaStore wire format: length-prefixed JSON headers, optionally followed by raw bytes.

Every message is `!I` (header length) + a UTF-8 JSON object + `header["n"]`
payload bytes. Requests carry `"op"`; replies carry `"ok"` and, on failure,
`"errno"` and `"error"`. Chunk data travels as the payload, never inside
JSON, so a 1 MiB chunk costs one `recv_into` into a preallocated buffer (and
a `sendfile` on the benefactor side). Headers are bounded, so a peer that has
not authenticated cannot make a server allocate much.

The handshake (`auth`) uses bare messages; after it, a `Channel` carries every
message with integrity: the header is followed by HMAC-SHA256(session key,
direction | sequence number | header), and a header announcing a payload
carries its BLAKE3 digest (`"d"`; 10 GB/s on one core here, five times
SHA-256). A message that was altered, cut, replayed, reordered or reflected
back fails the check and ends the connection. The payload is bound through
its digest rather than by the MAC itself, so a benefactor can send a chunk
with `sendfile` under a digest it stored with the chunk, and the bytes never
pass through its memory.
"""

from __future__ import annotations

import errno
import hashlib
import hmac
import json
import os
import socket
import struct
from typing import Any

from blake3 import blake3

PREFIX = struct.Struct("!I")
MAX_HEADER = 4 * 1024 * 1024
# The largest payload a peer may announce (chunks are at most 64 MiB).
MAX_PAYLOAD = 64 * 1024 * 1024
TAG_BYTES = 32
SEQUENCE = struct.Struct("!Q")

Header = dict[str, Any]


class ProtocolError(ConnectionError):
    """The peer broke the framing (bad length, bad JSON) or closed mid-message."""


class CorruptPayload(ProtocolError):
    """A payload that does not match the digest its header carries: its bytes were altered on
    the way, or at rest (then asking again brings the same bytes)."""


class RemoteError(OSError):
    """A server answered a request with an error; `errno` says which."""


def send_message(sock: socket.socket, header: Header, payload: bytes | bytearray | memoryview = b"") -> None:
    """Send one bare message (the handshake's); `header["n"]` is set to the payload length."""
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


def _recv_frame(sock: socket.socket, limit: int) -> bytes | None:
    """The next header's encoded bytes, or None when the peer closed the connection cleanly
    between messages."""
    first = sock.recv(PREFIX.size, socket.MSG_WAITALL)
    if not first:
        return None
    if len(first) < PREFIX.size:
        first += bytes(recv_exact(sock, PREFIX.size - len(first)))
    (length,) = PREFIX.unpack(first)
    if length > limit:
        raise ProtocolError(f"header of {length} bytes exceeds the limit of {limit}")
    return bytes(recv_exact(sock, length))


def _parse(encoded: bytes) -> Header:
    try:
        header = json.loads(encoded)
    except ValueError as error:
        raise ProtocolError("header is not valid JSON") from error
    if not isinstance(header, dict):
        raise ProtocolError("header is not a JSON object")
    return header


def recv_header(sock: socket.socket, limit: int = MAX_HEADER) -> Header | None:
    """The next bare header (handshake only), or None at a clean end of stream."""
    encoded = _recv_frame(sock, limit)
    return None if encoded is None else _parse(encoded)


def payload_size(header: Header) -> int:
    """The announced payload length, checked."""
    size = header.get("n", 0)
    if not isinstance(size, int) or size < 0 or size > MAX_PAYLOAD:
        raise ProtocolError(f"bad payload length {size!r}")
    return size


def payload_digest(payload: bytes | bytearray | memoryview) -> str:
    """The digest a header carries for its payload (BLAKE3, 32 bytes, in hex)."""
    return blake3(payload, max_threads=1).hexdigest()


def check_payload(header: Header, payload: bytes | bytearray | memoryview) -> None:
    """Raise CorruptPayload unless `payload` has the digest its header announced."""
    if not hmac.compare_digest(str(header.get("d", "")), payload_digest(payload)):
        raise CorruptPayload("a payload does not match its digest")


class Channel:
    """An authenticated connection's messages, each checked for integrity (module docstring).

    Not thread-safe: one thread sends and receives on a channel at a time. `client` tells the
    two directions apart, so that a message cannot be reflected back to its sender.
    """

    def __init__(self, sock: socket.socket, key: bytes, client: bool) -> None:
        self.sock = sock
        self._key = key
        self._out, self._in = (b"c", b"s") if client else (b"s", b"c")
        self._sent = 0
        self._received = 0

    def send(self, header: Header, payload: bytes | bytearray | memoryview = b"") -> None:
        """Send one message; its payload length and digest are added to the header."""
        self.sock.sendall(self.seal(header, payload))
        if payload:
            self.sock.sendall(payload)

    def send_header(self, header: Header) -> None:
        """Send a header alone; if it announces `n` bytes with their digest `d`, the caller
        then writes exactly those bytes to `sock` (with `sendfile`, say)."""
        self.sock.sendall(self.seal(header))

    def seal(self, header: Header, payload: bytes | bytearray | memoryview = b"") -> bytes:
        """The framed, tagged header of the next message to send (`payload` follows it)."""
        if payload:
            header = {**header, "n": len(payload), "d": payload_digest(payload)}
        encoded = json.dumps(header, separators=(",", ":")).encode()
        tag = self._tag(self._out, self._sent, encoded)
        self._sent += 1
        return PREFIX.pack(len(encoded)) + encoded + tag

    def recv(self, limit: int = MAX_HEADER) -> tuple[Header, bytearray] | None:
        """The next message, checked; None at a clean end of stream. Raises ProtocolError on a
        message that fails its check."""
        encoded = _recv_frame(self.sock, limit)
        if encoded is None:
            return None
        header = self.open(encoded, bytes(recv_exact(self.sock, TAG_BYTES)))
        size = payload_size(header)
        if not size:
            return header, bytearray()
        payload = recv_exact(self.sock, size)
        check_payload(header, payload)
        return header, payload

    def open(self, encoded: bytes, tag: bytes) -> Header:
        """The header of the next message received, from its encoded bytes and their tag, checked."""
        if not hmac.compare_digest(tag, self._tag(self._in, self._received, encoded)):
            raise ProtocolError("a message failed its integrity check")
        self._received += 1
        return _parse(encoded)

    def close(self) -> None:
        self.sock.close()

    def _tag(self, direction: bytes, sequence: int, encoded: bytes) -> bytes:
        return hmac.new(self._key, direction + SEQUENCE.pack(sequence) + encoded, hashlib.sha256).digest()


def int_field(request: Header, key: str) -> int:
    """A request's integer field, checked (a bool is no integer here)."""
    value = request[key]
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{key} must be an integer")
    return value


def local_socket(name: str) -> str:
    """The address of a server's local socket: `@` and its abstract name. An abstract Unix
    socket lives in its network namespace, so only a client of the same host and network
    (an emulated node's own processes, not another node's) reaches it."""
    return "@" + name


def send_descriptor(sock: socket.socket, descriptor: int) -> None:
    """Pass an open file to the peer of a local socket (after the request that names its use)."""
    socket.send_fds(sock, [b"\0"], [descriptor])


def recv_descriptor(sock: socket.socket) -> int:
    """The open file the peer passed after its request; the caller closes it."""
    if sock.family != socket.AF_UNIX:
        raise OSError(errno.EINVAL, "files are passed over a local socket only")
    message, descriptors, _, _ = socket.recv_fds(sock, 1, 1)
    if len(message) != 1 or len(descriptors) != 1:
        for descriptor in descriptors:
            os.close(descriptor)
        raise ProtocolError("a request that passes a file came without it")
    return descriptors[0]


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
