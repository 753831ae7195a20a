"""Publishing a file removes what interrupted writers of the same target left beside it."""

from __future__ import annotations

from pathlib import Path

from engine.task.atomic import Publisher, name_beside, open_beside

PUBLISHER = Publisher()


def _publish(target: Path, data: bytes) -> None:
    temp, out = open_beside(str(target))
    with out:
        out.write(data)
    PUBLISHER.commit(temp, str(target))


def _abandoned(target: Path) -> Path:
    """A temporary of `target` as an interrupted writer leaves it: created, empty."""
    temp, out = open_beside(str(target))
    out.close()
    return Path(temp)


def test_stale_temporaries_of_the_target_go_others_stay(tmp_path: Path) -> None:
    PUBLISHER.forget_listings()
    crashed = _abandoned(tmp_path / "a.txt")
    crashed_ext = Path(name_beside(str(tmp_path / "a.txt")))
    crashed_ext.write_bytes(b"half")
    other = _abandoned(tmp_path / "b.txt")
    _publish(tmp_path / "a.txt", b"whole")
    assert (tmp_path / "a.txt").read_bytes() == b"whole"
    assert not crashed.exists() and not crashed_ext.exists()
    assert other.exists()  # another target's writer may be running now


def test_a_temporary_made_after_the_listing_goes_once_listings_are_forgotten(tmp_path: Path) -> None:
    PUBLISHER.forget_listings()
    _publish(tmp_path / "first.txt", b"1")  # the directory is listed now
    lost = Path(name_beside(str(tmp_path / "late.txt")))
    lost.write_bytes(b"half")  # an attempt lost with its worker
    _publish(tmp_path / "late.txt", b"retry")
    assert lost.exists()  # the cached listing predates it: a writer that may still be running
    PUBLISHER.forget_listings()  # what the worker does before a retry
    lost_again = Path(name_beside(str(tmp_path / "late.txt")))
    lost_again.write_bytes(b"half")
    _publish(tmp_path / "late.txt", b"retry")
    assert not lost.exists() and not lost_again.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["first.txt", "late.txt"]
