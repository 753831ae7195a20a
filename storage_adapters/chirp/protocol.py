"""The Chirp wire protocol (version 2), as documented with the Cooperative Computing Tools.

A request is one LF-terminated line of words (strings percent-encoded as in
RFC 2396), possibly followed by binary data; a response is a line holding an
integer, negative for an error, possibly followed by a line of metadata or
by binary data. `Connection` speaks it over one TCP connection after
negotiated `unix` authentication: the server names a file that does not
exist yet, the client creates it, and the server reads the client's uid from
its owner, so the subject (`unix:USER`) is proven, not claimed.

No catalog server is ever consulted: a connection goes to the HOST:PORT it
is given and nowhere else.
"""

from __future__ import annotations

import errno
import os
import socket
import stat
from dataclasses import dataclass
from typing import BinaryIO
from urllib.parse import quote

# Chirp result codes (chirp_protocol.md) and the errno each stands for.
ERRNO_OF_CODE = {
    -1: errno.EACCES,     # NOT_AUTHENTICATED
    -2: errno.EACCES,     # NOT_AUTHORIZED
    -3: errno.ENOENT,     # DOESNT_EXIST
    -4: errno.EEXIST,     # ALREADY_EXISTS
    -5: errno.EFBIG,      # TOO_BIG
    -6: errno.ENOSPC,     # NO_SPACE
    -7: errno.ENOMEM,     # NO_MEMORY
    -8: errno.EINVAL,     # INVALID_REQUEST
    -9: errno.EMFILE,     # TOO_MANY_OPEN
    -10: errno.EBUSY,     # BUSY
    -11: errno.EAGAIN,    # TRY_AGAIN
    -12: errno.EBADF,     # BAD_FD
    -13: errno.EISDIR,    # IS_DIR
    -14: errno.ENOTDIR,   # NOT_DIR
    -15: errno.ENOTEMPTY,  # NOT_EMPTY
    -16: errno.EXDEV,     # CROSS_DEVICE_LINK
    -17: errno.EHOSTDOWN,  # OFFLINE
}
NOT_AUTHORIZED = -2
COPY_BLOCK = 1024 * 1024
MAX_LINE = 64 * 1024


class ProtocolError(ConnectionError):
    """The server's answer does not follow the protocol, or the connection broke mid-answer."""


class AuthenticationRefused(PermissionError):
    """The server would not accept any authentication method we offered."""


@dataclass(frozen=True, slots=True)
class Stat:
    """The metadata fields of a stat line that the store uses."""

    ino: int
    mode: int
    size: int
    mtime: int

    @property
    def is_dir(self) -> bool:
        return stat.S_ISDIR(self.mode)


def encode(path: str) -> str:
    """A path as one protocol word: whitespace, `%` and unprintables percent-encoded."""
    return quote(path, safe="/-_.~!$&'()*+,;=:@")


def parse_stat(line: bytes) -> Stat:
    """The thirteen decimals of a stat line (dev ino mode nlink uid gid rdev size …)."""
    fields = line.split()
    if len(fields) < 13:
        raise ProtocolError(f"malformed stat line {line[:80]!r}")
    return Stat(ino=int(fields[1]), mode=int(fields[2]), size=int(fields[7]), mtime=int(fields[11]))


def code_error(code: int, what: str, path: str | None = None) -> OSError:
    """The OSError for a negative result code (FileNotFoundError for DOESNT_EXIST, …)."""
    number = ERRNO_OF_CODE.get(code, errno.EIO)
    message = f"{what} refused: not authorized by the server's ACL" if code == NOT_AUTHORIZED else what
    error = OSError(number, message, path) if path is not None else OSError(number, message)
    error.chirp_code = code  # type: ignore[attr-defined]  # tells a refusal from a broken socket
    return error


def is_refusal(error: OSError) -> bool:
    """True when `error` is the server's answer to a request (the connection is still fine)."""
    return hasattr(error, "chirp_code")


class Connection:
    """One authenticated connection to a chirp_server; not thread-safe (a pool hands it out)."""

    def __init__(self, host: str, port: int, timeout: float = 60.0, methods: tuple[str, ...] = ("unix",)) -> None:
        self.address = f"{host}:{port}"
        self._socket = socket.create_connection((host, port), timeout=timeout)
        self._socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._reader = self._socket.makefile("rb", buffering=256 * 1024)
        self.subject = self._authenticate(methods)

    def close(self) -> None:
        try:
            self._reader.close()
        finally:
            self._socket.close()

    # ----- framing -----

    def _send(self, line: str, payload: bytes = b"") -> None:
        self._socket.sendall(line.encode() + b"\n" + payload)

    def _line(self) -> bytes:
        line = self._reader.readline(MAX_LINE)
        if not line.endswith(b"\n"):
            raise ProtocolError(f"chirp server {self.address} closed the connection")
        return line[:-1]

    def _result(self, what: str, path: str | None = None) -> int:
        line = self._line()
        try:
            code = int(line.split()[0])
        except (IndexError, ValueError):
            raise ProtocolError(f"chirp server {self.address} answered {line[:80]!r} to {what}") from None
        if code < 0:
            raise code_error(code, f"chirp {what}", path)
        return code

    def _exactly(self, count: int) -> bytes:
        data = self._reader.read(count)
        if len(data) != count:
            raise ProtocolError(f"chirp server {self.address} closed the connection mid-transfer")
        return data

    def request(self, command: str, *words: str | int, path: str | None = None) -> int:
        """Send one request without payload and return its (non-negative) result."""
        self._send(" ".join([command, *(encode(w) if isinstance(w, str) else str(w) for w in words)]))
        return self._result(command, path)

    # ----- authentication -----

    def _authenticate(self, methods: tuple[str, ...]) -> str:
        for method in methods:
            self._send(method)
            if self._line() != b"yes":
                continue
            if method == "unix":
                self._answer_unix_challenge()
            if self._line() != b"yes":
                continue
            self._line()  # the method that succeeded
            return f"{method}:{self._line().decode(errors='replace')}"
        raise AuthenticationRefused(
            errno.EACCES, f"chirp server {self.address} accepted none of the methods {', '.join(methods)}")

    def _answer_unix_challenge(self) -> None:
        challenge = self._line().decode(errors="replace")
        try:
            # O_EXCL: the challenge names a file that must not exist; never touch one that does.
            os.close(os.open(challenge, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
            created = True
        except OSError:
            created = False
        try:
            self._send("yes" if created else "no")
            if self._line() != b"yes":
                raise AuthenticationRefused(errno.EACCES, f"chirp server {self.address} refused unix authentication")
        finally:
            if created:
                try:
                    os.remove(challenge)
                except FileNotFoundError:
                    pass

    # ----- operations on names -----

    def whoami(self) -> str:
        count = self.request("whoami", 4096)
        return self._exactly(count).decode(errors="replace")

    def stat(self, path: str) -> Stat:
        self.request("stat", path, path=path)
        return parse_stat(self._line())

    def getlongdir(self, path: str) -> list[tuple[str, Stat]]:
        """The entries of directory `path` (without `.` and `..`) with their metadata."""
        self.request("getlongdir", path, path=path)
        entries: list[tuple[str, Stat]] = []
        while True:
            name = self._line()
            if not name:
                return entries
            status = parse_stat(self._line())
            if name not in (b".", b".."):
                entries.append((name.decode(errors="surrogateescape"), status))

    def mkdir(self, path: str, mode: int = 0o700) -> None:
        self.request("mkdir", path, mode, path=path)

    def rmdir(self, path: str) -> None:
        self.request("rmdir", path, path=path)

    def unlink(self, path: str) -> None:
        self.request("unlink", path, path=path)

    def rename(self, source: str, target: str) -> None:
        self.request("rename", source, target, path=source)

    def truncate(self, path: str, length: int) -> None:
        self.request("truncate", path, length, path=path)

    def getacl(self, path: str) -> list[str]:
        self.request("getacl", path, path=path)
        entries: list[str] = []
        while line := self._line():
            entries.append(line.decode(errors="replace"))
        return entries

    def statfs(self, path: str = "/") -> tuple[int, int, int, int, int]:
        """(block size, blocks, blocks available, files, files free).

        chirp_server sends type, bsize, blocks, bfree, bavail, files, ffree
        (the order of its struct, not the one the protocol document lists)."""
        self.request("statfs", path, path=path)
        fields = [int(field) for field in self._line().split()]
        if len(fields) < 7:
            raise ProtocolError("malformed statfs line")
        return fields[1], fields[2], fields[4], fields[5], fields[6]

    def chmod(self, path: str, mode: int) -> None:
        self.request("chmod", path, mode, path=path)

    # ----- whole-file transfers -----

    def getfile(self, path: str, sink: BinaryIO) -> int:
        """Stream file `path` into `sink`; returns its size."""
        size = self.request("getfile", path, path=path)
        remaining = size
        while remaining:
            block = self._reader.read(min(COPY_BLOCK, remaining))
            if not block:
                raise ProtocolError(f"chirp server {self.address} closed the connection mid-transfer")
            sink.write(block)
            remaining -= len(block)
        return size

    def putfile(self, path: str, source: BinaryIO, length: int, mode: int = 0o600) -> None:
        """Store `length` bytes read from `source` (a real file) as file `path`."""
        self._send(f"putfile {encode(path)} {mode} {length}")
        self._result("putfile", path)
        if length:
            self._socket.sendfile(source, 0, length)
        if self._result("putfile", path) != length:
            raise ProtocolError(f"chirp server {self.address} stored a short copy of {path}")

    # ----- open files -----

    def open(self, path: str, flags: str, mode: int = 0o600) -> tuple[int, Stat]:
        """Open `path` with Chirp flags (r, w, a, t, c, x); returns the descriptor and metadata."""
        descriptor = self.request("open", path, flags, mode, path=path)
        return descriptor, parse_stat(self._line())

    def pread(self, descriptor: int, length: int, offset: int) -> bytes:
        count = self.request("pread", descriptor, length, offset)
        return self._exactly(count)

    def pwrite(self, descriptor: int, data: bytes, offset: int) -> int:
        self._send(f"pwrite {descriptor} {len(data)} {offset}", data)
        return self._result("pwrite")

    def close_file(self, descriptor: int) -> None:
        self.request("close", descriptor)
