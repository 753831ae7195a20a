"""`open` for staging stores that move whole files (Chirp, HDFS).

A store that can only send or receive a file in one piece implements the base class's
`_download(path, sink)` and `_put_file`; this abstract adapter builds `_open` on them:
`open(path, "rb")` downloads into an anonymous spool file, and `open(path,
"wb")` collects the bytes in a local temporary file that is uploaded, through
the store's atomic `_put_file`, when the writer is closed cleanly.
"""

from __future__ import annotations

import os
import tempfile

from storage_adapters.base import AtomicWriter, StorageAdapter, StoreFile, remove_quietly


class WholeFileTransfers(StorageAdapter):
    """A `StorageAdapter` whose transfers are whole files (still abstract: a store supplies
    `_download` and `_put_file`, among the base class's other primitives)."""

    def _open(self, path: str, mode: str) -> StoreFile:
        if mode == "rb":
            spool = tempfile.TemporaryFile()
            try:
                self._download(path, spool)
                spool.seek(0)
            except BaseException:
                spool.close()
                raise
            return spool
        descriptor, local = tempfile.mkstemp(prefix="swiftcloud-upload-")

        def commit() -> None:
            try:
                self._put_file(local, path)
            finally:
                remove_quietly(local)

        return AtomicWriter(os.fdopen(descriptor, "wb"), commit=commit, abort=lambda: remove_quietly(local))
