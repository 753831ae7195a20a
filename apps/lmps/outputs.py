"""Opening output files: apps must create the parent directories of the mapped paths they write."""

from __future__ import annotations

import os
from typing import IO


def open_output(path: str, newline: str | None = None) -> IO[str]:
    """Open `path` for writing text, creating its directory first."""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    return open(path, "w", encoding="utf-8", newline=newline)
