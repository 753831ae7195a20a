"""How a Chirp volume publishes a file: under a temporary name renamed into place, except a
file whose own name is a temporary, a store's or an app output's, which only its writer uses:
that one is written in place, one request instead of two (`paths.written_as`)."""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

from hostkit.private_names import is_store_temporary, part_name, part_name_keeping_extension
from storage_adapters.chirp.volume import SingleVolume
from storage_adapters.paths import temp_sibling


class RecordingConnection:
    """The requests a publish makes, recorded instead of sent."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, ...]] = []

    def putfile(self, path: str, source: Any, length: int, mode: int = 0o600) -> None:
        self.requests.append(("putfile", path, source.read(length).decode()))

    def rename(self, source: str, target: str) -> None:
        self.requests.append(("rename", source, target))


class OneConnection:
    """A client that lends the same recording connection to every call."""

    def __init__(self, connection: RecordingConnection) -> None:
        self.connection = connection
        self.address = "127.0.0.1:9094"

    def call(self, operation: Callable[[RecordingConnection], Any]) -> Any:
        return operation(self.connection)


def published(path: str, content: bytes) -> list[tuple[str, ...]]:
    connection = RecordingConnection()
    volume = SingleVolume(OneConnection(connection))  # type: ignore[arg-type]
    volume.publish(io.BytesIO(content), len(content), 0o644, path)
    return connection.requests


def test_a_file_is_written_under_a_temporary_and_renamed_into_place() -> None:
    (put, rename) = published("/d/out.txt", b"whole")
    assert put[0] == "putfile" and is_store_temporary(put[1]) and put[2] == "whole"
    assert rename == ("rename", put[1], "/d/out.txt")


def test_a_storage_temporary_is_written_in_place() -> None:
    temporary = temp_sibling("/d/out.txt")
    assert published(temporary, b"whole") == [("putfile", temporary, "whole")]


def test_an_app_outputs_temporary_is_written_in_place() -> None:
    for temporary in (f"/d/{part_name('out.txt')}", f"/d/{part_name_keeping_extension('out.jpg')}"):
        assert published(temporary, b"whole") == [("putfile", temporary, "whole")]


def test_a_name_that_only_looks_like_one_is_not() -> None:
    for name in ("/d/.out.txt.part", "/d/out.0123456789ab.part", "/d/.out.0123456789AB.part"):
        (put, rename) = published(name, b"whole")
        assert is_store_temporary(put[1]) and rename == ("rename", put[1], name)
