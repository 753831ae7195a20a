"""Where a run's files live: the local file system, or a store chosen with `--storage`.

The runtime names files by the paths the script gives them (`filename(f)`
returns exactly that). This module turns those names into something usable:

- `PosixFiles` — no `--storage`: LANGUAGE.md's plain semantics; a path is a
  path on this machine (relative to the working directory), unmapped files go
  to `$SWIFT_TMP`.
- `StoreFiles` — `--storage NAME`: a path is a logical path inside the store
  (one that escapes the store root is refused); unmapped files live in the
  store too, under `_swiftcloud/tmp/RUN/`. In shared mode (local, s3fs,
  mosastore, ...) tasks use the mount paths directly; in staging mode (s3, scp)
  each worker fetches a task's inputs into its scratch directory and pushes
  its outputs after it (see `engine.runtime.staging`).

Engine-side builtins that read or write file contents (`read`, `file_lines`,
`write`) go through `local_copy` / `publish`; `glob` matches the store's
logical paths (its internal `_swiftcloud/` area excluded). `input_file(p)`
names a file in the store; a path found only on local disk is loaded into
the store first (`ensure_input`): a relative one at the same logical path, an
absolute one under `_swiftcloud/inputs/`. Every file the engine publishes is
digested, and every store file it fetches is checked against its producer's
digest (`digests`, see `engine.runtime.integrity`).
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Callable
from typing import Any, Optional, TypeVar

from engine.errors import SwiftRuntimeError
from engine.runtime import files
from engine.runtime.builtins.globbing import store_glob, tcl_glob
from engine.runtime.integrity import FileDigests
from engine.task import scratch
from hostkit.digests import file_digest, sha256_hex

T = TypeVar("T")


class PosixFiles:
    """The embedded default: files are local paths."""

    mode = "posix"
    name = ""
    config_path: Optional[str] = None
    secret_env_names: tuple[str, ...] = ()
    store_root: Optional[str] = None  # no store: a task's paths are the user's own

    def __init__(self, temp: files.TempFiles) -> None:
        self.temp = temp
        self.digests = FileDigests()

    @property
    def temp_prefix(self) -> str:
        """Where the run's unmapped files go (removed at its end unless kept)."""
        return os.path.join(self.temp.directory, self.temp.prefix)

    def user_path(self, path: str) -> str:
        return path

    def task_path(self, path: str) -> str:
        """The path a task (or an engine builtin) opens for file `path`."""
        return path

    def local_copy(self, path: str) -> str:
        return path

    def new_temp(self) -> str:
        return self.temp.new_path()

    def publish(self, local: str, path: str, move: bool = False) -> None:
        files.transfer(local, path, move=move)
        self.digests.published(path, file_digest(path))

    def copy(self, src: str, dest: str) -> None:
        self.publish(src, dest)

    def exists(self, path: str) -> bool:
        return os.path.isfile(path)

    def signature(self, path: str) -> Optional[list[int]]:
        """What identifies a file's version for `--resume`: size and modification time
        (as Nextflow's standard cache); None if it is missing."""
        return _stat_signature(path)

    def locations(self, path: str) -> list[str]:
        return []

    def glob(self, pattern: str) -> list[str]:
        return tcl_glob(pattern)

    def close(self) -> None:
        """Nothing to release: the engine removes the run's temporary files itself."""


class StoreFiles:
    """Files inside a storage adapter's store."""

    def __init__(self, adapter: Any, name: str, config_path: Optional[str]) -> None:
        self.adapter = adapter
        self.name = name
        self.config_path = config_path
        self.mode = adapter.mode
        self.run_prefix = f"_swiftcloud/tmp/{uuid.uuid4().hex[:12]}"
        self.counter = 0
        self.temps: list[str] = []
        self.cache_dir = scratch.make("engine")
        self.autodelete = os.environ.get("SWIFT_TMP_AUTODELETE", "1") != "0"
        self.imported: dict[str, str] = {}  # absolute local input path -> its logical path
        self.digests = FileDigests()
        # Environment variables that hold the store's secrets: never passed on to apps.
        secrets = set(adapter.secret_values)
        self.secret_env_names = tuple(sorted(k for k, v in os.environ.items() if v and v in secrets))

    def user_path(self, path: str) -> str:
        """The logical path for a script's file name (refusing escapes from the root)."""
        from storage_adapters import StorageError
        imported = self.imported.get(path)
        if imported is not None:
            return imported
        try:
            return self.adapter.logical_file(path)
        except StorageError as e:
            raise SwiftRuntimeError(f"file '{path}': {e}") from None

    @property
    def temp_prefix(self) -> str:
        """Where the run's unmapped files go in the store (removed at its end unless kept)."""
        return self.run_prefix + "/"

    @property
    def store_root(self) -> Optional[str]:
        """Shared mode: the mount, under which the worker checks a task's paths (AppSpec)."""
        return self.adapter.mount_path if self.mode == "shared" else None

    def task_path(self, path: str) -> str:
        """Shared mode: the mount path tasks use, from the path's text; the worker checks
        it for symbolic links before the app runs. (Staging mode never calls this.)"""
        return self.adapter.mounted_path(self.user_path(path))

    def local_copy(self, path: str) -> str:
        """A local path holding the contents of store file `path` (for engine builtins)."""
        logical = self.user_path(path)
        if self.mode == "shared":
            return self.adapter.local_path(logical)
        target = os.path.join(self.cache_dir, *logical.split("/"))
        if not os.path.exists(target):
            _, found = self._transfer(lambda: self.adapter.get_file_digested(logical, target), f"fetch '{path}'")
            try:
                self.digests.check(logical, found, self.adapter.describe())
            except SwiftRuntimeError:
                os.unlink(target)  # never read again from the cache
                raise
        return target

    def new_temp(self) -> str:
        self.counter += 1
        path = f"{self.run_prefix}/{self.counter}.turbine"
        self.temps.append(path)
        return path

    def publish(self, local: str, path: str, move: bool = False) -> None:
        logical = self.user_path(path)
        self._transfer(lambda: self.adapter.put_file(local, logical), f"store '{path}'")
        self.digests.published(logical, file_digest(local))
        if move:
            os.unlink(local)

    def copy(self, src: str, dest: str) -> None:
        self.publish(self.local_copy(src), dest)

    def exists(self, path: str) -> bool:
        logical = self.user_path(path)
        return bool(_retrying(self.adapter, lambda: self.adapter.isfile(logical)))

    def signature(self, path: str) -> Optional[list[int]]:
        """A file's version for `--resume`: size and modification time on a mounted store,
        the size the store reports in staging mode; None if it is missing."""
        if self.mode == "shared":
            return _stat_signature(self.task_path(path))
        logical = self.user_path(path)
        try:
            return [_retrying(self.adapter, lambda: self.adapter.info(logical)).size]
        except FileNotFoundError:
            return None

    def ensure_input(self, path: str, caller: str) -> None:
        """An input file must be in the store; a relative path that exists only on
        local disk (a workflow's own template, say) is loaded into the store at
        the same logical path first, as `swiftcloud put` would."""
        if path in self.imported or (not os.path.isabs(path) and self.exists(path)):
            return
        if os.path.isfile(path):
            if os.path.isabs(path):
                # A local file outside the store: give it a logical home of its own.
                digest = sha256_hex(path.encode())[:16]
                self.imported[path] = f"_swiftcloud/inputs/{digest}/{os.path.basename(path)}"
            self.publish(path, path)
            return
        raise SwiftRuntimeError(f"{caller}: file '{path}' does not exist in {self.adapter.describe()}"
                                " (load inputs with 'swiftcloud put LOCAL REMOTE --storage NAME')")

    def locations(self, path: str) -> list[str]:
        try:
            return list(self.adapter.locations(self.user_path(path)))
        except Exception:  # noqa: BLE001 - placement is a hint; never fail a run for it
            return []

    def glob(self, pattern: str) -> list[str]:
        """Logical paths of store files matching `pattern` (glob() under --storage)."""
        from storage_adapters import StorageError
        try:
            return store_glob(pattern, self.adapter)
        except StorageError as e:
            raise SwiftRuntimeError(f"glob(): pattern '{pattern}': {e}") from None
        except OSError as e:
            raise SwiftRuntimeError(f"glob(): could not list {self.adapter.describe()}: "
                                    f"{e.strerror or e}") from None

    def _transfer(self, action: Callable[[], T], what: str) -> T:
        from storage_adapters import StorageError
        try:
            return _retrying(self.adapter, action)
        except FileNotFoundError as e:
            raise SwiftRuntimeError(f"could not {what}: not found in {self.adapter.describe()}") from e
        except StorageError as e:
            raise SwiftRuntimeError(f"could not {what}: {e}") from e

    def close(self) -> None:
        try:
            if self.autodelete:
                for path in self.temps:
                    try:
                        self.adapter.rm(path)
                    except Exception:  # noqa: BLE001 - best effort clean-up of temporaries
                        pass
        finally:
            shutil.rmtree(self.cache_dir, ignore_errors=True)
            self.adapter.close()


def _retrying(adapter: Any, action: Callable[[], T]) -> T:
    """`action()` on the store, retried while its server cannot be reached (`storage_adapters.retries`)."""
    # Deferred, as every use of the storage package here: it costs a run on local paths about
    # 9 ms of start-up, and only a run on a store needs it.
    from storage_adapters.retries import retrying
    return retrying(adapter, action)


def _stat_signature(path: str) -> Optional[list[int]]:
    try:
        status = os.stat(path)
    except OSError:
        return None
    return [status.st_size, status.st_mtime_ns]


def open_files(storage: Optional[str], config_path: Optional[str], temp: files.TempFiles) -> PosixFiles | StoreFiles:
    """The file layer for a run: plain paths, or the named store (validated now,
    before any task runs)."""
    if not storage:
        return PosixFiles(temp)
    from storage_adapters import open_storage
    adapter = open_storage(storage, config_path)
    return StoreFiles(adapter, storage, config_path)
