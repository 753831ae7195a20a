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


def test_symbolic_links_cannot_lead_out_of_the_store(tmp_path: Path) -> None:
    """A symlink inside the store that points outside is refused, for reads, writes and
    task paths alike; one that stays inside works (issue 16 item 6)."""
    from storage_adapters.errors import StoragePathError

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("private")
    store = LocalAdapter(str(tmp_path / "store"))
    store.check()
    (tmp_path / "store" / "escape").symlink_to(outside)
    (tmp_path / "store" / "file-link").symlink_to(outside / "secret.txt")
    for attempt in (lambda: store.pipe("escape/new.txt", b"x"), lambda: store.cat("escape/secret.txt"),
                    lambda: store.cat("file-link"), lambda: store.local_path("escape/out.txt"),
                    lambda: store.put_file(str(outside / "secret.txt"), "escape/copy.txt")):
        with pytest.raises(StoragePathError, match="symbolic link"):
            attempt()
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]
    store.pipe("real/a.txt", b"inside")
    (tmp_path / "store" / "alias").symlink_to(tmp_path / "store" / "real")
    assert store.cat("alias/a.txt") == b"inside"


def test_listing_skips_an_entry_gone_before_it_is_examined(tmp_path: Path) -> None:
    """A directory listed while a writer publishes: an entry renamed away between the listing
    and its stat is left out instead of failing the listing (a dangling link stands for it)."""
    store = LocalAdapter(str(tmp_path / "store"))
    store.check()
    store.pipe("d/kept.txt", b"1")
    (tmp_path / "store" / "d" / "gone.txt").symlink_to(tmp_path / "store" / "d" / "missing")
    assert [entry.name for entry in store.ls("d")] == ["kept.txt"]
    store.close()
