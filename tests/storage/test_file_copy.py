"""hostkit.file_copy: the rest of a file appended to another, or a range of one copied into another, by the
kernel or through a buffer."""

from __future__ import annotations

import io
import os
import shutil
import tempfile
from pathlib import Path

import pytest

from hostkit.file_copy import copy_contents, copy_range

DATA = os.urandom(3 * (1 << 20) + 12345)  # more than a buffer, not a whole number of them


def test_a_file_is_appended_to_another_file_after_what_it_held(tmp_path: Path) -> None:
    (tmp_path / "source").write_bytes(DATA)
    with open(tmp_path / "source", "rb") as source, open(tmp_path / "target", "wb") as target:
        target.write(b"head:")  # buffered: it must land before the copied bytes
        source.seek(100)
        copy_contents(source, target)
        target.write(b":tail")
    assert (tmp_path / "target").read_bytes() == b"head:" + DATA[100:] + b":tail"


def test_a_target_that_is_no_file_gets_the_bytes_through_a_buffer(tmp_path: Path) -> None:
    (tmp_path / "source").write_bytes(DATA)
    sink = io.BytesIO()
    with open(tmp_path / "source", "rb") as source:
        copy_contents(source, sink)
    assert sink.getvalue() == DATA


def test_a_source_the_kernel_cannot_send_from_is_read_instead(tmp_path: Path) -> None:
    reader, writer = os.pipe()  # sendfile needs a source it can map: a pipe is refused
    os.write(writer, DATA[:60000])
    os.close(writer)
    with os.fdopen(reader, "rb") as source, open(tmp_path / "target", "wb") as target:
        copy_contents(source, target)
    assert (tmp_path / "target").read_bytes() == DATA[:60000]


@pytest.mark.parametrize("target_dir", ["same file system", "/dev/shm"])
def test_a_range_of_one_file_is_copied_to_the_start_of_another(tmp_path: Path, target_dir: str) -> None:
    """Within one file system copy_file_range copies; from ext4 to tmpfs it refuses and
    sendfile copies."""
    (tmp_path / "source").write_bytes(DATA)
    directory = tmp_path if target_dir == "same file system" else Path(tempfile.mkdtemp(dir=target_dir))
    try:
        source = os.open(tmp_path / "source", os.O_RDONLY)
        target = os.open(directory / "target", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            assert copy_range(source, 12345, target, 2 * (1 << 20)) == 2 * (1 << 20)
        finally:
            os.close(target)
            os.close(source)
        assert (directory / "target").read_bytes() == DATA[12345:12345 + 2 * (1 << 20)]
    finally:
        if directory != tmp_path:
            shutil.rmtree(directory)


def test_a_range_past_the_end_of_the_source_copies_what_there_is(tmp_path: Path) -> None:
    (tmp_path / "source").write_bytes(DATA)
    source = os.open(tmp_path / "source", os.O_RDONLY)
    target = os.open(tmp_path / "target", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        assert copy_range(source, len(DATA) - 100, target, 1 << 20) == 100
        assert copy_range(source, len(DATA) + 5, target, 10) == 0
    finally:
        os.close(target)
        os.close(source)
    assert (tmp_path / "target").read_bytes() == DATA[-100:]
