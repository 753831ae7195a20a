"""The `local` backend: a directory on a POSIX file system shared by every worker.

It is the embedded default (`--storage local`): the store root is the `path`
setting, else `$SWIFTCLOUD_STORE`, else `.swiftcloud/store` in the current
directory. Mode "shared": tasks read and write under `mount_path` directly.
Writes go to a hidden temporary name beside the target and are renamed into
place, so a reader sees the old file or the whole new one. The s3fs backend
reuses this class on its FUSE mount.
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
from typing import IO, TYPE_CHECKING, ClassVar

from hostkit.errors import StorageConfigError
from hostkit.file_copy import copy_contents
from hostkit.private_names import is_store_temporary
from storage_adapters.base import AtomicWriter, DIRECTORY, FILE, FileInfo, StorageAdapter, StoreFile, remove_quietly
from storage_adapters.paths import temp_sibling

if TYPE_CHECKING:
    from storage_adapters.settings import StorageSettings

DEFAULT_ROOT = os.path.join(".swiftcloud", "store")


class LocalAdapter(StorageAdapter):
    """A store kept in a local (or already shared) directory."""

    backend: ClassVar[str] = "local"
    mode: ClassVar[str] = "shared"

    def __init__(self, root: str, name: str = "local", create: bool = True, secrets: tuple[str, ...] = ()) -> None:
        super().__init__(name, secrets)
        self.mount_path = os.path.abspath(root)
        self._create = create

    @classmethod
    def from_settings(cls, settings: StorageSettings) -> LocalAdapter:
        root = settings.option("path", os.environ.get("SWIFTCLOUD_STORE") or DEFAULT_ROOT)
        create = settings.option("create", True, bool)
        settings.reject_unknown()
        return cls(root, settings.name, create)

    def check(self) -> None:
        root = self.mount_path
        assert root is not None
        if self._create:
            try:
                os.makedirs(root, exist_ok=True)
            except OSError as error:
                raise StorageConfigError(f"{self.describe()}: cannot create the store directory {root}: {error.strerror}") from error
        if not os.path.isdir(root):
            raise StorageConfigError(f"{self.describe()}: the store directory {root} does not exist")
        if not os.access(root, os.R_OK | os.W_OK | os.X_OK):
            raise StorageConfigError(f"{self.describe()}: the store directory {root} is not readable and writable")

    # ----- primitives -----

    def _full(self, path: str) -> str:
        assert self.mount_path is not None
        return self.confined(os.path.join(self.mount_path, *path.split("/")), path) if path else self.mount_path

    def _info(self, path: str) -> FileInfo:
        try:
            status = os.stat(self._full(path))
        except (FileNotFoundError, NotADirectoryError) as error:
            raise FileNotFoundError(errno.ENOENT, f"no such file in {self.describe()}", path) from error
        if stat.S_ISDIR(status.st_mode):
            return FileInfo(path, DIRECTORY, 0)
        return FileInfo(path, FILE, status.st_size)

    def _ls(self, path: str) -> list[FileInfo]:
        entries = []
        with os.scandir(self._full(path)) as listing:
            for entry in listing:
                if is_store_temporary(entry.name):
                    continue
                child = f"{path}/{entry.name}" if path else entry.name
                try:
                    if entry.is_dir():
                        entries.append(FileInfo(child, DIRECTORY, 0))
                    else:
                        entries.append(FileInfo(child, FILE, entry.stat().st_size))
                except FileNotFoundError:
                    continue  # renamed or removed since the listing (a writer published it)
        return entries

    def _open(self, path: str, mode: str) -> StoreFile:
        if mode == "rb":
            return open(self._full(path), "rb")
        temporary = self._full(temp_sibling(path))
        return AtomicWriter(
            open(temporary, "wb"),
            commit=lambda: os.replace(temporary, self._full(path)),
            abort=lambda: remove_quietly(temporary),
        )

    def _download(self, path: str, sink: IO[bytes]) -> None:
        with open(self._full(path), "rb") as source:
            copy_contents(source, sink)

    def _put_file(self, local_path: str, path: str) -> None:
        temporary = self._full(temp_sibling(path))
        try:
            shutil.copyfile(local_path, temporary)
            os.replace(temporary, self._full(path))
        except BaseException:
            remove_quietly(temporary)
            raise

    def _rm(self, path: str) -> None:
        full = self._full(path)
        if os.path.isdir(full):
            os.rmdir(full)
        else:
            os.remove(full)

    def _mkdir(self, path: str) -> None:
        os.makedirs(self._full(path), exist_ok=True)

    def _rename(self, src: str, dst: str) -> None:
        os.replace(self._full(src), self._full(dst))
