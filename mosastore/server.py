"""A small threaded TCP server shared by the manager and the benefactors.

One thread per connection: it authenticates the peer (`auth.server_handshake`),
then loops receive → dispatch → reply over the connection's checked `Channel`.
A request `{"op": "lookup", ...}` is
handled by the service object's `op_lookup(request, payload, channel)`, which
returns `(reply_header, reply_payload)` or None when it has written its reply
itself (a benefactor streams chunks with `sendfile`). An `OSError` becomes an
error reply with its errno; a malformed request becomes EINVAL; anything else
is logged and answered with EIO, so one bad request never kills the server.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import socket
import threading
from collections.abc import Callable
from typing import Any

from mosastore.auth import AuthenticationError, server_handshake
from mosastore.protocol import Channel, Header, ProtocolError, failure

log = logging.getLogger("mosastore.server")

Reply = tuple[Header, bytes | bytearray | memoryview] | None
# Bounds on what unauthenticated peers can hold: connections still in their handshake
# (each has a thread for at most auth.HANDSHAKE_TIMEOUT), and connections in all.
MAX_HANDSHAKING = 32
MAX_CONNECTIONS = 1024
Handler = Callable[[Header, bytearray, Channel], Reply]


class Server:
    """Accepts authenticated connections and dispatches their requests to `service.op_*`; on
    TCP, and on the abstract Unix socket `local` names if given (`protocol.local_socket`)."""

    def __init__(self, service: Any, role: str, secret: bytes, host: str, port: int,
                 local: str | None = None) -> None:
        self._service = service
        self._role = role
        self._secret = secret
        self._listener = socket.create_server((host, port), backlog=128, reuse_port=False)
        self.host, self.port = self._listener.getsockname()[:2]
        self._local_listener: socket.socket | None = None
        if local is not None:
            self._local_listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self._local_listener.bind("\0" + local)
            self._local_listener.listen(128)
        self._connections: set[socket.socket] = set()
        self._handshaking = 0
        self._lock = threading.Lock()
        self._stopping = threading.Event()

    def serve_forever(self) -> None:
        """Accept connections until `shutdown()`."""
        if self._local_listener is not None:
            threading.Thread(target=self._accept_forever, args=(self._local_listener,), daemon=True).start()
        self._accept_forever(self._listener)

    def _accept_forever(self, listener: socket.socket) -> None:
        while not self._stopping.is_set():
            try:
                sock, address = listener.accept()
            except OSError:
                if self._stopping.is_set():
                    return
                raise
            if listener is self._local_listener:
                peer = "a local client"
            else:
                peer = f"{address[0]}:{address[1]}"
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            with self._lock:
                full = self._handshaking >= MAX_HANDSHAKING or len(self._connections) >= MAX_CONNECTIONS
                if not full:
                    self._connections.add(sock)
                    self._handshaking += 1
            if full:
                log.warning("refused connection from %s: too many connections", peer)
                sock.close()
                continue
            threading.Thread(target=self._serve_connection, args=(sock, peer), daemon=True).start()

    def shutdown(self) -> None:
        """Stop accepting and drop every open connection."""
        self._stopping.set()
        for listener in (self._listener, self._local_listener):
            if listener is not None:
                with contextlib.suppress(OSError):
                    listener.shutdown(socket.SHUT_RDWR)
                listener.close()
        with self._lock:
            connections = list(self._connections)
        for sock in connections:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def _serve_connection(self, sock: socket.socket, peer: str) -> None:
        try:
            try:
                key = server_handshake(sock, self._secret, self._role)
            finally:
                with self._lock:
                    self._handshaking -= 1
            self._loop(Channel(sock, key, client=False))
        except AuthenticationError as error:
            log.warning("refused connection from %s: %s", peer, error)
        except (ProtocolError, ConnectionError, TimeoutError) as error:
            log.debug("connection from %s ended: %s", peer, error)
        except OSError as error:
            if not self._stopping.is_set():
                log.debug("connection from %s failed: %s", peer, error)
        finally:
            with self._lock:
                self._connections.discard(sock)
            sock.close()

    def _loop(self, channel: Channel) -> None:
        while True:
            message = channel.recv()
            if message is None:
                return
            request, payload = message
            reply = self._dispatch(request, payload, channel)
            if reply is not None:
                channel.send(reply[0], reply[1])

    def _dispatch(self, request: Header, payload: bytearray, channel: Channel) -> Reply:
        op = request.get("op")
        handler = getattr(self._service, f"op_{op}", None) if isinstance(op, str) and op.isidentifier() else None
        if handler is None:
            return failure(errno.ENOSYS, f"unknown operation {op!r}"), b""
        try:
            return handler(request, payload, channel)
        except (ConnectionError, ProtocolError):
            raise
        except OSError as error:
            return failure(error.errno or errno.EIO, error.strerror or str(error)), b""
        except (KeyError, TypeError, ValueError) as error:
            return failure(errno.EINVAL, f"bad {op} request: {error}"), b""
        except Exception:  # noqa: BLE001 - one bad request must not take the server down
            log.exception("internal error in %s", op)
            return failure(errno.EIO, f"internal error in {op}"), b""
