"""Names only their writer uses (`hostkit.private_names`): a store's temporaries and an app
output's, which a mount may keep absent and write in place; and the app output's temporary
made open (`atomic.open_beside`), which a mount then publishes once per close, not once more
for its creation."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from engine.task.atomic import Publisher, open_beside
from engine.task.contract import AppSpec
from engine.task.run import TaskRunner
from hostkit.private_names import PART_NAME, is_private, is_store_temporary, part_name, part_name_keeping_extension
from storage_adapters.paths import temp_sibling


def test_both_kinds_of_temporary_are_private_and_nothing_else_is() -> None:
    parts = [part_name("out.txt"), part_name_keeping_extension("out.jpg")]
    assert all(PART_NAME.fullmatch(name) for name in parts) and parts[1].endswith(".part.jpg")
    assert len({part_name("out.txt") for _ in range(100)}) == 100
    store = temp_sibling("d/out.txt")
    assert all(is_private(f"/mnt/d/{name}") for name in parts) and is_private(store)
    assert is_store_temporary(store) and not any(is_store_temporary(name) for name in parts)
    for plain in ("out.txt", ".out.txt", "/d/.out.txt.part", "/d/.out.0123456789ab.part/x", "/d/out.0123456789ab.part"):
        assert not is_private(plain), plain


def test_open_beside_makes_a_fresh_hidden_file_open_for_writing(tmp_path: Path) -> None:
    target = tmp_path / "new" / "out.txt"  # its directory is made
    temp, created = open_beside(str(target))
    with created:
        created.write(b"whole")
    assert Path(temp).parent == target.parent and PART_NAME.fullmatch(Path(temp).name)
    assert Path(temp).read_bytes() == b"whole" and not target.exists()
    assert stat.S_IMODE(os.stat(temp).st_mode) == 0o666 & ~_umask()
    Publisher().commit(temp, str(target))
    assert target.read_bytes() == b"whole" and not Path(temp).exists()


def test_a_publisher_writes_through_one_open_temporary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    opened: list[str] = []
    real_open = open

    def counting(path: object, mode: str = "r", *args: object, **kwargs: object) -> object:
        if str(path).endswith(".part") and "r" not in mode:
            opened.append(mode)
        return real_open(path, mode, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr("builtins.open", counting)
    Publisher().write(str(tmp_path / "out.txt"), b"data")
    assert (tmp_path / "out.txt").read_bytes() == b"data" and opened == ["xb"]


def test_an_apps_redirected_output_is_opened_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    opened: list[str] = []
    real_open = open

    def counting(path: object, mode: str = "r", *args: object, **kwargs: object) -> object:
        if ".part" in str(path) and "r" not in mode:
            opened.append(mode)
        return real_open(path, mode, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr("builtins.open", counting)
    out = tmp_path / "out.txt"
    TaskRunner({}, None)(AppSpec(argv=("echo", "hello"), stdout=str(out), outputs=(str(out),)))
    assert out.read_text() == "hello\n" and opened == ["xb"]
    assert not [name for name in os.listdir(tmp_path) if PART_NAME.fullmatch(name)]


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
