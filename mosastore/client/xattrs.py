"""Extended attributes of the FUSE client: placement hints in, locations out.

Only the `user.` namespace is stored. `user.mosastore.placement` is checked
when set and, on a file being written, re-plans where its chunks go (set or
removed anywhere else, it drops the plans this client keeps: `plans`);
`user.mosastore.writer` names the writer's node explicitly (for writers that
cannot export `SWIFTCLOUD_NODE`, such as a forked worker process);
`user.mosastore.location` is computed: the nodes holding the file's chunks;
`user.swiftcloud.failures` is the client's recent failures (`hostkit.mount_report`).
Files being written answer from their local state, the others from the
manager.
"""

from __future__ import annotations

import errno
from typing import TYPE_CHECKING

from hostkit.mount_report import FAILURES_XATTR
from storage_adapters.fuse import ops
from storage_adapters.fuse.handlers import translated
from mosastore.placement import LOCATION_XATTR, PLACEMENT_XATTR, WRITER_XATTR, parse_hint

if TYPE_CHECKING:
    from mosastore.client.files import Context, PendingFile

USER_NAMESPACE = "user."


def _name(raw: bytes) -> str:
    name = raw.decode(errors="replace")
    if not name.startswith(USER_NAMESPACE):
        raise ops.FUSEError(errno.ENODATA)
    return name


class XattrOperations:
    """The xattr handlers, mixed into the file system class."""

    _pending: dict[int, PendingFile]
    context: Context

    @translated
    async def getxattr(self, inode: int, name: bytes, ctx: ops.RequestContext) -> bytes:
        key = _name(name)
        if key == FAILURES_XATTR:  # the front end's own (`FrontEnd.getxattr`), not the store's
            return await super().getxattr(inode, name, ctx)  # type: ignore[misc]
        pending = self._pending.get(inode)
        if pending is None:
            return bytes((await self.context.call("getxattr", ino=inode, name=key))[1])
        if key == LOCATION_XATTR:
            return ",".join(await pending.planned_nodes()).encode()
        value = pending.xattrs.get(key)
        if value is None:
            raise ops.FUSEError(errno.ENODATA)
        return bytes.fromhex(value)

    @translated
    async def setxattr(self, inode: int, name: bytes, value: bytes, ctx: ops.RequestContext) -> None:
        key = name.decode(errors="replace")
        if not key.startswith(USER_NAMESPACE):
            raise ops.FUSEError(errno.ENOTSUP)
        if key == LOCATION_XATTR:
            raise ops.FUSEError(errno.EPERM)
        if key == PLACEMENT_XATTR:
            try:
                parse_hint(value.decode())
            except (UnicodeDecodeError, ValueError):
                raise ops.FUSEError(errno.EINVAL) from None
        pending = self._pending.get(inode)
        if pending is None:
            await self.context.call("setxattr", value, ino=inode, name=key)
            if key == PLACEMENT_XATTR:
                self.context.plans.clear()
            return
        pending.xattrs[key] = value.hex()
        pending.changed = True
        if key == WRITER_XATTR:
            pending.writer = value.decode(errors="replace").strip() or pending.writer
        if key in (PLACEMENT_XATTR, WRITER_XATTR):
            pending.replan()

    @translated
    async def listxattr(self, inode: int, ctx: ops.RequestContext) -> list[bytes]:
        pending = self._pending.get(inode)
        if pending is not None:
            names = sorted(pending.xattrs)
        else:
            names = (await self.context.call("listxattr", ino=inode))[0]["names"]
        return [name.encode() for name in names]

    @translated
    async def removexattr(self, inode: int, name: bytes, ctx: ops.RequestContext) -> None:
        key = _name(name)
        pending = self._pending.get(inode)
        if pending is None:
            await self.context.call("removexattr", ino=inode, name=key)
            if key == PLACEMENT_XATTR:
                self.context.plans.clear()
            return
        if pending.xattrs.pop(key, None) is None:
            raise ops.FUSEError(errno.ENODATA)
        pending.changed = True
        if key in (PLACEMENT_XATTR, WRITER_XATTR):
            pending.replan()
