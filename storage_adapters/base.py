"""The storage adapter base class: a few primitives per backend, everything else once here.

As in fsspec, a backend implements a small set of primitives on *logical*
paths (already normalized and checked by `paths.to_logical`): `_info`, `_ls`,
`_open`, `_download`, `_put_file`, `_rm`, `_mkdir`, `_rename`. The public
methods of `StorageAdapter` normalize paths, create parent directories where
the backend needs them, make local writes atomic, and derive the rest
(`exists`, `cat`, `pipe`, `find`, recursive `rm`/`get`/`put`, staging).

Capabilities are class attributes: `mode` ("staging" or "shared"),
`atomic_rename`, `needs_parent_dirs`. Adapters must be usable from several
threads at once (staging transfers a task's files concurrently).
"""

from __future__ import annotations

import errno
import os
import posixpath
import uuid
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from types import TracebackType
from typing import IO, TYPE_CHECKING, ClassVar, Union

from hostkit.digests import Digester, DigestingWriter
from hostkit.errors import redact
from storage_adapters.errors import StoragePathError
from storage_adapters.paths import leads_out, parent, to_logical

if TYPE_CHECKING:
    from storage_adapters.settings import StorageSettings

FILE = "file"
DIRECTORY = "directory"


@dataclass(frozen=True, slots=True)
class FileInfo:
    """What a store knows about one entry: logical path, kind, size in bytes."""

    path: str
    type: str
    size: int = 0

    @property
    def name(self) -> str:
        return posixpath.basename(self.path)


class AtomicWriter:
    """A writable binary file whose content becomes visible only when it is closed cleanly.

    Bytes go to `sink` (a temporary file); `close()` calls `commit` to publish
    them under the final name, while leaving a `with` block on an exception
    calls `abort` instead, so a failed writer never publishes anything.
    """

    def __init__(self, sink: IO[bytes], commit: Callable[[], None], abort: Callable[[], None]) -> None:
        self._sink = sink
        self._commit = commit
        self._abort = abort
        self.closed = False

    def write(self, data: bytes) -> int:
        return self._sink.write(data)

    def writable(self) -> bool:
        return True

    def readable(self) -> bool:
        return False

    def flush(self) -> None:
        self._sink.flush()

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        try:
            self._sink.close()
        except BaseException:
            self._abort()
            raise
        self._commit()

    def discard(self) -> None:
        """Close without publishing anything."""
        if self.closed:
            return
        self.closed = True
        try:
            self._sink.close()
        finally:
            self._abort()

    def __enter__(self) -> AtomicWriter:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if kind is None:
            self.close()
        else:
            self.discard()


# What `open` returns: a readable binary file, or an AtomicWriter.
StoreFile = Union[IO[bytes], AtomicWriter]


class StorageAdapter(ABC):
    """One configured store. Subclasses set `backend` and `mode` and implement the primitives."""

    backend: ClassVar[str]
    mode: ClassVar[str]
    atomic_rename: ClassVar[bool] = True
    needs_parent_dirs: ClassVar[bool] = True
    # Settings that are secrets: setting name -> default environment variable.
    secret_settings: ClassVar[dict[str, str]] = {}
    # For shared stores, the directory tasks use directly; None for staging stores.
    mount_path: str | None = None

    def __init__(self, name: str, secrets: Iterable[str] = ()) -> None:
        self.name = name
        self._secrets = tuple(s for s in secrets if s)

    # ----- construction, validation, lifetime -----

    @classmethod
    @abstractmethod
    def from_settings(cls, settings: StorageSettings) -> StorageAdapter:
        """Build an adapter from a resolved `[storage.NAME]` table (no network yet)."""

    @classmethod
    def service_defaults(cls, state_dir: str) -> tuple[dict[str, object], dict[str, str]]:
        """Settings and secrets taken from a server started by `swiftcloud services start`
        in `state_dir`, used when swiftcloud.toml has no table for this backend."""
        return {}, {}

    def check(self) -> None:
        """Validate the configuration against the real store; raise StorageConfigError.

        The default lists the store root; backends override it to tell apart an
        unreachable server, bad credentials, a missing bucket and so on.
        """
        self.info("")

    def close(self) -> None:
        """Release connections and anything the adapter set up (such as a mount)."""

    def __enter__(self) -> StorageAdapter:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def describe(self) -> str:
        """One line naming the store for messages (never contains a secret)."""
        return f"storage '{self.name}' ({self.backend})"

    @property
    def secret_values(self) -> tuple[str, ...]:
        """The secrets this adapter was given, for redaction by code that reports its errors."""
        return self._secrets

    def redact(self, text: str) -> str:
        """`text` with this adapter's secrets hidden."""
        return redact(text, self._secrets)

    # ----- primitives (logical paths) -----

    @abstractmethod
    def _info(self, path: str) -> FileInfo:
        """Describe `path`; raise FileNotFoundError when it does not exist."""

    @abstractmethod
    def _ls(self, path: str) -> list[FileInfo]:
        """Entries directly under directory `path`, temporary names excluded."""

    @abstractmethod
    def _open(self, path: str, mode: str) -> StoreFile:
        """Open for "rb", or for "wb" as an AtomicWriter."""

    @abstractmethod
    def _download(self, path: str, sink: IO[bytes]) -> None:
        """Write the whole content of store file `path` to `sink` (a fresh temporary file;
        written in order when it is not seekable)."""

    @abstractmethod
    def _put_file(self, local_path: str, path: str) -> None:
        """Copy `local_path` to `path`; readers see the old file or the whole new one, never a part."""

    @abstractmethod
    def _rm(self, path: str) -> None:
        """Remove one file or one empty directory."""

    @abstractmethod
    def _mkdir(self, path: str) -> None:
        """Create directory `path` and its parents; an existing directory is fine."""

    @abstractmethod
    def _rename(self, src: str, dst: str) -> None:
        """Move `src` (file or directory) to `dst`, replacing a file there."""

    # ----- public operations -----

    def logical(self, path: str) -> str:
        """Normalize a user path to a logical path, refusing escapes from the root."""
        return to_logical(path, self.mount_path)

    def logical_file(self, path: str) -> str:
        """Like `logical`, for a path that must name a file (so not the root)."""
        logical = self.logical(path)
        if not logical:
            raise StoragePathError(f"the root of {self.describe()} is a directory, not a file")
        return logical

    def info(self, path: str) -> FileInfo:
        return self._info(self.logical(path))

    def ls(self, path: str = "") -> list[FileInfo]:
        logical = self.logical(path)
        if self._info(logical).type != DIRECTORY:
            raise NotADirectoryError(errno.ENOTDIR, f"not a directory in {self.describe()}", logical)
        return sorted(self._ls(logical), key=lambda entry: entry.path)

    def open(self, path: str, mode: str = "rb") -> StoreFile:
        """Open a store file for reading ("rb") or atomic writing ("wb")."""
        logical = self.logical_file(path)
        if mode == "rb":
            self._require_file(logical)
        elif mode == "wb":
            self._ensure_parent(logical)
        else:
            raise ValueError(f"unsupported mode {mode!r}: use 'rb' or 'wb'")
        return self._open(logical, mode)

    def get_file(self, path: str, local_path: str) -> int:
        """Download one file; `local_path` appears only once complete. Returns its size."""
        return self._fetch(path, local_path, None)

    def get_file_digested(self, path: str, local_path: str) -> tuple[int, str]:
        """`get_file`, and the digest of the bytes downloaded, taken as they landed."""
        digester = Digester()
        size = self._fetch(path, local_path, digester)
        return size, digester.digest()

    def _fetch(self, path: str, local_path: str, digester: Digester | None) -> int:
        logical = self.logical_file(path)
        self._require_file(logical)
        local_path = os.path.abspath(local_path)
        os.makedirs(os.path.dirname(local_path), exist_ok=True)
        partial = f"{local_path}.part-{uuid.uuid4().hex[:12]}"
        try:
            with open(partial, "wb") as sink:
                self._download(logical, sink if digester is None else DigestingWriter(sink, digester))
            os.replace(partial, local_path)
        except BaseException:
            remove_quietly(partial)
            raise
        return os.path.getsize(local_path)

    def put_file(self, local_path: str, path: str) -> int:
        """Upload one local file, atomically on the store side. Returns its size."""
        logical = self.logical_file(path)
        if not os.path.isfile(local_path):
            raise FileNotFoundError(errno.ENOENT, "no such local file", local_path)
        self._ensure_parent(logical)
        self._put_file(local_path, logical)
        return os.path.getsize(local_path)

    def mkdir(self, path: str) -> None:
        logical = self.logical(path)
        if self.isfile(logical):
            raise FileExistsError(errno.EEXIST, f"a file already exists in {self.describe()}", logical)
        if logical:
            self._mkdir(logical)

    def rm(self, path: str, recursive: bool = False) -> None:
        """Remove a file, or a directory (its content too when `recursive`)."""
        logical = self.logical(path)
        if not logical:
            raise StoragePathError(f"refusing to remove the root of {self.describe()}")
        if self._info(logical).type == DIRECTORY:
            entries = self._ls(logical)
            if entries and not recursive:
                raise OSError(errno.ENOTEMPTY, f"directory not empty in {self.describe()}", logical)
            for entry in entries:
                self.rm(entry.path, recursive=True)
        self._rm(logical)

    def rename(self, src: str, dst: str) -> None:
        source, target = self.logical(src), self.logical(dst)
        if not source or not target:
            raise StoragePathError(f"cannot rename the root of {self.describe()}")
        self._info(source)
        self._ensure_parent(target)
        self._rename(source, target)

    # ----- derived operations -----

    def exists(self, path: str) -> bool:
        try:
            self.info(path)
        except FileNotFoundError:
            return False
        return True

    def isfile(self, path: str) -> bool:
        return self.exists(path) and self.info(path).type == FILE

    def isdir(self, path: str) -> bool:
        return self.exists(path) and self.info(path).type == DIRECTORY

    def size(self, path: str) -> int:
        return self.info(path).size

    def cat(self, path: str) -> bytes:
        """The whole content of a store file."""
        with self.open(path, "rb") as handle:
            return handle.read()

    def pipe(self, path: str, data: bytes) -> None:
        """Write `data` as the whole content of a store file (atomically)."""
        with self.open(path, "wb") as handle:
            handle.write(data)

    def find(self, path: str = "") -> list[str]:
        """Logical paths of all files under `path` (or `[path]` for a file), sorted."""
        logical = self.logical(path)
        if self._info(logical).type == FILE:
            return [logical]
        found: list[str] = []
        for entry in self._ls(logical):
            found.extend(self.find(entry.path) if entry.type == DIRECTORY else [entry.path])
        return sorted(found)

    def get(self, path: str, local_path: str) -> int:
        """Download a file, or a directory tree into `local_path`. Returns bytes copied."""
        logical = self.logical(path)
        if self._info(logical).type == FILE:
            return self.get_file(logical, local_path)
        total = 0
        for file_path in self.find(logical):
            relative = posixpath.relpath(file_path, logical) if logical else file_path
            total += self.get_file(file_path, os.path.join(local_path, *relative.split("/")))
        return total

    def put(self, local_path: str, path: str) -> int:
        """Upload a file, or a local directory tree under `path`. Returns bytes copied."""
        if not os.path.isdir(local_path):
            return self.put_file(local_path, path)
        base = self.logical(path)
        total = 0
        for directory, _, files in os.walk(local_path):
            relative = os.path.relpath(directory, local_path)
            for file_name in sorted(files):
                parts = [] if relative == "." else relative.split(os.sep)
                total += self.put_file(os.path.join(directory, file_name), posixpath.join(base, *parts, file_name))
        return total

    def local_path(self, path: str) -> str:
        """For a shared store, the POSIX path a task uses for logical `path`, checked: a
        symbolic link on the way that leads out of the store is refused."""
        return self.confined(self.mounted_path(path), path)

    def mounted_path(self, path: str) -> str:
        """For a shared store, the POSIX path of logical `path` under the mount, from its text
        alone (whoever uses it checks it with `paths.leads_out`, as `local_path` does)."""
        if self.mount_path is None:
            raise StoragePathError(f"{self.describe()} is not mounted; its files must be staged")
        logical = self.logical(path)
        return os.path.join(self.mount_path, *logical.split("/")) if logical else self.mount_path

    def confined(self, full: str, path: str) -> str:
        """`full` (a path under the mount), unless a symbolic link on the way leads
        out of the store: the text of a logical path is checked by `logical`, and
        this checks where the file system actually takes it."""
        assert self.mount_path is not None
        if leads_out(full, self.mount_path):
            raise StoragePathError(f"'{path}' leads out of {self.describe()} through a symbolic link")
        return full

    def locations(self, path: str) -> list[str]:
        """Node names holding `path`, for data-aware placement; [] when unknown."""
        return []

    # ----- helpers for subclasses -----

    def _require_file(self, logical: str) -> None:
        if self._info(logical).type == DIRECTORY:
            raise IsADirectoryError(errno.EISDIR, f"is a directory in {self.describe()}", logical)

    def _ensure_parent(self, logical: str) -> None:
        directory = parent(logical)
        if not self.needs_parent_dirs or not directory:
            return
        try:
            if self._info(directory).type == FILE:
                raise NotADirectoryError(errno.ENOTDIR, f"a parent is a file in {self.describe()}", directory)
        except FileNotFoundError:
            self._mkdir(directory)


def remove_quietly(local_path: str) -> None:
    """Delete a local file if it is there (cleanup after a failed write)."""
    try:
        os.remove(local_path)
    except FileNotFoundError:
        pass
