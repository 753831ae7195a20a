"""Names only their writer uses: the temporaries a file is written under before it is renamed
onto its name.

Two kinds, one per floor that writes them:

- a store's own (`.NAME.swiftcloud-tmp-<hex>`, `storage_adapters.paths.temp_sibling`), which
  listings hide;
- an app output's, which the worker makes beside the output and renames onto it once the app
  has succeeded (`.NAME.<hex>.part`, or `.STEM.<hex>.part.EXT` for a program that picks its
  format by the name: `engine.task.atomic`), which listings show, so that a publisher finds
  what interrupted writers left.

Either name is random and private to its writer, so a mount may treat it as such
(`is_private`): its absence need not be asked of the store again, and its content may be
written in place rather than under a temporary of its own.
"""

from __future__ import annotations

import os
import posixpath
import re

STORE_MARKER = ".swiftcloud-tmp-"
PART_NAME = re.compile(r"\.(?P<head>.*)\.[0-9a-f]{12}\.part(?P<ext>\.[^.]*)?")


def part_name(name: str) -> str:
    """A fresh app-output temporary for the file `name`: `.NAME.<hex>.part`."""
    return f".{name}.{os.urandom(6).hex()}.part"


def part_name_keeping_extension(name: str) -> str:
    """A fresh app-output temporary for `name` that keeps its extension: `out.jpg` ->
    `.out.<hex>.part.jpg`."""
    stem, extension = posixpath.splitext(name)
    return f".{stem}.{os.urandom(6).hex()}.part{extension}"


def is_store_temporary(path: str) -> bool:
    """Is the last component of `path` a store's temporary?"""
    return STORE_MARKER in posixpath.basename(path)


def is_private(path: str) -> bool:
    """Is the last component of `path` a temporary of either kind, which only its writer uses?"""
    name = posixpath.basename(path)
    return STORE_MARKER in name or PART_NAME.fullmatch(name) is not None
