"""The script files one compilation looked at: every file the compiler looks for
(`is_file`) or reads (`read_bytes`) goes through a `SourceFiles`, which keeps the digest of
each file it read or found (`hostkit.digests`, as the run log's) and None for each path
where it found none. A compiled program carries that list (`Program.sources`): it is what
lets the program be reused while those files are unchanged (`engine.script_cache`).
"""

from __future__ import annotations

import os

from hostkit.digests import bytes_digest, file_digest

Digests = dict[str, "str | None"]  # absolute path -> digest of its content, None where no file was


def digest_if_file(path: str) -> str | None:
    """The digest of the file at `path`, None if there is no (readable) file there."""
    if not os.path.isfile(path):
        return None
    try:
        return file_digest(path)
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
            self.digests[key] = digest_if_file(path) if found else None
        return found

    def read_bytes(self, path: str) -> bytes:
        """The content of the file at `path`, recorded (OSError as `open` raises it)."""
        with open(path, "rb") as handle:
            data = handle.read()
        self.digests[os.path.abspath(path)] = bytes_digest(data)  # what was compiled, whatever was found before
        return data
