"""Logical path normalization: the one gate that keeps every backend inside its root, and
`leads_out`, which checks where the file system takes a path under a mount."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hostkit.private_names import is_store_temporary
from storage_adapters.errors import StoragePathError
from storage_adapters.paths import leads_out, temp_sibling, to_logical


@pytest.mark.parametrize(("given", "expected"), [
    ("a/b.txt", "a/b.txt"),
    ("./a//b.txt", "a/b.txt"),
    ("a/./c/../b.txt", "a/b.txt"),
    ("", ""),
    (".", ""),
    ("dir/", "dir"),
])
def test_relative_paths_are_normalized(given: str, expected: str) -> None:
    assert to_logical(given) == expected


@pytest.mark.parametrize("bad", ["..", "../x", "a/../../x", "/abs", "a\x00b"])
def test_escapes_are_refused(bad: str) -> None:
    with pytest.raises(StoragePathError):
        to_logical(bad)


def test_absolute_paths_under_a_mount_become_logical() -> None:
    assert to_logical("/mnt/store/a/b", "/mnt/store") == "a/b"
    assert to_logical("/mnt/store", "/mnt/store") == ""
    with pytest.raises(StoragePathError, match="outside the store root"):
        to_logical("/mnt/storefront/a", "/mnt/store")
    with pytest.raises(StoragePathError):
        to_logical("/mnt/store/../etc/passwd", "/mnt/store")


def test_temporary_names_are_recognized() -> None:
    temporary = temp_sibling("dir/out.txt")
    assert temporary.startswith("dir/.out.txt")
    assert is_store_temporary(temporary)
    assert not is_store_temporary("dir/out.txt")
    assert temp_sibling("dir/out.txt") != temporary


def test_leads_out_follows_links_and_stops_at_the_first_missing_name(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A link out of the root (dangling or not) leads out; one inside it does not; a path whose
    directory does not exist yet is looked up only down to that directory."""
    root, outside = tmp_path / "root", tmp_path / "outside"
    (root / "real").mkdir(parents=True)
    outside.mkdir()
    (root / "out").symlink_to(outside)
    (root / "gone").symlink_to(tmp_path / "nowhere")
    (root / "alias").symlink_to(root / "real")
    assert leads_out(str(root / "out" / "x.txt"), str(root))
    assert leads_out(str(root / "gone" / "x.txt"), str(root))
    assert leads_out(str(root / ".." / "outside" / "x.txt"), str(root))
    assert not leads_out(str(root / "alias" / "x.txt"), str(root))
    assert not leads_out(str(root), str(root))
    looked_up: list[str] = []
    lstat = os.lstat

    def counted(path: str) -> os.stat_result:
        looked_up.append(path)
        return lstat(path)

    monkeypatch.setattr(os, "lstat", counted)
    assert not leads_out(str(root / "real" / "new" / "deeper" / "x.txt"), str(root))
    assert looked_up == [str(root / "real"), str(root / "real" / "new")]
