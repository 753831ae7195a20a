"""HDFS through `hdfs-native` (a native client: no JVM, no libhdfs): errors as the errno a
caller expects, whole-file transfers, and atomic publication.

hdfs-native reports failures as `FileNotFoundError`, `FileExistsError`,
`PermissionError`, or as a `RuntimeError` (or `OSError`) whose text names the
Java exception; `translated` turns those into OSErrors with the errno a
POSIX caller expects, and an unreachable NameNode into ConnectionError.
A file is written once, under a hidden temporary name, and renamed over its
final name with `overwrite`, so readers see the old file or the whole new one.
A mount's client (`patient`) waits for a NameNode that restarts or is in safe
mode, and writes again a file whose write pipeline lost a DataNode.
"""

from __future__ import annotations

import contextlib
import errno
import io
import logging
import posixpath
import re
import stat
from collections.abc import Callable, Iterator
from typing import BinaryIO, TypeVar

from hdfs_native import Client, ContentSummary, FileReader, FileStatus, WriteOptions

from storage_adapters.paths import written_as
from storage_adapters.retries import Patience

log = logging.getLogger("hdfs.client")
Result = TypeVar("Result")
COPY_BLOCK = 4 * 1024 * 1024
# hdfs-native raises these without an errno.
ERRNO_OF_CLASS: tuple[tuple[type[OSError], int], ...] = (
    (FileNotFoundError, errno.ENOENT), (FileExistsError, errno.EEXIST), (PermissionError, errno.EACCES),
    (IsADirectoryError, errno.EISDIR), (NotADirectoryError, errno.ENOTDIR),
)
# Text of the Java exceptions hdfs-native passes on, and the errno each stands for.
ERRNO_OF_EXCEPTION = (
    ("FileNotFoundException", errno.ENOENT),
    ("FileAlreadyExistsException", errno.EEXIST),
    ("AccessControlException", errno.EACCES),
    ("ParentNotDirectoryException", errno.ENOTDIR),
    ("PathIsNotEmptyDirectoryException", errno.ENOTEMPTY),
    ("is non empty", errno.ENOTEMPTY),
    ("SafeModeException", errno.EAGAIN),
    ("Connection refused", errno.ECONNREFUSED),
    # A write whose pipeline lost a DataNode (hdfs-native 0.14's words for it): written again,
    # it goes to DataNodes the NameNode knows to be alive (see `Hdfs.upload`). A read that no
    # DataNode could serve ("All DataNodes failed") is not among them: it is also what a block
    # failing its checksums gives.
    ("Failed to complete file in time", errno.ECONNRESET),
    ("No new datanode found", errno.ECONNRESET),
    ("Datanode connection closed", errno.ECONNRESET),
    ("Failed to add a datanode", errno.ECONNRESET),
    ("All nodes failed for write", errno.ECONNRESET),
    ("Block writer", errno.ECONNRESET),  # "... is closed", "... closed prematurely"
    ("Failed to replay packets", errno.ECONNRESET),
    ("Failed to send all packets", errno.ECONNRESET),
    ("Insufficient blocks succeeded", errno.ECONNRESET),
    ("acknowledgement does not match", errno.ECONNRESET),
    ("unknown seqno", errno.ECONNRESET),
    # The socket to a DataNode killed mid-packet (Rust's words for the OS error).
    ("Connection reset by peer", errno.ECONNRESET),
    ("Broken pipe", errno.ECONNRESET),
    ("RPC listener disconnected", errno.ECONNRESET),  # the NameNode went away mid-request
    ("DSQuotaExceededException", errno.ENOSPC),
)


def translated(operation: Callable[[], Result], path: str) -> Result:
    """Run `operation`, turning hdfs-native's errors into OSErrors with a fitting errno."""
    try:
        return operation()
    except OSError as error:
        if error.errno is not None:
            raise
        for kind, number in ERRNO_OF_CLASS:
            if isinstance(error, kind):
                raise OSError(number, str(error) or kind.__name__, path) from error
        raise _os_error(str(error), path) from error
    except RuntimeError as error:
        raise _os_error(str(error), path) from error


# hdfs-native names the replicas of a block no DataNode served by their protobuf dump.
REPLICA = re.compile(r'ip_addr: \\?"([^"\\]+)\\?", host_name: \\?"([^"\\]+)\\?".*?xfer_port: (\d+)')


def _os_error(text: str, path: str) -> OSError:
    message = _readable(text)
    for marker, number in ERRNO_OF_EXCEPTION:
        if marker in text:
            if number == errno.ECONNREFUSED:
                return ConnectionRefusedError(number, f"HDFS NameNode unreachable: {message}")
            if number == errno.ECONNRESET:
                return ConnectionResetError(number, f"HDFS connection lost: {message}", path)
            return OSError(number, message, path)
    return OSError(errno.EIO, message, path)


def _readable(text: str) -> str:
    """The first line of hdfs-native's message; for a block no DataNode served, in words."""
    if "All DataNodes failed" in text:
        tried = ", ".join(dict.fromkeys(f"{host} at {address}:{port}" for address, host, port in REPLICA.findall(text)))
        # The read gives up on a DataNode that refused it, and on one whose data failed its checksums.
        return ("no DataNode holding the block sent it whole (unreachable, or its data failed its checksums)" +
                (f"; tried {tried}" if tried else ""))
    return text.splitlines()[0][:300] if text else "HDFS request failed"


class Hdfs:
    """One HDFS namespace (thread-safe: hdfs-native clients may be shared)."""

    def __init__(self, namenode: str, replication: int | None = None, block_size: int | None = None,
                 patient: bool = False) -> None:
        self.namenode = namenode
        self.url = f"hdfs://{namenode}"
        self.client = Client(self.url, config={"dfs.client.use.datanode.hostname": "false"})
        self._replication = replication
        self._block_size = block_size
        self._patience = Patience(f"HDFS at {namenode}", patient)

    def _patient(self, operation: Callable[[], Result], path: str) -> Result:
        """`translated(operation)`; for a patient client (a mount's), tried again while the
        NameNode or a DataNode cannot be reached (`retries.Patience`, 30 s)."""
        return self._patience(lambda: translated(operation, path))

    def info(self, path: str) -> FileStatus:
        return self._patient(lambda: self.client.get_file_info(path), path)

    def listdir(self, path: str) -> list[FileStatus]:
        return self._patient(lambda: list(self.client.list_status(path)), path)

    def mkdirs(self, path: str, mode: int = 0o700) -> None:
        self._patient(lambda: self.client.mkdirs(path, mode, create_parent=True), path)

    def mkdir(self, path: str, mode: int = 0o700) -> None:
        """Create one directory; its parent must exist, and the name must be free."""
        with contextlib.suppress(FileNotFoundError):
            self.info(path)
            raise FileExistsError(errno.EEXIST, "already exists", path)
        if not stat_is_dir(self.info(posixpath.dirname(path) or "/")):
            raise NotADirectoryError(errno.ENOTDIR, "parent is not a directory", path)
        self._patient(lambda: self.client.mkdirs(path, mode, create_parent=False), path)

    def delete(self, path: str, directory: bool) -> None:
        if directory and self.listdir(path):
            raise OSError(errno.ENOTEMPTY, "directory not empty", path)
        if not self._patient(lambda: self.client.delete(path, recursive=False), path):
            raise FileNotFoundError(errno.ENOENT, "no such file", path)

    def rename(self, source: str, target: str) -> None:
        """Move `source` to `target`, replacing a file (not a directory) there."""
        with contextlib.suppress(FileNotFoundError):
            if self.info(target).isdir:
                raise IsADirectoryError(errno.EISDIR, "target is a directory", target)
        try:
            self._patient(lambda: self.client.rename(source, target, overwrite=True), source)
        except FileNotFoundError:
            # A rename that the client retried after its first attempt went through (the answer
            # was lost) finds no source: that is success, not an error.
            if self._exists(source) or not self._exists(target):
                raise
            log.warning("rename %s -> %s had already happened", source, target)

    def _exists(self, path: str) -> bool:
        try:
            self.info(path)
        except FileNotFoundError:
            return False
        return True

    def chmod(self, path: str, mode: int) -> None:
        self._patient(lambda: self.client.set_permission(path, mode), path)

    def open_reader(self, path: str) -> FileReader:
        """hdfs-native's reader of `path` (close it)."""
        return self._patient(lambda: self.client.read(path), path)

    def content_summary(self, path: str) -> ContentSummary:
        return self._patient(lambda: self.client.get_content_summary(path), path)

    @contextlib.contextmanager
    def reader(self, path: str) -> Iterator[BinaryIO]:
        handle = self.open_reader(path)
        try:
            yield handle
        finally:
            handle.close()

    def download(self, path: str, sink: BinaryIO) -> int:
        """Copy file `path` into `sink`; returns its size."""
        total = 0
        with self.reader(path) as source:
            while block := translated(lambda: source.read(COPY_BLOCK), path):
                sink.write(block)
                total += len(block)
        return total

    def upload(self, source: BinaryIO, path: str, mode: int = 0o600) -> None:
        """Write `source` (to its end) as the whole new content of `path`, atomically. A write
        whose pipeline lost a DataNode, or that met the NameNode restarting, is written again
        from the start when `source` can seek (`_patient`). A path that is itself a
        temporary, a store's or an app output's (only its writer uses it, and renames it once
        written), is written in place (`paths.written_as`)."""
        temporary = written_as(path)
        if not source.seekable():
            self._upload_once(source, path, mode, temporary)
            return
        start = source.tell()
        tries = 0

        def attempt() -> None:
            nonlocal tries
            if tries:  # what a failed try left, if its cleanup could not reach the NameNode
                translated(lambda: self.client.delete(temporary, recursive=False), temporary)
            tries += 1
            source.seek(start)
            self._upload_once(source, path, mode, temporary)

        self._patient(attempt, path)

    def _upload_once(self, source: BinaryIO, path: str, mode: int, temporary: str) -> None:
        options = WriteOptions()
        options.overwrite, options.create_parent, options.permission = True, False, mode
        if self._replication:
            options.replication = self._replication
        if self._block_size:
            options.block_size = self._block_size
        try:
            writer = translated(lambda: self.client.create(temporary, options), temporary)
            try:
                while block := source.read(COPY_BLOCK):
                    translated(lambda: writer.write(block), path)
            except BaseException:
                # Not closed: hdfs-native's close would ask the NameNode to complete a file whose
                # block no DataNode took (its first one refused the pipeline), for 15.5 s. The
                # temporary is deleted below, which ends its lease.
                io.RawIOBase.close(writer)
                raise
            try:
                translated(writer.close, path)
            finally:
                # hdfs-native's close does not mark the stream closed, so garbage collection
                # would close it again, later, in whatever thread it runs: a second close waits
                # for the NameNode, forever once it is gone (seen: a test suite hung).
                io.RawIOBase.close(writer)
            if temporary != path:
                self.rename(temporary, path)
        except BaseException:
            with contextlib.suppress(OSError, RuntimeError):
                self.client.delete(temporary, recursive=False)
            raise


def stat_is_dir(status: FileStatus) -> bool:
    return bool(status.isdir)


def mode_of(status: FileStatus) -> int:
    return (stat.S_IFDIR if status.isdir else stat.S_IFREG) | (status.permission & 0o7777)
