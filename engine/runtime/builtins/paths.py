"""Path pieces with Tcl's `file tail|dirname|rootname|extension` rules (Turbine's).

Unlike `os.path`, a trailing slash is ignored (`tail a/b/` is `b`), the
directory of a bare name is `.`, and the extension is everything from the
last dot after the last slash (`extension .bashrc` is `.bashrc`).
"""

from __future__ import annotations


def basename(path: str) -> str:
    """Last component: `a/b.txt` -> `b.txt`, `a/b/` -> `b`, `/` -> ``."""
    return path.rstrip("/").rpartition("/")[2]


def dirname(path: str) -> str:
    """All but the last component: `a` -> `.`, `/a` -> `/`, `a//b` -> `a`."""
    stripped = path.rstrip("/")
    if "/" not in stripped:
        return "/" if path.startswith("/") else "."
    return stripped.rpartition("/")[0].rstrip("/") or "/"


def extension(path: str) -> str:
    """From the last dot after the last slash: `x.txt` -> `.txt`, `a.b/c` -> ``, `a.b/` -> ``."""
    last = path[path.rfind("/") + 1 :]
    dot = last.rfind(".")
    return "" if dot < 0 else last[dot:]


def rootname(path: str) -> str:
    """The path without its extension: `a/b.c.d` -> `a/b.c`, `x` -> `x`."""
    return path[: len(path) - len(extension(path))]
