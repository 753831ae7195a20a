"""Logical path normalization: the one gate that keeps every backend inside its root."""

from __future__ import annotations

import pytest

from storage_adapters.errors import StoragePathError
from storage_adapters.paths import is_temp_name, temp_sibling, to_logical


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
    assert is_temp_name(temporary)
    assert not is_temp_name("dir/out.txt")
    assert temp_sibling("dir/out.txt") != temporary
