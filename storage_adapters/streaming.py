"""Stream staging: a task's inputs reach it through named pipes while they download.

`open_streams(adapter, logical_paths, scratch_dir)` makes one FIFO per input
under `scratch_dir/<logical path>` and starts one feeder thread per FIFO that
copies the store file (`adapter.open(path, "rb")`, a streaming read on s3 and
scp) into it; the task can start at once and reads while the bytes arrive.
After the task's process has exited, `InputStreams.finish()` unblocks any
feeder still waiting for a reader (an app that never opened its input) or
writing to one that left (it gets EPIPE), joins them all, and raises a
`StorageTransferError` if a download failed: the task's outputs must then not
be published (`close()` joins them quietly, for a task that failed anyway).
A feeder that fails still opens and closes its FIFO, so an app waiting on it
sees end of file instead of hanging. An app that stops reading early is not a
failure. The feeders of the inputs named `digested` digest the bytes they pass
on (`hostkit.digests`); `InputStreams.digests()` gives those of such inputs fed
to their end. Opening an
input is retried while its server cannot be reached (`retries`); a stream cut
midway is not (the app has read part of it) and fails the task. A FIFO cannot
seek: this suits apps that read each input once, front to back.
"""

from __future__ import annotations

import fcntl
import os
import threading
from collections.abc import Collection, Iterable

from hostkit.digests import Digester
from storage_adapters.base import StorageAdapter
from storage_adapters.errors import StorageTransferError
from storage_adapters.retries import retrying

CHUNK = 1024 * 1024
# Linux F_SETPIPE_SZ: a 1 MiB pipe lets a feeder run a chunk ahead of the reader.
_F_SETPIPE_SZ = 1031


class _Feeder(threading.Thread):
    """Copies one store file into one FIFO."""

    def __init__(self, adapter: StorageAdapter, logical: str, fifo: str, digested: bool) -> None:
        super().__init__(name=f"swiftcloud-feed-{logical}", daemon=True)
        self.adapter, self.logical, self.fifo = adapter, logical, fifo
        self.sent = 0
        # Only an input whose producer's digest is known is hashed: the feeder is on the data path.
        self.digester = Digester() if digested else None
        self.whole = False  # the store file was fed to its end
        self.error: BaseException | None = None
        self.stop = threading.Event()

    def run(self) -> None:
        try:
            source = retrying(self.adapter, lambda: self.adapter.open(self.logical, "rb"))
        except BaseException as error:  # reported by finish(); the reader must still see EOF
            self.error = error
            self._release_reader()
            return
        try:
            with source, open(self.fifo, "wb", buffering=0) as sink:
                _widen(sink.fileno())
                while not self.stop.is_set():
                    chunk = source.read(CHUNK)
                    if not chunk:
                        self.whole = True
                        break
                    if self.digester is not None:
                        self.digester.update(chunk)
                    view = memoryview(chunk)
                    while view:
                        written = sink.write(view)
                        view = view[written:]
                        self.sent += written
        except BrokenPipeError:
            pass  # the app closed its input early: what it did not read is not needed
        except BaseException as error:
            self.error = error

    def _release_reader(self) -> None:
        """Open and close the FIFO for writing: a reader blocked in open() then reads EOF."""
        try:
            os.close(os.open(self.fifo, os.O_WRONLY))
        except OSError:
            pass  # the scratch directory is being removed: nobody is waiting


class InputStreams:
    """The FIFOs of one task and their feeders."""

    def __init__(self, paths: dict[str, str], feeders: list[_Feeder]) -> None:
        self.paths = paths
        self._feeders = feeders

    def finish(self) -> int:
        """After the app exited: stop and join the feeders; the bytes they sent.

        Raises StorageTransferError naming the first input whose download failed."""
        for feeder in self._feeders:
            feeder.stop.set()
        for feeder in self._feeders:
            while feeder.is_alive():
                _unblock(feeder.fifo)
                feeder.join(0.05)
        failed = [feeder for feeder in self._feeders if feeder.error is not None]
        if failed:
            first = failed[0]
            raise StorageTransferError(first.adapter.redact(
                f"streaming '{first.logical}' from {first.adapter.describe()} failed: {_reason(first.error)}"
            )) from first.error
        return sum(feeder.sent for feeder in self._feeders)

    def digests(self) -> dict[str, str]:
        """After `finish`: the digest of each input of `digested` fed whole, by logical path."""
        return {feeder.logical: feeder.digester.digest() for feeder in self._feeders
                if feeder.whole and feeder.digester is not None}

    def close(self) -> None:
        """Stop and join the feeders, whatever became of them (idempotent; errors were
        reported by `finish` or no longer matter)."""
        try:
            self.finish()
        except StorageTransferError:
            pass


def open_streams(adapter: StorageAdapter, logical_paths: Iterable[str], scratch_dir: str,
                 digested: Collection[str] = ()) -> InputStreams:
    """Make a FIFO per input under `scratch_dir` and start feeding each from the store (those
    named in `digested` hashed on the way)."""
    paths: dict[str, str] = {}
    feeders: list[_Feeder] = []
    for logical in logical_paths:
        fifo = os.path.join(scratch_dir, *logical.split("/"))
        os.makedirs(os.path.dirname(fifo), exist_ok=True)
        os.mkfifo(fifo, 0o600)
        paths[logical] = fifo
        feeders.append(_Feeder(adapter, logical, fifo, logical in digested))
    for feeder in feeders:
        feeder.start()
    return InputStreams(paths, feeders)


def _unblock(fifo: str) -> None:
    """Be a reader for an instant: a feeder blocked opening the FIFO gets through, and
    its next write fails with EPIPE once we close (Linux counts openers, so the open
    completes even if we are already gone)."""
    try:
        os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))
    except OSError:
        pass  # already removed: the feeder's own open or write fails and it ends


def _widen(descriptor: int) -> None:
    try:
        fcntl.fcntl(descriptor, _F_SETPIPE_SZ, CHUNK)
    except OSError:
        pass  # above /proc/sys/fs/pipe-max-size: the default pipe works, a little slower


def _reason(error: BaseException | None) -> str:
    if isinstance(error, FileNotFoundError):
        return "no such file in the store"
    return str(error) or type(error).__name__
