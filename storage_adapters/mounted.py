"""Stores used through a FUSE mount of ours (Chirp, HDFS): reuse the mount, or make it and undo it.

`MountedStore` is the `local` backend on the mount point, plus its lifetime:
`check()` reuses a mount of the store's file system type that is already at
the mount point (a service or an earlier worker made it), refuses another
file system there, and otherwise, when `auto_mount` is on, checks the server
and mounts it; `close()` unmounts only what this adapter mounted.
"""

from __future__ import annotations

import os
from typing import ClassVar

from hostkit.errors import ServiceError, StorageConfigError
from hostkit.mounts import mounted_fstype, unmount
from hostkit.processes import Process
from storage_adapters.local import LocalAdapter


class MountedStore(LocalAdapter):
    """A store mounted at the same path on every node; subclasses say how to check and mount it."""

    fstype: ClassVar[str]

    def __init__(self, mount_point: str, name: str, subdir: str, auto_mount: bool, work_dir: str) -> None:
        self.mount_point = os.path.realpath(mount_point)
        super().__init__(os.path.join(self.mount_point, subdir), name, create=True)
        self._auto_mount = auto_mount
        self._work_dir = os.path.abspath(work_dir)
        self._client: Process | None = None

    def _check_server(self) -> None:
        """Raise StorageConfigError unless the server can be mounted."""
        raise NotImplementedError

    def _start_client(self, spool_dir: str, log: str) -> Process:
        """Mount the store at `mount_point` and return its client process."""
        raise NotImplementedError

    def check(self) -> None:
        fstype = mounted_fstype(self.mount_point)
        if fstype is None:
            self._mount()
        elif fstype != self.fstype:
            raise StorageConfigError(f"{self.describe()}: {self.mount_point} is already a {fstype} mount, "
                                     f"not {self.fstype}")
        super().check()

    def _mount(self) -> None:
        label = self.describe()
        if not self._auto_mount:
            raise StorageConfigError(f"{label}: the store is not mounted and auto_mount is false")
        self._check_server()
        try:
            self._client = self._start_client(os.path.join(self._work_dir, "spool"),
                                              os.path.join(self._work_dir, "client.log"))
        except ServiceError as error:
            raise StorageConfigError(f"{label}: mounting failed: {error}") from error

    def close(self) -> None:
        """Unmount the store if this adapter mounted it."""
        if self._client is not None:
            client, self._client = self._client, None
            unmount(self.mount_point, self.fstype, client)
