"""hostkit.bytecode.byte_compile: a checkout's bytecode, written where Python would write none."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

from hostkit.bytecode import byte_compile


def make_checkout(root: Path) -> None:
    (root / "pkg" / "sub").mkdir(parents=True)
    for path in ("pkg/__init__.py", "pkg/sub/__init__.py"):
        (root / path).write_text("")
    (root / "pkg" / "mod.py").write_text("VALUE = 42\n")
    (root / "pkg" / "sub" / "deep.py").write_text("VALUE = 7\n")
    (root / "loose").mkdir()  # no __init__.py: not a package of ours
    (root / "loose" / "script.py").write_text("VALUE = 1\n")


def cached(module: Path) -> Path:
    return Path(importlib.util.cache_from_source(str(module)))


def test_every_package_gets_its_bytecode_even_where_python_writes_none(tmp_path, monkeypatch) -> None:
    make_checkout(tmp_path)
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")  # inherited by the compiling process
    byte_compile(str(tmp_path))
    assert cached(tmp_path / "pkg" / "mod.py").is_file()
    assert cached(tmp_path / "pkg" / "sub" / "deep.py").is_file()
    assert not cached(tmp_path / "loose" / "script.py").exists()


def test_a_module_edited_since_is_compiled_again(tmp_path) -> None:
    make_checkout(tmp_path)
    byte_compile(str(tmp_path))
    module = tmp_path / "pkg" / "mod.py"
    module.write_text("VALUE = 43  # edited\n")
    os.utime(module, (module.stat().st_atime, module.stat().st_mtime + 5))  # as an edit seconds later
    byte_compile(str(tmp_path))
    header = cached(module).read_bytes()[:16]  # magic, flags, the source's mtime and size it was made from
    assert header[:4] == importlib.util.MAGIC_NUMBER
    assert int.from_bytes(header[8:12], "little") == int(module.stat().st_mtime)
    assert int.from_bytes(header[12:16], "little") == module.stat().st_size
