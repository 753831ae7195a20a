"""The storage conformance suite: mixins every backend's test class inherits.

A backend's test file only provides an `adapter` fixture (a fresh, empty store
on a real server); these mixins then check the contract of
`storage_adapters.base.StorageAdapter`: byte-exact round trips (empty, small,
200 MB), listing, rename, delete, missing-file errors, concurrent writers,
atomic publication, refusal of paths escaping the root, and staging.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from blake3 import blake3

from storage_adapters.base import DIRECTORY, FILE, StorageAdapter
from storage_adapters.errors import StoragePathError
from storage_adapters.staging import stage_in, stage_out

from .conftest import LargeFile, sha256_of

ALL_BYTES = bytes(range(256)) * 17


def write_local(path: Path, data: bytes) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return str(path)


class RoundTripTests:
    def test_empty_file_round_trip(self, adapter: StorageAdapter, tmp_path: Path) -> None:
        assert adapter.put_file(write_local(tmp_path / "empty", b""), "empty.dat") == 0
        assert adapter.info("empty.dat").type == FILE
        assert adapter.size("empty.dat") == 0
        assert adapter.get_file("empty.dat", str(tmp_path / "back")) == 0
        assert (tmp_path / "back").read_bytes() == b""

    def test_small_file_round_trip(self, adapter: StorageAdapter, tmp_path: Path) -> None:
        adapter.put_file(write_local(tmp_path / "small", ALL_BYTES), "dir/sub/small.bin")
        adapter.get_file("dir/sub/small.bin", str(tmp_path / "out" / "small.bin"))
        assert (tmp_path / "out" / "small.bin").read_bytes() == ALL_BYTES
        assert adapter.size("dir/sub/small.bin") == len(ALL_BYTES)

    def test_large_file_round_trip(self, adapter: StorageAdapter, large_file: LargeFile, tmp_path: Path) -> None:
        assert adapter.put_file(large_file.path, "large/200MB.bin") == large_file.size
        assert adapter.size("large/200MB.bin") == large_file.size
        back = tmp_path / "large.back"
        assert adapter.get_file("large/200MB.bin", str(back)) == large_file.size
        assert sha256_of(str(back)) == large_file.digest

    def test_open_pipe_and_cat(self, adapter: StorageAdapter) -> None:
        with adapter.open("notes/a.txt", "wb") as handle:
            handle.write(b"first line\n")
            handle.write(b"second line\n")
        assert adapter.cat("notes/a.txt") == b"first line\nsecond line\n"
        with adapter.open("notes/a.txt", "rb") as handle:
            assert handle.read(5) == b"first"
            assert handle.read() == b" line\nsecond line\n"
        adapter.pipe("notes/b.bin", ALL_BYTES)
        assert adapter.cat("notes/b.bin") == ALL_BYTES

    def test_overwrite_replaces_the_whole_content(self, adapter: StorageAdapter, tmp_path: Path) -> None:
        adapter.pipe("over.txt", b"a much longer first version")
        adapter.put_file(write_local(tmp_path / "short", b"short"), "over.txt")
        assert adapter.cat("over.txt") == b"short"


class ListingTests:
    def test_ls_shows_files_and_directories(self, adapter: StorageAdapter) -> None:
        adapter.pipe("top.txt", b"12345")
        adapter.pipe("dir/inner.txt", b"x")
        adapter.pipe("dir/deeper/leaf.txt", b"yy")
        assert [(e.path, e.type, e.size) for e in adapter.ls("")] == [
            ("dir", DIRECTORY, 0), ("top.txt", FILE, 5)]
        assert [(e.path, e.type) for e in adapter.ls("dir")] == [("dir/deeper", DIRECTORY), ("dir/inner.txt", FILE)]
        assert adapter.ls("dir")[0].name == "deeper"

    def test_find_lists_every_file_below(self, adapter: StorageAdapter) -> None:
        for path in ("a/1", "a/b/2", "a/b/c/3", "z"):
            adapter.pipe(path, path.encode())
        assert adapter.find("") == ["a/1", "a/b/2", "a/b/c/3", "z"]
        assert adapter.find("a/b") == ["a/b/2", "a/b/c/3"]
        assert adapter.find("z") == ["z"]

    def test_mkdir_makes_an_empty_directory(self, adapter: StorageAdapter) -> None:
        adapter.mkdir("made/here")
        assert adapter.isdir("made/here")
        assert adapter.ls("made/here") == []
        adapter.pipe("plain", b"")
        with pytest.raises(FileExistsError):
            adapter.mkdir("plain")

    def test_ls_of_a_file_is_refused(self, adapter: StorageAdapter) -> None:
        adapter.pipe("f.txt", b"1")
        with pytest.raises(NotADirectoryError):
            adapter.ls("f.txt")


class RenameDeleteTests:
    def test_rename_file(self, adapter: StorageAdapter) -> None:
        adapter.pipe("old/name.txt", b"content")
        adapter.rename("old/name.txt", "new/place/name.txt")
        assert not adapter.exists("old/name.txt")
        assert adapter.cat("new/place/name.txt") == b"content"

    def test_rename_replaces_an_existing_file(self, adapter: StorageAdapter) -> None:
        adapter.pipe("src", b"new")
        adapter.pipe("dst", b"old content")
        adapter.rename("src", "dst")
        assert adapter.cat("dst") == b"new"
        assert not adapter.exists("src")

    def test_rename_directory(self, adapter: StorageAdapter) -> None:
        adapter.pipe("tree/a.txt", b"a")
        adapter.pipe("tree/sub/b.txt", b"b")
        adapter.rename("tree", "moved")
        assert not adapter.exists("tree")
        assert adapter.find("moved") == ["moved/a.txt", "moved/sub/b.txt"]
        assert adapter.cat("moved/sub/b.txt") == b"b"

    def test_rm_file_and_tree(self, adapter: StorageAdapter) -> None:
        adapter.pipe("gone.txt", b"x")
        adapter.rm("gone.txt")
        assert not adapter.exists("gone.txt")
        adapter.pipe("t/1", b"1")
        adapter.pipe("t/u/2", b"2")
        with pytest.raises(OSError):
            adapter.rm("t")
        assert adapter.exists("t/u/2")
        adapter.rm("t", recursive=True)
        assert not adapter.exists("t")
        assert adapter.find("") == []

    def test_rm_of_the_root_is_refused(self, adapter: StorageAdapter) -> None:
        with pytest.raises(StoragePathError):
            adapter.rm("", recursive=True)


class MissingFileTests:
    def test_missing_file_errors(self, adapter: StorageAdapter, tmp_path: Path) -> None:
        for operation in (
            lambda: adapter.info("nope.txt"),
            lambda: adapter.cat("nope.txt"),
            lambda: adapter.open("dir/nope.txt", "rb"),
            lambda: adapter.get_file("nope.txt", str(tmp_path / "never")),
            lambda: adapter.rm("nope.txt"),
            lambda: adapter.rename("nope.txt", "other.txt"),
            lambda: adapter.ls("no-such-dir"),
            lambda: adapter.put_file(str(tmp_path / "no-local-file"), "x.txt"),
        ):
            with pytest.raises(FileNotFoundError):
                operation()
        assert not adapter.exists("nope.txt")
        assert not (tmp_path / "never").exists()

    def test_reading_a_directory_is_refused(self, adapter: StorageAdapter) -> None:
        adapter.pipe("d/f", b"1")
        with pytest.raises(IsADirectoryError):
            adapter.cat("d")


class ConcurrencyTests:
    def test_concurrent_writers_to_different_files(self, adapter: StorageAdapter, tmp_path: Path) -> None:
        payloads = {f"out/w{index}.bin": os.urandom(256 * 1024 + index) for index in range(8)}
        sources = {path: write_local(tmp_path / f"src{index}", data) for index, (path, data) in enumerate(payloads.items())}
        with ThreadPoolExecutor(max_workers=8) as pool:
            list(pool.map(lambda path: adapter.put_file(sources[path], path), payloads))
        assert adapter.find("out") == sorted(payloads)
        for path, data in payloads.items():
            assert adapter.cat(path) == data


class AtomicityTests:
    def test_an_upload_is_never_half_visible(self, adapter: StorageAdapter, tmp_path: Path) -> None:
        size = 24 * 1024 * 1024
        source = write_local(tmp_path / "big", os.urandom(size))
        seen: set[int] = set()
        done = threading.Event()

        def watch() -> None:
            while not done.is_set():
                try:
                    seen.add(adapter.size("watched.bin"))
                except FileNotFoundError:
                    pass

        watcher = threading.Thread(target=watch)
        watcher.start()
        try:
            adapter.put_file(source, "watched.bin")
        finally:
            done.set()
            watcher.join()
        assert seen <= {size}
        assert adapter.size("watched.bin") == size

    def test_a_failed_writer_publishes_nothing(self, adapter: StorageAdapter) -> None:
        with pytest.raises(RuntimeError):
            with adapter.open("half.txt", "wb") as handle:
                handle.write(b"partial")
                raise RuntimeError("task failed")
        assert not adapter.exists("half.txt")
        assert adapter.ls("") == []


class PathEscapeTests:
    @pytest.mark.parametrize("bad", ["../outside.txt", "a/../../outside.txt", "/etc/passwd", "..", "x\x00y"])
    def test_paths_escaping_the_root_are_refused(self, adapter: StorageAdapter, tmp_path: Path, bad: str) -> None:
        source = write_local(tmp_path / "src", b"data")
        for operation in (
            lambda: adapter.info(bad),
            lambda: adapter.put_file(source, bad),
            lambda: adapter.get_file(bad, str(tmp_path / "out")),
            lambda: adapter.open(bad, "wb"),
            lambda: adapter.rm(bad),
            lambda: adapter.ls(bad),
            lambda: adapter.rename("inside.txt", bad),
            lambda: stage_in(adapter, [bad], str(tmp_path / "scratch")),
            lambda: stage_out(adapter, {source: bad}),
        ):
            with pytest.raises(StoragePathError):
                operation()
        assert not (tmp_path / "out").exists()

    def test_dot_dot_inside_the_root_is_resolved(self, adapter: StorageAdapter) -> None:
        adapter.pipe("a/../b.txt", b"ok")
        assert adapter.find("") == ["b.txt"]
        assert adapter.cat("./b.txt") == b"ok"


class StagingTests:
    def test_stage_in_gives_readable_local_copies(self, adapter: StorageAdapter, tmp_path: Path) -> None:
        adapter.pipe("in/a.txt", b"alpha")
        adapter.pipe("in/b/b.txt", b"beta")
        scratch = tmp_path / "scratch"
        local = stage_in(adapter, ["in/a.txt", "in/b/b.txt", "in/a.txt"], str(scratch)).paths
        assert sorted(local) == ["in/a.txt", "in/b/b.txt"]
        assert Path(local["in/a.txt"]).read_bytes() == b"alpha"
        assert Path(local["in/b/b.txt"]).read_bytes() == b"beta"
        if adapter.mode == "staging":
            assert all(Path(path).is_relative_to(scratch) for path in local.values())
        else:
            assert local["in/a.txt"] == adapter.local_path("in/a.txt")

    def test_stage_in_digests_the_inputs_asked_for_as_they_land(self, adapter: StorageAdapter,
                                                                  tmp_path: Path) -> None:
        # 12 MB: several parts of a multipart download, which boto3 fetches out of order
        content = os.urandom(12 * 1024 * 1024)
        adapter.put_file(write_local(tmp_path / "big", content), "in/big.bin")
        adapter.pipe("in/small.txt", b"small")
        staged = stage_in(adapter, ["in/big.bin", "in/small.txt"], str(tmp_path / "scratch"), digested=["in/big.bin"])
        assert Path(staged.paths["in/big.bin"]).read_bytes() == content
        if adapter.mode == "staging":
            assert staged.digests == {"in/big.bin": f"blake3:{blake3(content).hexdigest()}"}
        else:  # a mount's inputs are read by the task itself; the store checks them
            assert staged.digests == {}

    def test_stage_in_with_a_missing_input_leaves_nothing(self, adapter: StorageAdapter, tmp_path: Path) -> None:
        adapter.pipe("present.txt", b"here")
        scratch = tmp_path / "scratch"
        with pytest.raises(FileNotFoundError):
            stage_in(adapter, ["present.txt", "absent.txt"], str(scratch))
        leftovers = [p for p in scratch.rglob("*") if p.is_file()] if scratch.exists() else []
        assert leftovers == []

    def test_stage_out_publishes_outputs_of_a_successful_task(self, adapter: StorageAdapter, tmp_path: Path) -> None:
        first = write_local(tmp_path / "work" / "o1.txt", b"one")
        second = write_local(tmp_path / "work" / "o2.txt", b"two!")
        pushed = stage_out(adapter, {first: "results/o1.txt", second: "results/deep/o2.txt"}, succeeded=True)
        assert pushed == 7
        assert adapter.cat("results/o1.txt") == b"one"
        assert adapter.cat("results/deep/o2.txt") == b"two!"

    def test_stage_out_of_a_failed_task_pushes_nothing(self, adapter: StorageAdapter, tmp_path: Path) -> None:
        output = write_local(tmp_path / "o.txt", b"junk")
        assert stage_out(adapter, {output: "results/o.txt"}, succeeded=False) == 0
        assert not adapter.exists("results/o.txt")

    def test_stage_out_with_a_missing_output_pushes_nothing(self, adapter: StorageAdapter, tmp_path: Path) -> None:
        present = write_local(tmp_path / "made.txt", b"made")
        with pytest.raises(FileNotFoundError, match="did not produce"):
            stage_out(adapter, {present: "r/made.txt", str(tmp_path / "forgot.txt"): "r/forgot.txt"})
        assert not adapter.exists("r/made.txt")


class StorageConformance(
    RoundTripTests, ListingTests, RenameDeleteTests, MissingFileTests,
    ConcurrencyTests, AtomicityTests, PathEscapeTests, StagingTests,
):
    """Every conformance test; a backend's test class inherits this and defines `adapter`."""
