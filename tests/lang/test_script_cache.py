"""Compiled scripts are reused only while every file the compiler looked at is unchanged
(engine.script_cache): the script, what it imports and includes, and the places where an
import was searched for in vain."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import engine.lang.compile
from engine import script_cache
from engine.errors import CompileErrors
from engine.script import compile_script

HELLO = 'import io;\nprintf("hello");\n'


@pytest.fixture(autouse=True)
def cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    return tmp_path / "cache"


def compiles(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths compiled from here on (not taken from the cache)."""
    compiled: list[str] = []
    real = engine.lang.compile.compile

    def counting(path: str, *args: object) -> object:
        compiled.append(path)
        return real(path, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(engine.lang.compile, "compile", counting)
    return compiled


def test_an_unchanged_script_is_compiled_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    script = tmp_path / "hello.swift"
    script.write_text(HELLO)
    compiled = compiles(monkeypatch)
    first, second = compile_script(str(script)), compile_script(str(script))
    assert compiled == [str(script)]
    # Symbols compare by identity, so the programs are compared field by field, as printed.
    assert repr(second) == repr(first)


def test_a_changed_script_is_compiled_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    script = tmp_path / "hello.swift"
    script.write_text(HELLO)
    compile_script(str(script))
    script.write_text(HELLO.replace("hello", "bye"))  # within the same clock tick, if it is coarse
    compiled = compiles(monkeypatch)
    program = compile_script(str(script))
    assert compiled == [str(script)]
    assert "value='bye'" in repr(program.statements) and "value='hello'" not in repr(program.statements)


def test_a_changed_import_is_compiled_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "lib.swift").write_text('(int o) seven() { o = 7; }\n')
    script = tmp_path / "main.swift"
    script.write_text('import io;\nimport lib;\nprintf("%i", seven());\n')
    compile_script(str(script))
    (tmp_path / "lib.swift").write_text('(int o) seven() { o = 8; }\n')
    compiled = compiles(monkeypatch)
    compile_script(str(script))
    assert compiled == [str(script)]


def test_an_import_that_appears_earlier_on_the_search_path_is_used(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """`lib` was found in an include directory; a `lib.swift` beside the script comes first."""
    (tmp_path / "include").mkdir()
    (tmp_path / "include" / "lib.swift").write_text('(int o) seven() { o = 7; }\n')
    (tmp_path / "app").mkdir()
    script = tmp_path / "app" / "main.swift"
    script.write_text('import io;\nimport lib;\nprintf("%i", seven());\n')
    include = [str(tmp_path / "include")]
    compile_script(str(script), include)
    (tmp_path / "app" / "lib.swift").write_text('(int o) seven() { o = 70; }\n')
    compiled = compiles(monkeypatch)
    program = compile_script(str(script), include)
    assert compiled == [str(script)]
    assert "70" in repr(program.functions)


def test_warnings_come_back_with_a_cached_script(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    script = tmp_path / "w.swift"
    script.write_text('import io;\nint unused;\nprintf("x");\n')
    first = compile_script(str(script))
    compiled = compiles(monkeypatch)
    second = compile_script(str(script))
    assert compiled == []
    assert [str(w) for w in second.warnings] == [str(w) for w in first.warnings]
    assert str(second.warnings[0]) == f"{script}:2:5: warning: variable 'unused' is never used"


def test_a_script_that_fails_to_compile_is_not_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    script = tmp_path / "bad.swift"
    script.write_text('int x = "text";\n')
    for _ in range(2):
        with pytest.raises(CompileErrors):
            compile_script(str(script))
    folder = script_cache.directory()
    assert not os.path.isdir(folder) or not [name for name in os.listdir(folder) if not name.startswith(".")]


def test_a_cache_others_may_write_to_is_not_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    script = tmp_path / "hello.swift"
    script.write_text(HELLO)
    compile_script(str(script))
    os.chmod(script_cache.directory(), 0o777)
    compiled = compiles(monkeypatch)
    compile_script(str(script))
    assert compiled == [str(script)]


def test_a_damaged_entry_means_compiling(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    script = tmp_path / "hello.swift"
    script.write_text(HELLO)
    compile_script(str(script))
    for name in os.listdir(script_cache.directory()):
        (Path(script_cache.directory()) / name).write_bytes(b"not a pickle")
    compiled = compiles(monkeypatch)
    assert compile_script(str(script)).statements
    assert compiled == [str(script)]


def test_a_cached_program_loads_without_the_syntax_tree(tmp_path: Path) -> None:
    script = tmp_path / "hello.swift"
    script.write_text('import io;\n(int r) twice (int x = 3) { r = 2 * x; }\nprintf("%i", twice());\n')
    compile_script(str(script))
    probe = ("import sys\nfrom engine.script import compile_script\n"
             f"program = compile_script({str(script)!r})\n"
             "print(sorted(name for name in sys.modules if name.startswith('engine.lang.')))\n")
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-c", probe], env={**os.environ, "PYTHONPATH": str(root)},
                         capture_output=True, text=True, check=True).stdout
    assert "engine.lang.ir" in out
    # The checker's syntax nodes stay behind: neither the compiler nor the tree's classes load.
    assert "engine.lang.ast" not in out and "engine.lang.compile" not in out
