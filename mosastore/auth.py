"""Challenge–response authentication with a shared secret, in both directions.

On every new connection the server sends a random challenge; the client
answers with its own nonce and HMAC-SHA256(secret, "client" | challenge |
nonce); the server checks it in constant time and proves itself back with
HMAC(secret, "server" | challenge | nonce), so a client never talks to an
impostor either. Only nonces and MACs cross the wire: the secret is never
sent, and it is never logged (it lives in a mode-600 file or an environment
variable). A connection that fails the exchange is closed at once.

Both sides then derive a session key, HMAC(secret, "session" | challenge |
nonce), fresh for every connection, under which `protocol.Channel` checks
every later message.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets as random_source
import socket

from mosastore.protocol import ProtocolError, recv_header, send_message

NONCE_BYTES = 32
MIN_SECRET_LENGTH = 16
HANDSHAKE_TIMEOUT = 10.0
# Headers during the handshake are tiny; refuse anything bigger before trusting the peer.
HANDSHAKE_HEADER_LIMIT = 4096
SECRET_ENV = "MOSASTORE_SECRET"


class AuthenticationError(ConnectionError):
    """The peer could not prove it knows the shared secret."""


def new_secret() -> str:
    """A fresh random secret (64 hex characters)."""
    return random_source.token_hex(32)


def check_secret(secret: str) -> bytes:
    """The secret as bytes, refusing empty or short ones."""
    if len(secret) < MIN_SECRET_LENGTH:
        raise ValueError(f"the MosaStore secret must have at least {MIN_SECRET_LENGTH} characters")
    return secret.encode()


def read_secret_file(path: str) -> str:
    """The secret stored in `path` (which must not be readable by other users)."""
    mode = os.stat(path).st_mode
    if mode & 0o077:
        raise PermissionError(f"secret file {path} must be private to its owner (chmod 600)")
    with open(path, encoding="utf-8") as handle:
        return handle.read().strip()


def write_secret_file(path: str, secret: str) -> None:
    """Store a secret in a new mode-600 file."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write(secret + "\n")


def _mac(secret: bytes, role: bytes, challenge: bytes, nonce: bytes) -> str:
    return hmac.new(secret, role + b"|" + challenge + b"|" + nonce, hashlib.sha256).hexdigest()


def _hex_field(header: dict[str, object], key: str) -> bytes:
    value = header.get(key)
    if not isinstance(value, str) or len(value) != 2 * NONCE_BYTES:
        raise AuthenticationError(f"malformed handshake field {key!r}")
    try:
        return bytes.fromhex(value)
    except ValueError as error:
        raise AuthenticationError(f"malformed handshake field {key!r}") from error


def session_key(secret: bytes, challenge: bytes, nonce: bytes) -> bytes:
    """The key of one connection's message checks."""
    return hmac.new(secret, b"session|" + challenge + b"|" + nonce, hashlib.sha256).digest()


def server_handshake(sock: socket.socket, secret: bytes, role: str) -> bytes:
    """Authenticate a freshly accepted client and return the session key; raise
    AuthenticationError if it fails."""
    challenge = os.urandom(NONCE_BYTES)
    sock.settimeout(HANDSHAKE_TIMEOUT)
    send_message(sock, {"challenge": challenge.hex(), "server": role})
    try:
        answer = recv_header(sock, HANDSHAKE_HEADER_LIMIT)
    except (ProtocolError, OSError) as error:
        raise AuthenticationError(f"handshake failed: {error}") from error
    if answer is None:
        raise AuthenticationError("client left during the handshake")
    nonce = _hex_field(answer, "nonce")
    proof = answer.get("proof")
    if not isinstance(proof, str) or not hmac.compare_digest(proof, _mac(secret, b"client", challenge, nonce)):
        send_message(sock, {"ok": False, "error": "authentication failed"})
        raise AuthenticationError("client failed the challenge")
    send_message(sock, {"ok": True, "proof": _mac(secret, b"server", challenge, nonce)})
    sock.settimeout(None)
    return session_key(secret, challenge, nonce)


def client_handshake(sock: socket.socket, secret: bytes,
                     timeout: float = HANDSHAKE_TIMEOUT) -> tuple[str, bytes]:
    """Prove the secret to the server and check its proof; returns the server's role and the
    session key."""
    sock.settimeout(timeout)
    try:
        hello = recv_header(sock, HANDSHAKE_HEADER_LIMIT)
        if hello is None:
            raise AuthenticationError("server closed the connection before the handshake")
        challenge = _hex_field(hello, "challenge")
        nonce = os.urandom(NONCE_BYTES)
        send_message(sock, {"nonce": nonce.hex(), "proof": _mac(secret, b"client", challenge, nonce)})
        verdict = recv_header(sock, HANDSHAKE_HEADER_LIMIT)
    except ProtocolError as error:
        raise AuthenticationError(f"handshake failed: {error}") from error
    if verdict is None or not verdict.get("ok"):
        raise AuthenticationError("the server refused the shared secret")
    proof = verdict.get("proof")
    if not isinstance(proof, str) or not hmac.compare_digest(proof, _mac(secret, b"server", challenge, nonce)):
        raise AuthenticationError("the server could not prove it knows the shared secret")
    sock.settimeout(None)
    return str(hello.get("server", "")), session_key(secret, challenge, nonce)
