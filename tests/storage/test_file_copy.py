"""hostkit.file_copy: the rest of a file appended to another, by the kernel or through a buffer."""

from __future__ import annotations

import io
import os
from pathlib import Path

from hostkit.file_copy import copy_contents

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
