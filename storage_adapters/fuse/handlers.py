"""FUSE request handlers' error handling: OSErrors become the caller's errno, bugs become EIO,
and a failure of the store (not an answer such as a missing name) is logged and kept in the
file system's `FailureLog`, which the mount answers as an attribute (`hostkit.mount_report`)."""

from __future__ import annotations

import errno
import functools
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Protocol, TypeVar

from hostkit.mount_report import FailureLog
from storage_adapters.fuse import ops

log = logging.getLogger("fuse")
Result = TypeVar("Result")
# What a file system answers in its normal course (a missing name, a name taken, ...), as
# opposed to a failure of the store behind it, which the client's log records.
ANSWERS = frozenset({errno.ENOENT, errno.EEXIST, errno.ENOTEMPTY, errno.EACCES, errno.EPERM, errno.ENOTDIR,
                     errno.EISDIR, errno.EINVAL, errno.ENODATA, errno.ERANGE, errno.ENOTSUP, errno.EXDEV,
                     errno.ENAMETOOLONG, errno.EROFS, errno.ENOSYS})


class NotesFailures(Protocol):
    """A file system that keeps its failures (`hostkit.mount_report.FailureLog`)."""

    failures: FailureLog


def translated(handler: Callable[..., Awaitable[Result]]) -> Callable[..., Awaitable[Result]]:
    """Turn an `OSError` into the FUSE error the kernel returns to the caller; log anything else
    as a bug and return EIO, so no exception ever stops the file system."""

    @functools.wraps(handler)
    async def wrapper(*args: Any) -> Result:
        try:
            return await handler(*args)
        except ops.FUSEError:
            raise
        except OSError as error:
            if error.errno in (errno.EBADF, errno.ESPIPE):  # our own descriptor went wrong: a bug
                log.exception("descriptor error in %s (please report)", handler.__name__)
            elif error.errno not in ANSWERS:  # the store failed: say why, here and to the app's worker
                log.error("%s failed: %s", handler.__name__, error)
                _noted(args[0], handler.__name__, error)
            raise ops.FUSEError(error.errno or errno.EIO) from None
        except Exception as error:  # noqa: BLE001 - the file system must keep serving
            log.exception("internal error in %s", handler.__name__)
            _noted(args[0], f"{handler.__name__} (internal error, please report)", error)
            raise ops.FUSEError(errno.EIO) from None

    return wrapper


def _noted(file_system: NotesFailures, operation: str, error: BaseException) -> None:
    file_system.failures.note(operation, error)


def decode_name(name: bytes, missing: bool = False) -> str:
    """A directory entry name as text; names that are not UTF-8 cannot exist in the store."""
    try:
        return name.decode()
    except UnicodeDecodeError:
        raise ops.FUSEError(errno.ENOENT if missing else errno.EINVAL) from None
