"""Content digests of files, as the run log records them: `blake3:<64 hex digits>`.

One name for one algorithm, so that a digest read back from a log says how to
check it. BLAKE3 on one thread hashes about 7 GB/s here (SHA-256: 2 GB/s), so a
digest taken while a file is copied, or read once from the page cache where a
task just left it, costs little beside the copy. `Digester` hashes bytes as they
pass (a feeder), `DigestingWriter` hashes what a download writes to its file;
`file_digest` reads a file once; `bytes_digest` hashes bytes already read (the
compiler's sources).
"""

from __future__ import annotations

import os
from typing import IO

from blake3 import blake3

ALGORITHM = "blake3"
_BLOCK = 1024 * 1024


class Digester:
    """Hashes bytes as they pass; `.digest()` names what has passed so far."""

    def __init__(self) -> None:
        self._hasher = blake3(max_threads=1)  # a worker shares its cores with the tasks

    def update(self, data: bytes | bytearray | memoryview) -> None:
        self._hasher.update(data)

    def digest(self) -> str:
        return f"{ALGORITHM}:{self._hasher.hexdigest()}"


class DigestingWriter:
    """A file to write in order, hashing every byte written: a download digested as it
    lands, with no second read. It says it cannot seek, so that a client that would write
    parts out of order (boto3's concurrent ranges) puts them in order first."""

    def __init__(self, sink: IO[bytes], digester: Digester) -> None:
        self._sink = sink
        self._digester = digester

    def write(self, data: bytes | bytearray | memoryview) -> int:
        self._digester.update(data)
        return self._sink.write(data)

    def seekable(self) -> bool:
        return False

    def flush(self) -> None:
        self._sink.flush()


def file_digest(path: str) -> str:
    """The digest of the file at `path` (OSError if it cannot be read)."""
    digester = Digester()
    with open(path, "rb", buffering=0) as handle:
        if os.fstat(handle.fileno()).st_size <= _BLOCK:  # most outputs: one read, no block to fill
            digester.update(handle.readall())
            return digester.digest()
        buffer = bytearray(_BLOCK)
        view = memoryview(buffer)
        while count := handle.readinto(buffer):
            digester.update(view[:count])
    return digester.digest()


def bytes_digest(data: bytes) -> str:
    """The digest of `data`, as `file_digest` gives it for a file holding exactly those bytes."""
    digester = Digester()
    digester.update(data)
    return digester.digest()


def sha256_hex(data: bytes) -> str:
    """SHA-256 of `data` in hex: for names that must stay what earlier runs recorded (restart
    keys, the store homes of inputs given by absolute path)."""
    # Deferred: hashlib loads OpenSSL's library at import, about 3 ms of every run's start,
    # which only runs of apps (and of such inputs) need.
    import hashlib

    return hashlib.sha256(data).hexdigest()


def mismatch_message(name: str, where: str, recorded: str, found: str) -> str:
    """What a reader is told when a file is not what its writer digested."""
    return (f"'{name}' in {where} is not what its producer wrote: its digest was recorded as {recorded}"
            f" when it was written, and what was read has {found}")
