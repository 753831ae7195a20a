"""PathFS publishes what was written while an upload was on its way (a write that arrives
during the upload must not be taken for published).

An app often writes to a file its worker has already closed: the worker's close publishes
the file while the app is still writing. The upload runs in a thread, so writes can land
in the spool meanwhile; the next flush (the app's own close) must publish them."""

from __future__ import annotations

import os
from pathlib import Path

import trio

from storage_adapters.fuse.pathfs import PathFS


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
    pending = fs._new_pending(7, "/out.txt", 0o100644)
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
