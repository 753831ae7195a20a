"""FUSE request handlers' error handling: OSErrors become the caller's errno, bugs become EIO."""

from __future__ import annotations

import errno
import functools
import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import pyfuse3

log = logging.getLogger("fuse")
Result = TypeVar("Result")


def translated(handler: Callable[..., Awaitable[Result]]) -> Callable[..., Awaitable[Result]]:
    """Turn an `OSError` into the FUSE error the kernel returns to the caller; log anything else
    as a bug and return EIO, so no exception ever stops the file system."""

    @functools.wraps(handler)
    async def wrapper(*args: Any) -> Result:
        try:
            return await handler(*args)
        except pyfuse3.FUSEError:
            raise
        except OSError as error:
            if error.errno in (errno.EBADF, errno.ESPIPE):  # our own descriptor went wrong: a bug
                log.exception("descriptor error in %s (please report)", handler.__name__)
            raise pyfuse3.FUSEError(error.errno or errno.EIO) from None
        except Exception:  # noqa: BLE001 - the file system must keep serving
            log.exception("internal error in %s", handler.__name__)
            raise pyfuse3.FUSEError(errno.EIO) from None

    return wrapper


def decode_name(name: bytes, missing: bool = False) -> str:
    """A directory entry name as text; names that are not UTF-8 cannot exist in the store."""
    try:
        return name.decode()
    except UnicodeDecodeError:
        raise pyfuse3.FUSEError(errno.ENOENT if missing else errno.EINVAL) from None
