"""The MosaStore client's directory attributes: kept while fresh, directories only, dropped on change."""

from __future__ import annotations

import stat

import pytest

from mosastore.client import directories
from mosastore.client.directories import DirectoryAttributes


def _attrs(ino: int, mode: int = stat.S_IFDIR | 0o755, mtime_ns: int = 1) -> dict[str, int]:
    return {"ino": ino, "mode": mode, "uid": 0, "gid": 0, "size": 0, "mtime_ns": mtime_ns}


def test_a_directory_is_answered_while_fresh_and_its_last_attributes_win() -> None:
    kept = DirectoryAttributes(timeout=3600)
    assert kept.get(5) is None
    kept.put(_attrs(5, mtime_ns=1))
    kept.put(_attrs(5, mtime_ns=2))
    assert kept.get(5) == _attrs(5, mtime_ns=2)
    kept.drop(5, 6)
    assert kept.get(5) is None


def test_files_are_never_kept() -> None:
    kept = DirectoryAttributes(timeout=3600)
    kept.put(_attrs(7, mode=stat.S_IFREG | 0o644))
    assert kept.get(7) is None


def test_nothing_older_than_the_timeout_is_answered() -> None:
    kept = DirectoryAttributes(timeout=0.0)
    kept.put(_attrs(5))
    assert kept.get(5) is None


def test_stale_entries_make_room(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(directories, "LIMIT", 3)
    kept = DirectoryAttributes(timeout=0.0)
    for ino in range(10):
        kept.put(_attrs(ino))
    assert len(kept) <= 3
