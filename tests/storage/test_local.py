"""The conformance suite on the `local` backend (a plain directory)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from storage_adapters.local import LocalAdapter

from .abstract import StorageConformance

REPO = Path(__file__).resolve().parents[2]


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


def test_the_engine_looks_up_none_of_a_tasks_paths_on_the_mount(tmp_path: Path) -> None:
    """Checking a path on a mount for symbolic links costs a round trip to the store's server
    per component (the dearest for an output not written yet): the engine makes a task's paths
    from their text and leaves the check to the worker, so its one thread never waits on the
    store for a task's paths."""
    (tmp_path / "swiftcloud.toml").write_text(f'[storage.here]\nbackend = "local"\npath = "{tmp_path / "store"}"\n')
    (tmp_path / "in.txt").write_text("data\n")
    (tmp_path / "copy.swift").write_text('app (file o) copy (file i) { "cp" i o }\n'
                                         'file i = input_file("in.txt");\n'
                                         'file o <"out/copy.txt"> = copy(i);\n')
    # The count is kept in the engine's process (local transport), by a wrapper around the call.
    counting = tmp_path / "counting.py"
    counting.write_text("import atexit, collections, json, sys\n"
                        "from swiftcloud import cli\n"
                        "from storage_adapters.base import StorageAdapter\n"
                        "calls = collections.Counter()\n"
                        "resolve = StorageAdapter.local_path\n"
                        "def counted(self, path):\n"
                        "    calls[path] += 1\n"
                        "    return resolve(self, path)\n"
                        "StorageAdapter.local_path = counted\n"
                        "atexit.register(lambda: open('calls.json', 'w').write(json.dumps(calls)))\n"
                        "sys.exit(cli.main(sys.argv[1:]))\n")
    result = subprocess.run([sys.executable, str(counting), "run", "-n", "2", "--transport", "local",
                             "--no-restart-log", "--storage", "here", "--config", "swiftcloud.toml", "copy.swift"],
                            cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(REPO)}, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "store" / "out" / "copy.txt").read_text() == "data\n"
    assert json.loads((tmp_path / "calls.json").read_text()) == {}


def test_a_task_whose_path_leads_out_of_the_store_is_refused_by_its_worker(tmp_path: Path) -> None:
    """An output mapped through a link out of the store: the worker refuses the task before the
    app runs, naming the path and the command; nothing outside is written, nor removed by the
    failed task's clean-up."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "out.txt").write_text("theirs\n")
    store = tmp_path / "store"
    store.mkdir()
    (store / "escape").symlink_to(outside)
    (tmp_path / "swiftcloud.toml").write_text(f'[storage.here]\nbackend = "local"\npath = "{store}"\n')
    (tmp_path / "in.txt").write_text("data\n")
    (tmp_path / "copy.swift").write_text('app (file o) copy (file i) { "cp" i o }\n'
                                         'file i = input_file("in.txt");\n'
                                         'file o <"escape/out.txt"> = copy(i);\n')
    result = subprocess.run([sys.executable, "-m", "swiftcloud", "run", "-n", "2", "--transport", "local",
                             "--retries", "2", "--storage", "here", "--config", "swiftcloud.toml", "copy.swift"],
                            cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(REPO)}, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"'{store}/escape/out.txt' leads out of the store mounted at {store} through a symbolic link" \
        in result.stderr, result.stderr
    assert "command: cp " in result.stderr and "after 3 attempts" not in result.stderr  # not retried
    assert "Traceback" not in result.stderr
    assert sorted(p.name for p in outside.iterdir()) == ["out.txt"]
    assert (outside / "out.txt").read_text() == "theirs\n"
