"""The MosaStore FUSE file system (the SAI): POSIX calls turned into manager and benefactor requests.

Names, attributes and directories come from the manager. A file opened for
reading gets its chunk list in one `open` request and is then read from the
benefactors through the chunk cache. A file created (or opened for writing)
becomes a `PendingFile`, visible on this mount only (the `_overlay` maps its
name) until it is committed at close. Close-to-open consistency follows:
`open` always asks the manager for the current version, and the kernel page
cache is kept across opens only while the version is unchanged (content
under one version never changes). A directory's attributes are kept as long
as the kernel may keep them (`directories`), and a new file's inode number
comes from a block reserved ahead (`files.Context.new_inode`), so creating a
file asks the manager only for its name and, at close, to commit it. Open
files, publication at close and the discarding of a killed writer's file are
the shared FUSE front end's (`storage_adapters.fuse.frontend`); this module
supplies MosaStore's side.
"""

from __future__ import annotations

import errno
import stat
import time
from collections.abc import Hashable
from typing import Any

import trio

from storage_adapters.fuse import ops
from storage_adapters.fuse.callers import caller_node, thread_group
from storage_adapters.fuse.frontend import FrontEnd, Handle, local_copies_budget
from storage_adapters.fuse.handlers import decode_name, translated
from mosastore.client.cache import ChunkCache
from mosastore.client.common import entry
from mosastore.client.directories import DirectoryAttributes
from mosastore.client.files import ChunkReader, Context, PendingFile
from mosastore.client.link import ManagerLink
from mosastore.client.netem import LinkEmulator
from mosastore.client.plans import Plans
from mosastore.client.store import StoreClient
from mosastore.client.xattrs import XattrOperations
from mosastore.metadata import RENAME_EXCHANGE, RENAME_NOREPLACE


class MosaFS(XattrOperations, FrontEnd[PendingFile, ChunkReader]):
    """FUSE operations over one MosaStore namespace."""

    def __init__(self, client: StoreClient, manager: ManagerLink, node: str, spool_dir: str, chunk_size: int,
                 timeout: float = 1.0, cache_bytes: int = 256 * 1024 * 1024, readahead: int = 8,
                 links: LinkEmulator | None = None, only_client: bool = False) -> None:
        super().__init__(local_copies_budget(spool_dir))
        # The writeback cache gathers writes into large requests and keeps written pages, so
        # a file read right after it was written here comes from memory. But the kernel then
        # trusts its own idea of a file's size over the manager's: a file this host saw while
        # another host was writing it would keep its old size. Only the store's one client
        # may use it (`services start mosastore` on one machine).
        self.enable_writeback_cache = only_client
        self.client = client
        self._manager = manager
        self.node = node
        self.chunk_size = chunk_size
        self._spool_dir = spool_dir
        self._timeout = timeout
        self._cache_bytes = cache_bytes
        self._readahead = readahead
        self._links = links or LinkEmulator(0)
        self._versions: dict[int, int] = {}  # inode -> version the kernel may hold pages of
        self._directories = DirectoryAttributes(timeout)

    async def _start(self, nursery: trio.Nursery) -> None:
        cache = ChunkCache(self.client, self._cache_bytes, nursery, self._links)
        self.context = Context(self.client, self._manager, cache, Plans(self._timeout), nursery, self._links,
                               self._spool_dir, self._readahead)

    def _entry(self, attrs: dict[str, Any]) -> ops.EntryAttributes:
        # Names of files are never cached (see `entry`), so a file being written that is then
        # discarded is not found again. Its attributes may be: with the writeback cache the
        # kernel asks for them before every write whose attributes have expired, and it keeps
        # its own size of a file written here anyway.
        return entry(attrs, self._timeout, self.chunk_size)

    def _attrs_of(self, attrs: dict[str, Any]) -> dict[str, Any]:
        """Attributes as this mount sees them: a file being rewritten here shows its local state."""
        pending = self._pending.get(attrs["ino"])
        return pending.entry_attrs() if pending is not None else attrs

    # ----- names and attributes -----

    @translated
    async def lookup(self, parent_inode: int, name: bytes, ctx: ops.RequestContext) -> ops.EntryAttributes:
        text = decode_name(name, missing=True)
        ino = self._overlay.get((parent_inode, text))
        if ino is not None:
            return self._entry(self._pending[ino].entry_attrs())
        try:
            reply, _ = await self.context.call("lookup", parent=parent_inode, name=text)
        except OSError as error:
            if error.errno != errno.ENOENT:
                raise
            return self._absent(text, self._timeout)
        self._directories.put(reply["attrs"])
        return self._entry(self._attrs_of(reply["attrs"]))

    @translated
    async def getattr(self, inode: int, ctx: ops.RequestContext | None = None) -> ops.EntryAttributes:
        pending = self._pending.get(inode)
        if pending is not None:
            return self._entry(pending.entry_attrs())
        return self._entry(await self._published_attrs(inode))

    async def _published_attrs(self, inode: int) -> dict[str, Any]:
        attrs = self._directories.get(inode)
        if attrs is None:
            attrs = (await self.context.call("getattr", ino=inode))[0]["attrs"]
            self._directories.put(attrs)
        return attrs

    @translated
    async def setattr(self, inode: int, attr: ops.EntryAttributes, fields: ops.SetattrFields,
                      fh: int | None, ctx: ops.RequestContext) -> ops.EntryAttributes:
        changes: dict[str, int] = {}
        if fields.update_mode:
            changes["mode"] = attr.st_mode & 0o7777
        if fields.update_uid:
            changes["uid"] = attr.st_uid
        if fields.update_gid:
            changes["gid"] = attr.st_gid
        if fields.update_mtime:
            changes["mtime_ns"] = attr.st_mtime_ns
        pending = self._pending.get(inode)
        if fields.update_size:
            if pending is None:
                await self._truncate_published(inode, thread_group(ctx.pid), attr.st_size)
            else:
                pending.truncate(attr.st_size)
        if changes:
            if pending is not None:
                mode = changes.pop("mode", None)
                if mode is not None:
                    pending.attrs["mode"] = stat.S_IFMT(pending.attrs["mode"]) | mode
                pending.attrs.update(changes)
                pending.changed = True
            else:
                await self.context.call("setattr", ino=inode, **changes)
                self._directories.drop(inode)
        return await self.getattr(inode, ctx)

    @translated
    async def opendir(self, inode: int, ctx: ops.RequestContext) -> int:
        attrs = await self._published_attrs(inode)
        if not stat.S_ISDIR(attrs["mode"]):
            raise ops.FUSEError(errno.ENOTDIR)
        return inode

    @translated
    async def readdir(self, fh: int, start_id: int, token: ops.ReaddirToken) -> None:
        after = start_id
        while True:
            reply, _ = await self.context.call("readdir", ino=fh, after=after)
            entries = [(e["ino"], e["name"], self._attrs_of(e)) for e in reply["entries"]]
            complete = len(entries) < 1000
            limit = entries[-1][0] if entries and not complete else None
            # Files being written here, as they are now that the manager has answered: one
            # published meanwhile has left them (and may be in the answer already).
            listed = {ino for ino, _, _ in entries}
            entries += [(ino, name, self._pending[ino].entry_attrs())
                        for (parent, name), ino in self._overlay.items()
                        if parent == fh and ino not in listed and ino > after and (limit is None or ino <= limit)]
            for ino, name, attrs in sorted(entries, key=lambda item: item[0]):
                if not ops.readdir_reply(token, name.encode(), self._entry(attrs), ino):
                    return
            if complete:
                return
            after = limit  # type: ignore[assignment]

    @translated
    async def statfs(self, ctx: ops.RequestContext) -> ops.StatvfsData:
        reply, _ = await self.context.call("statfs")
        data = ops.StatvfsData()
        data.f_bsize = self.chunk_size
        data.f_frsize = 4096
        data.f_blocks = reply["capacity"] // 4096
        data.f_bfree = data.f_bavail = reply["free"] // 4096
        data.f_files = reply["files"] + 2**20
        data.f_ffree = data.f_favail = 2**20
        data.f_namemax = 255
        return data

    # ----- namespace changes -----

    @translated
    async def mkdir(self, parent_inode: int, name: bytes, mode: int,
                    ctx: ops.RequestContext) -> ops.EntryAttributes:
        reply, _ = await self.context.call("mkdir", parent=parent_inode, name=decode_name(name), mode=mode & 0o7777,
                                           uid=ctx.uid, gid=ctx.gid)
        self._directories.drop(parent_inode)
        return self._entry(reply["attrs"])

    @translated
    async def rmdir(self, parent_inode: int, name: bytes, ctx: ops.RequestContext) -> None:
        await self.context.call("rmdir", parent=parent_inode, name=decode_name(name, missing=True))
        self._directories.drop(parent_inode)

    @translated
    async def unlink(self, parent_inode: int, name: bytes, ctx: ops.RequestContext) -> None:
        text = decode_name(name, missing=True)
        ino = self._overlay.pop((parent_inode, text), None)
        if ino is None:
            ino = (await self.context.call("unlink", parent=parent_inode, name=text))[0]["ino"]
            self._directories.drop(parent_inode)
        self._forget_pending(ino)

    @translated
    async def rename(self, parent_inode_old: int, name_old: bytes, parent_inode_new: int, name_new: bytes,
                     flags: int, ctx: ops.RequestContext) -> None:
        if flags & RENAME_EXCHANGE:
            raise ops.FUSEError(errno.EINVAL)
        old, new = (parent_inode_old, decode_name(name_old, True)), (parent_inode_new, decode_name(name_new))
        replaced = self._overlay.get(new)
        if replaced is not None and flags & RENAME_NOREPLACE:
            raise ops.FUSEError(errno.EEXIST)
        moving = self._overlay.get(old)
        if moving is None:
            reply, _ = await self.context.call("rename", old_parent=old[0], old_name=old[1], new_parent=new[0],
                                               new_name=new[1], flags=flags)
            self._directories.drop(old[0], new[0])
            self._forget_pending(reply["replaced"])
        else:
            await self._check_rename_target(new, flags)
            del self._overlay[old]
            pending = self._pending[moving]
            pending.parent, pending.name = new
            self._overlay[new] = moving
        if replaced is not None and replaced != moving:
            self._forget_pending(replaced)

    async def _check_rename_target(self, target: tuple[int, str], flags: int) -> None:
        """A file not yet committed is renamed locally; the target must not be a directory."""
        try:
            reply, _ = await self.context.call("lookup", parent=target[0], name=target[1])
        except FileNotFoundError:
            return
        if flags & RENAME_NOREPLACE:
            raise ops.FUSEError(errno.EEXIST)
        if stat.S_ISDIR(reply["attrs"]["mode"]):
            raise ops.FUSEError(errno.EISDIR)

    # ----- files -----

    @translated
    async def create(self, parent_inode: int, name: bytes, mode: int, flags: int,
                     ctx: ops.RequestContext) -> tuple[ops.FileInfo, ops.EntryAttributes]:
        text = decode_name(name)
        tgid = thread_group(ctx.pid)
        writer = caller_node(tgid, self.node)
        ino = await self.context.new_inode()
        attrs = {"mode": stat.S_IFREG | (mode & 0o7777), "uid": ctx.uid, "gid": ctx.gid, "mtime_ns": time.time_ns()}
        pending = PendingFile(self.context, ino, parent_inode, text, attrs, writer, self.chunk_size, {},
                              committed=False)
        self._forget_pending(self._overlay.get((parent_inode, text)))
        self._pass_through(pending)
        self._pending[pending.ino] = pending
        self._overlay[(parent_inode, text)] = pending.ino
        return self._opened(Handle(pending, None, tgid, True, pending.ino)), self._entry(pending.entry_attrs())

    def _name_of(self, pending: PendingFile) -> tuple[int, str]:
        return pending.parent, pending.name

    async def _open_reader(self, inode: int, tgid: int) -> tuple[ChunkReader, ops.FileInfo]:
        opened = (await self.context.call("open", ino=inode))[0]["file"]
        keep = self._versions.get(inode) == opened["version"] and not self._links.enabled
        self._versions[inode] = opened["version"]
        reader = ChunkReader(self.context, opened, caller_node(tgid, self.node))
        return reader, ops.FileInfo(keep_cache=keep, direct_io=self._links.enabled)

    def _published_version(self, pending: PendingFile) -> Hashable | None:
        # A copy serves the node that wrote it only: emulated nodes may share this mount.
        return None if pending.version is None else (pending.version, pending.writer)

    def _reader_version(self, reader: ChunkReader) -> Hashable | None:
        return reader.version, reader.node

    async def _read(self, reader: ChunkReader, offset: int, size: int) -> bytes:
        return await reader.read(offset, size)

    async def _write(self, pending: PendingFile, offset: int, data: bytes) -> int:
        return await pending.write(offset, data)

    async def _new_version(self, inode: int, tgid: int, truncate: bool) -> PendingFile:
        node = caller_node(tgid, self.node)
        opened = (await self.context.call("open", ino=inode))[0]["file"]
        attrs = {key: opened[key] for key in ("mode", "uid", "gid", "mtime_ns")}
        pending = PendingFile(self.context, inode, opened["parent"], "", attrs, node,
                              opened["chunk_size"] or self.chunk_size, opened["xattrs"], committed=True)
        if truncate:
            pending.truncate(0)
            return pending
        try:
            reader = ChunkReader(self.context, opened, node)
            for offset in range(0, opened["size"], pending.chunk_size):
                await pending.write(offset, await reader.read(offset, pending.chunk_size))
        except BaseException:
            pending.close()
            raise
        pending.changed = False
        return pending

    async def _publish(self, pending: PendingFile) -> None:
        reply = await pending.commit()
        if reply is None:
            return
        attrs = reply["attrs"]
        if reply["parent"] is not None:
            self._directories.put(reply["parent"])
        pending.version = attrs["version"]
        self._unlist(pending)
        self._versions[pending.ino] = attrs["version"]

    async def _abandon(self, pending: PendingFile) -> None:
        await pending.discard()
