"""PathFS publishes what was written while an upload was on its way (a write that arrives
during the upload must not be taken for published).

An app often writes to a file its worker has already closed: the worker's close publishes
the file while the app is still writing. The upload runs in a thread, so writes can land
in the spool meanwhile; the next flush (the app's own close) must publish them. That second
flush may come while the first upload is still on its way, and the worker may rename the
file to its mapped name meanwhile: uploads go in turn, and the bytes end under the new name
(the hdfs-shared pipeline once read 3,141 of 5,000 lines: an older upload had landed last)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import trio

from storage_adapters.fuse.pathfs import PathFS, PendingFile


def pending_file(fs: PathFS, path: str) -> PendingFile:
    """A file being written at `path`, registered as created by the mount."""
    pending = fs._new_pending(7, path, 0o100644)
    fs._pending[7] = pending
    return pending


class DirectoryRemote:
    """The one operation publishing needs, on a real directory: upload = copy the spool."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.during_upload = lambda: None

    def upload(self, spool: int, size: int, mode: int, path: str) -> None:
        data = os.pread(spool, size, 0)
        self.during_upload()
        (self.root / path.lstrip("/")).write_bytes(data)


def test_a_write_during_an_upload_is_published_by_the_next_flush(tmp_path: Path) -> None:
    remote = DirectoryRemote(tmp_path)
    fs = PathFS(remote, str(tmp_path), threads=2)  # type: ignore[arg-type]
    pending = pending_file(fs, "/out.txt")
    pending.write(0, b"first")
    remote.during_upload = lambda: pending.write(5, b" and second")
    trio.run(fs._publish, pending)
    assert (tmp_path / "out.txt").read_bytes() == b"first"
    assert pending.changed, "the write that came during the upload was taken for published"
    remote.during_upload = lambda: None
    trio.run(fs._publish, pending)
    assert (tmp_path / "out.txt").read_bytes() == b"first and second"
    assert not pending.changed
    pending.close()


class RenamingRemote(DirectoryRemote):
    """Also renames; `during_upload` may rename the file being uploaded, as the engine does."""

    def rename(self, source: str, target: str) -> None:
        os.replace(self.root / source.lstrip("/"), self.root / target.lstrip("/"))


def test_a_rename_during_the_upload_publishes_under_the_new_name(tmp_path: Path) -> None:
    remote = RenamingRemote(tmp_path)
    fs = PathFS(remote, str(tmp_path), threads=2)  # type: ignore[arg-type]
    pending = pending_file(fs, "/.out.txt.1234.part")
    pending.write(0, b"whole output")
    remote.during_upload = lambda: fs._moved("/.out.txt.1234.part", "/out.txt")  # the commit's rename
    trio.run(fs._publish, pending)
    assert (tmp_path / "out.txt").read_bytes() == b"whole output"
    assert not (tmp_path / ".out.txt.1234.part").exists()
    pending.close()


def test_two_flushes_close_together_upload_in_turn_and_the_newest_bytes_win(tmp_path: Path) -> None:
    """The first upload (a worker's close, an app still writing) is slow; a second flush (the
    app's exit) starts meanwhile. The slow, shorter upload must not land last."""
    remote = DirectoryRemote(tmp_path)
    fs = PathFS(remote, str(tmp_path), threads=2)  # type: ignore[arg-type]
    pending = pending_file(fs, "/out.txt")
    pending.write(0, b"part")
    uploads: list[bytes] = []

    def slow_first() -> None:
        uploads.append(os.pread(pending.spool, pending.size, 0))
        if len(uploads) == 1:
            pending.write(4, b" and the rest")
            time.sleep(0.3)  # the second flush arrives while this upload is still going

    remote.during_upload = slow_first

    async def both() -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(fs._publish, pending)
            await trio.sleep(0.05)
            nursery.start_soon(fs._publish, pending)

    trio.run(both)
    assert uploads == [b"part", b"part and the rest"]  # in turn: the second saw the whole file
    assert (tmp_path / "out.txt").read_bytes() == b"part and the rest"
    assert not pending.changed
    pending.close()
