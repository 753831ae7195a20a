"""The script files one compilation looked at: every file the compiler looks for
(`is_file`) or reads (`read_bytes`) goes through a `SourceFiles`, which keeps the digest of
each file it read or found and None for each path where it found none. A compiled program
carries that list (`Program.sources`): it is what lets the program be reused while those
files are unchanged (`engine.script_cache`).
"""

from __future__ import annotations

import hashlib
import os

Digests = dict[str, "str | None"]  # absolute path -> digest of its content, None where no file was


def digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def file_digest(path: str) -> str | None:
    """The digest of the file at `path`, None if there is no (readable) file there."""
    if not os.path.isfile(path):
        return None
    try:
        with open(path, "rb") as handle:
            return digest(handle.read())
    except OSError:
        return None


class SourceFiles:
    """The files one compilation looked for and read."""

    def __init__(self) -> None:
        self.digests: Digests = {}

    def is_file(self, path: str) -> bool:
        """`os.path.isfile`, recorded."""
        found = os.path.isfile(path)
        key = os.path.abspath(path)
        if key not in self.digests:  # a file looked for again (an import in two modules) is read once
            self.digests[key] = file_digest(path) if found else None
        return found

    def read_bytes(self, path: str) -> bytes:
        """The content of the file at `path`, recorded (OSError as `open` raises it)."""
        with open(path, "rb") as handle:
            data = handle.read()
        self.digests[os.path.abspath(path)] = digest(data)  # what was compiled, whatever was found before
        return data
