"""The conformance suite on the `local` backend (a plain directory)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from storage_adapters.local import LocalAdapter

from .abstract import StorageConformance


class TestLocal(StorageConformance):
    @pytest.fixture
    def adapter(self, tmp_path: Path) -> Iterator[LocalAdapter]:
        store = LocalAdapter(str(tmp_path / "store"))
        store.check()
        yield store
        store.close()


def test_local_path_accepts_absolute_paths_inside_the_mount(tmp_path: Path) -> None:
    store = LocalAdapter(str(tmp_path / "store"))
    store.check()
    store.pipe("x/y.txt", b"1")
    absolute = str(tmp_path / "store" / "x" / "y.txt")
    assert store.local_path("x/y.txt") == absolute
    assert store.cat(absolute) == b"1"
