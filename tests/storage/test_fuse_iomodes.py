"""The FUSE front end's bookkeeping of how the kernel may open each inode (`fuse.iomodes`) and
of the local copies it keeps of files written here (`fuse.copies`)."""

from __future__ import annotations

import os

from storage_adapters.fuse.copies import MAX_COPIES, LocalCopies, LocalCopy
from storage_adapters.fuse.iomodes import IoModes, Mode


def test_a_new_spool_is_passed_through_only_where_nothing_else_serves_the_inode() -> None:
    modes = IoModes()
    assert modes.can_pass_through(5, None)
    modes.opened(5, Mode.CACHED)
    assert not modes.can_pass_through(5, None) and not modes.can_pass_through(5, 7)
    assert modes.can_cache(5)
    modes.closed(5, Mode.CACHED)
    assert modes.can_pass_through(5, None)


def test_files_passed_through_bind_every_other_open_to_their_backing() -> None:
    modes = IoModes()
    modes.opened(5, Mode.PASSTHROUGH, 7)
    assert modes.passed_through(5, 7) and not modes.passed_through(5, 8)
    assert modes.can_pass_through(5, 7)
    assert not modes.can_pass_through(5, 8) and not modes.can_pass_through(5, None)
    assert not modes.can_cache(5)
    modes.opened(5, Mode.DIRECT)  # not counted: the caller answers direct I/O where the kernel allows it
    modes.closed(5, Mode.PASSTHROUGH)
    assert not modes.passed_through(5, 7) and modes.can_cache(5) and modes.can_pass_through(5, 8)


def _copy(tmp_path: object, size: int, backing: int) -> LocalCopy:
    descriptor = os.open(os.path.join(str(tmp_path), f"copy-{backing}"), os.O_RDWR | os.O_CREAT, 0o600)
    return LocalCopy(version=backing, spool=descriptor, backing=backing, size=size)


def test_copies_stay_within_their_budget_oldest_out_but_never_one_in_use(tmp_path: object) -> None:
    forgotten: list[int] = []
    in_use = {1}
    copies = LocalCopies(250, forgotten.append, lambda inode, copy: inode in in_use)
    first, second, third = _copy(tmp_path, 100, 11), _copy(tmp_path, 100, 12), _copy(tmp_path, 100, 13)
    copies.keep(1, first)
    copies.keep(2, second)
    copies.keep(3, third)  # 300 bytes: the oldest not in use (inode 2) goes
    assert forgotten == [12]
    assert copies.get(1) is first and copies.get(2) is None and copies.get(3) is third
    try:
        os.fstat(second.spool)
        raise AssertionError("an evicted copy's file was left open")
    except OSError:
        pass
    taken = copies.take(3)
    assert taken is third and copies.get(3) is None and forgotten == [12]
    os.fstat(third.spool)  # the caller's now, still open
    os.close(third.spool)
    copies.drop(1)
    assert forgotten == [12, 11]


def test_copies_are_bounded_in_number_too(tmp_path: object) -> None:
    forgotten: list[int] = []
    copies = LocalCopies(1 << 40, forgotten.append, lambda inode, copy: False)
    for inode in range(MAX_COPIES + 3):
        copies.keep(inode, _copy(tmp_path, 1, inode))
    assert forgotten == [0, 1, 2]
    assert copies.get(2) is None and copies.get(3) is not None
    for inode in range(3, MAX_COPIES + 3):
        copies.drop(inode)
