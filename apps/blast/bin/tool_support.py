"""What the BLAST leaf programs share: private scratch directories, zip archives
written atomically, and running a BLAST+ tool with a one-line error when it fails.

The leaf programs import this module from their own directory (a script's
directory is first on `sys.path`), so it needs only the standard library.
Archives are ZIP_STORED with a fixed timestamp: the same member bytes give the
same archive bytes, and BLAST databases hardly compress anyway.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Sequence

FIXED_TIMESTAMP = (1980, 1, 1, 0, 0, 0)  # the earliest a zip entry can record


class ToolError(Exception):
    """A failure the leaf program reports as one line on stderr, with this exit status."""

    def __init__(self, message: str, status: int = 1) -> None:
        super().__init__(message)
        self.status = status


@contextmanager
def private_directory(prefix: str) -> Iterator[str]:
    """A fresh scratch directory under $TMPDIR, removed afterwards whatever happens."""
    path = tempfile.mkdtemp(prefix=prefix)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def replace_atomically(path: str, write: Callable[[str], None]) -> None:
    """Call `write(temp)` for a temporary name beside `path`, then rename it to `path`,
    so readers see the whole file or none; the temporary is removed on failure."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    temp = f"{path}.part"
    try:
        write(temp)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        raise


def write_zip(path: str, members: Sequence[tuple[str, bytes | str]]) -> None:
    """Write an archive of (member name, bytes or local file to copy) atomically.
    A `str` is a file path; its contents are streamed, not loaded whole."""
    def write(temp: str) -> None:
        with zipfile.ZipFile(temp, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as archive:
            for name, data in members:
                info = zipfile.ZipInfo(name, date_time=FIXED_TIMESTAMP)
                info.external_attr = 0o644 << 16  # a regular file, rw-r--r--
                if isinstance(data, bytes):
                    archive.writestr(info, data)
                else:
                    with open(data, "rb") as source, archive.open(info, "w") as target:
                        shutil.copyfileobj(source, target, 1 << 20)
    replace_atomically(path, write)


def open_archive(path: str) -> zipfile.ZipFile:
    """The archive at `path`, checked to hold only plain member names (no directories),
    so extracting a member can never write outside the directory it goes to."""
    try:
        archive = zipfile.ZipFile(path)
    except (OSError, zipfile.BadZipFile) as e:
        raise ToolError(f"{path}: not a readable zip archive ({e})") from None
    for name in archive.namelist():
        if not name or name != os.path.basename(name) or name in (".", ".."):
            archive.close()
            raise ToolError(f"{path}: unexpected member '{name}' (only plain file names belong here)")
    return archive


def extract_member(archive: zipfile.ZipFile, member: str, directory: str) -> str:
    """Copy one member into `directory`; return its path there."""
    try:
        info = archive.getinfo(member)
    except KeyError:
        raise ToolError(f"{archive.filename}: no member '{member}'") from None
    target = os.path.join(directory, info.filename)
    with archive.open(info) as source, open(target, "wb") as out:
        shutil.copyfileobj(source, out, 1 << 20)
    return target


def run_tool(command: Sequence[str], cwd: str) -> None:
    """Run a BLAST+ program (argv list, no shell) in `cwd`; its chatter is shown
    only when it fails, condensed to one line."""
    try:
        result = subprocess.run(list(command), cwd=cwd, capture_output=True, text=True)
    except OSError as e:
        raise ToolError(f"cannot run {command[0]} ({e.strerror}); install NCBI BLAST+"
                        " (Debian package ncbi-blast+, see setup.d/50-blast.sh)", 127) from None
    if result.returncode != 0:
        said = [line.strip() for line in (result.stderr or result.stdout).splitlines() if line.strip()]
        # BLAST+ prefixes its diagnoses with "Error:" or "BLAST ... error:", after a usage dump.
        errors = [line for line in said if "error" in line.lower()]
        detail = "; ".join(dict.fromkeys(errors or said)) or "no message"
        raise ToolError(f"{command[0]} failed with exit status {result.returncode}: {detail}",
                        result.returncode if result.returncode > 0 else 1)


def run_main(argv: Sequence[str], usage: str, action: Callable[..., None]) -> int:
    """A leaf program's `main`: check the argument count against `usage`
    ("prog.py ARG ..."), run `action(*argv)`, and turn failures into one line on
    stderr and an exit status."""
    program, *names = usage.split()
    if len(argv) != len(names):
        print(f"usage: {usage}", file=sys.stderr)
        return 2
    try:
        action(*argv)
    except ToolError as e:
        print(f"{program}: {e}", file=sys.stderr)
        return e.status
    except OSError as e:
        print(f"{program}: {e}", file=sys.stderr)
        return 1
    return 0
