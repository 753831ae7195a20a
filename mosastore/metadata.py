"""The manager's durable state in SQLite: namespace, chunk lists, groups, benefactors, garbage.

Inodes are rows keyed by number with a unique (parent, name); a file row
holds its size and chunk list (`[[key, [node, ...], length], ...]`). Every
operation is one SQLite transaction, so a rename (even of a whole directory)
is atomic, and a committed file survives a manager restart (WAL journal;
`durable=True` also fsyncs each transaction against power loss). Chunks that
a delete, a replace or an abandoned write leaves behind go to the `garbage`
table, from which the manager's collector asks benefactors to remove them.
Names are checked here, so no path can name anything outside the tree.
All methods raise `OSError` with a POSIX errno for the FUSE client to return.
"""

from __future__ import annotations

import errno
import json
import sqlite3
import stat
import threading
import time
from typing import Any

ROOT = 1
RENAME_NOREPLACE = 1
RENAME_EXCHANGE = 2
MAX_NAME = 255

SCHEMA = """
CREATE TABLE IF NOT EXISTS inodes (
    ino INTEGER PRIMARY KEY, parent INTEGER NOT NULL, name TEXT NOT NULL, mode INTEGER NOT NULL,
    uid INTEGER NOT NULL, gid INTEGER NOT NULL, size INTEGER NOT NULL DEFAULT 0,
    mtime_ns INTEGER NOT NULL, ctime_ns INTEGER NOT NULL, version INTEGER NOT NULL DEFAULT 1,
    chunk_size INTEGER NOT NULL DEFAULT 0, chunks TEXT NOT NULL DEFAULT '[]', xattrs TEXT NOT NULL DEFAULT '{}');
CREATE UNIQUE INDEX IF NOT EXISTS inode_names ON inodes(parent, name) WHERE ino != 1;
CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS groups (name TEXT PRIMARY KEY, node TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS benefactors (node TEXT PRIMARY KEY, address TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS garbage (key TEXT NOT NULL, node TEXT NOT NULL, PRIMARY KEY (key, node));
"""

def fail(code: int, message: str) -> OSError:
    return OSError(code, message)


def check_name(name: str) -> str:
    """A single path component: not empty, not `.`/`..`, no `/` or NUL, at most 255 bytes."""
    if not isinstance(name, str) or name in ("", ".", "..") or "/" in name or "\x00" in name:
        raise fail(errno.EINVAL, f"invalid file name {name!r}")
    if len(name.encode()) > MAX_NAME:
        raise fail(errno.ENAMETOOLONG, "file name too long")
    return name


def _attrs(row: sqlite3.Row) -> dict[str, Any]:
    attrs = {key: row[key] for key in ("ino", "mode", "uid", "gid", "size", "mtime_ns", "ctime_ns", "version")}
    attrs["nlink"] = 2 if stat.S_ISDIR(row["mode"]) else 1
    return attrs


class Metadata:
    """The namespace and bookkeeping of one store; thread-safe (one lock, short transactions)."""

    def __init__(self, path: str, durable: bool = False) -> None:
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.row_factory = sqlite3.Row
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(f"PRAGMA synchronous={'FULL' if durable else 'NORMAL'}")
        self._db.executescript(SCHEMA)
        self._lock = threading.Lock()
        now = time.time_ns()
        with self._tx():
            self._db.execute(
                "INSERT OR IGNORE INTO inodes (ino, parent, name, mode, uid, gid, mtime_ns, ctime_ns) "
                "VALUES (?, ?, '', ?, 0, 0, ?, ?)", (ROOT, ROOT, stat.S_IFDIR | 0o755, now, now))
            self._db.execute("INSERT OR IGNORE INTO counters VALUES ('next_ino', 2)")

    def close(self) -> None:
        with self._lock:
            self._db.close()

    class _Transaction:
        def __init__(self, metadata: Metadata) -> None:
            self._metadata = metadata

        def __enter__(self) -> sqlite3.Connection:
            self._metadata._lock.acquire()
            self._metadata._db.execute("BEGIN IMMEDIATE")
            return self._metadata._db

        def __exit__(self, kind: type[BaseException] | None, *rest: object) -> None:
            try:
                self._metadata._db.execute("COMMIT" if kind is None else "ROLLBACK")
            finally:
                self._metadata._lock.release()

    def _tx(self) -> Metadata._Transaction:
        return Metadata._Transaction(self)

    # ----- reading -----

    def _row(self, db: sqlite3.Connection, ino: int) -> sqlite3.Row:
        row = db.execute("SELECT * FROM inodes WHERE ino = ?", (ino,)).fetchone()
        if row is None:
            raise fail(errno.ENOENT, f"no inode {ino}")
        return row

    def _child(self, db: sqlite3.Connection, parent: int, name: str) -> sqlite3.Row | None:
        return db.execute("SELECT * FROM inodes WHERE parent = ? AND name = ? AND ino != ?",
                          (parent, check_name(name), ROOT)).fetchone()

    def _directory(self, db: sqlite3.Connection, ino: int) -> sqlite3.Row:
        row = self._row(db, ino)
        if not stat.S_ISDIR(row["mode"]):
            raise fail(errno.ENOTDIR, "not a directory")
        return row

    def getattr(self, ino: int) -> dict[str, Any]:
        with self._tx() as db:
            return _attrs(self._row(db, ino))

    def lookup(self, parent: int, name: str) -> dict[str, Any]:
        with self._tx() as db:
            self._directory(db, parent)
            row = self._child(db, parent, name)
            if row is None:
                raise fail(errno.ENOENT, "no such file or directory")
            return _attrs(row)

    def readdir(self, ino: int, after: int, limit: int) -> list[dict[str, Any]]:
        """Entries of directory `ino` with inode numbers above `after`, in inode order."""
        with self._tx() as db:
            self._directory(db, ino)
            rows = db.execute("SELECT * FROM inodes WHERE parent = ? AND ino > ? AND ino != ? ORDER BY ino LIMIT ?",
                              (ino, after, ROOT, limit)).fetchall()
            return [{**_attrs(row), "name": row["name"]} for row in rows]

    def open(self, ino: int) -> dict[str, Any]:
        """Attributes plus the chunk list of a file."""
        with self._tx() as db:
            row = self._row(db, ino)
            if stat.S_ISDIR(row["mode"]):
                raise fail(errno.EISDIR, "is a directory")
            return {**_attrs(row), "parent": row["parent"], "chunk_size": row["chunk_size"],
                    "chunks": json.loads(row["chunks"]), "xattrs": json.loads(row["xattrs"])}

    def parent_chain(self, ino: int) -> list[tuple[int, dict[str, str]]]:
        """(inode, xattrs) from `ino` up to the root, for inherited placement hints."""
        chain = []
        with self._tx() as db:
            while True:
                row = self._row(db, ino)
                chain.append((ino, json.loads(row["xattrs"])))
                if ino == ROOT:
                    return chain
                ino = row["parent"]

    def statfs(self) -> dict[str, int]:
        with self._tx() as db:
            files = db.execute("SELECT COUNT(*) FROM inodes").fetchone()[0]
            used = db.execute("SELECT COALESCE(SUM(size), 0) FROM inodes").fetchone()[0]
        return {"files": files, "used": used}

    # ----- namespace changes -----

    def reserve(self, count: int = 1) -> int:
        """The first of `count` fresh inode numbers (never reused)."""
        with self._tx() as db:
            ino = db.execute("SELECT value FROM counters WHERE name = 'next_ino'").fetchone()[0]
            db.execute("UPDATE counters SET value = ? WHERE name = 'next_ino'", (ino + count,))
            return ino

    def mkdir(self, parent: int, name: str, mode: int, uid: int, gid: int) -> dict[str, Any]:
        ino = self.reserve()
        now = time.time_ns()
        with self._tx() as db:
            self._directory(db, parent)
            if self._child(db, parent, name) is not None:
                raise fail(errno.EEXIST, "file exists")
            db.execute("INSERT INTO inodes (ino, parent, name, mode, uid, gid, mtime_ns, ctime_ns) "
                       "VALUES (?,?,?,?,?,?,?,?)",
                       (ino, parent, name, stat.S_IFDIR | (mode & 0o7777), uid, gid, now, now))
            self._touch(db, parent, now)
            return _attrs(self._row(db, ino))

    def unlink(self, parent: int, name: str) -> int:
        """Remove a file; returns its inode number."""
        with self._tx() as db:
            self._directory(db, parent)
            row = self._child(db, parent, name)
            if row is None:
                raise fail(errno.ENOENT, "no such file")
            if stat.S_ISDIR(row["mode"]):
                raise fail(errno.EISDIR, "is a directory")
            self._drop_file(db, row)
            self._touch(db, parent, time.time_ns())
            return row["ino"]

    def rmdir(self, parent: int, name: str) -> None:
        with self._tx() as db:
            row = self._child(db, parent, name)
            if row is None:
                raise fail(errno.ENOENT, "no such directory")
            if not stat.S_ISDIR(row["mode"]):
                raise fail(errno.ENOTDIR, "not a directory")
            if db.execute("SELECT 1 FROM inodes WHERE parent = ? LIMIT 1", (row["ino"],)).fetchone():
                raise fail(errno.ENOTEMPTY, "directory not empty")
            db.execute("DELETE FROM inodes WHERE ino = ?", (row["ino"],))
            self._touch(db, parent, time.time_ns())

    def rename(self, old_parent: int, old_name: str, new_parent: int, new_name: str, flags: int = 0) -> int | None:
        """POSIX rename in one transaction: the target, if any, is replaced atomically.
        Returns the inode number of the replaced file, if one was."""
        if flags & RENAME_EXCHANGE:
            raise fail(errno.EINVAL, "RENAME_EXCHANGE is not supported")
        with self._tx() as db:
            self._directory(db, new_parent)
            source = self._child(db, old_parent, old_name)
            if source is None:
                raise fail(errno.ENOENT, "no such file or directory")
            check_name(new_name)
            target = self._child(db, new_parent, new_name)
            if target is not None and target["ino"] == source["ino"]:
                return None
            if target is not None and flags & RENAME_NOREPLACE:
                raise fail(errno.EEXIST, "target exists")
            moving_dir = stat.S_ISDIR(source["mode"])
            if moving_dir:
                self._refuse_cycle(db, source["ino"], new_parent)
            if target is not None:
                if stat.S_ISDIR(target["mode"]):
                    if not moving_dir:
                        raise fail(errno.EISDIR, "target is a directory")
                    if db.execute("SELECT 1 FROM inodes WHERE parent = ? LIMIT 1", (target["ino"],)).fetchone():
                        raise fail(errno.ENOTEMPTY, "target directory not empty")
                    db.execute("DELETE FROM inodes WHERE ino = ?", (target["ino"],))
                else:
                    if moving_dir:
                        raise fail(errno.ENOTDIR, "target is not a directory")
                    self._drop_file(db, target)
            now = time.time_ns()
            db.execute("UPDATE inodes SET parent = ?, name = ?, ctime_ns = ? WHERE ino = ?",
                       (new_parent, new_name, now, source["ino"]))
            self._touch(db, old_parent, now)
            self._touch(db, new_parent, now)
            return target["ino"] if target is not None else None

    def commit(self, ino: int, parent: int, name: str,
               fields: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any] | None]:
        """Publish a written file: insert it under parent/name (replacing a file there),
        or update inode `ino` in place when it already exists (a rewrite). Returns the
        file's attributes and, if it was inserted, its directory's."""
        chunks = fields["chunks"]
        now = time.time_ns()
        values = (fields["size"], fields["chunk_size"], json.dumps(chunks), fields["mode"], fields["uid"],
                  fields["gid"], fields.get("mtime_ns") or now, now, json.dumps(fields.get("xattrs", {})))
        with self._tx() as db:
            existing = db.execute("SELECT * FROM inodes WHERE ino = ?", (ino,)).fetchone()
            if existing is not None:
                kept = {chunk[0] for chunk in chunks}
                self._discard(db, [c for c in json.loads(existing["chunks"]) if c[0] not in kept])
                db.execute("UPDATE inodes SET size=?, chunk_size=?, chunks=?, mode=?, uid=?, gid=?, mtime_ns=?, "
                           "ctime_ns=?, xattrs=?, version = version + 1 WHERE ino = ?", (*values, ino))
                return _attrs(self._row(db, ino)), None
            self._directory(db, parent)
            target = self._child(db, parent, name)
            if target is not None:
                if stat.S_ISDIR(target["mode"]):
                    raise fail(errno.EISDIR, "a directory has that name")
                self._drop_file(db, target)
            db.execute("INSERT INTO inodes (size, chunk_size, chunks, mode, uid, gid, mtime_ns, ctime_ns, xattrs, "
                       "ino, parent, name) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", (*values, ino, parent, name))
            self._touch(db, parent, now)
            return _attrs(self._row(db, ino)), _attrs(self._row(db, parent))

    def setattr(self, ino: int, changes: dict[str, int]) -> dict[str, Any]:
        """Change mode (permission bits), uid, gid or mtime."""
        with self._tx() as db:
            row = self._row(db, ino)
            mode = (row["mode"] & ~0o7777) | (changes["mode"] & 0o7777) if "mode" in changes else row["mode"]
            db.execute("UPDATE inodes SET mode=?, uid=?, gid=?, mtime_ns=?, ctime_ns=? WHERE ino=?",
                       (mode, changes.get("uid", row["uid"]), changes.get("gid", row["gid"]),
                        changes.get("mtime_ns", row["mtime_ns"]), time.time_ns(), ino))
            return _attrs(self._row(db, ino))

    def set_xattrs(self, ino: int, xattrs: dict[str, str]) -> None:
        with self._tx() as db:
            self._row(db, ino)
            db.execute("UPDATE inodes SET xattrs = ?, ctime_ns = ? WHERE ino = ?",
                       (json.dumps(xattrs), time.time_ns(), ino))

    def xattrs(self, ino: int) -> dict[str, str]:
        with self._tx() as db:
            return json.loads(self._row(db, ino)["xattrs"])

    # ----- groups, benefactors, garbage -----

    def group_node(self, group: str) -> str | None:
        with self._tx() as db:
            row = db.execute("SELECT node FROM groups WHERE name = ?", (group,)).fetchone()
            return row["node"] if row else None

    def set_group_node(self, group: str, node: str) -> None:
        with self._tx() as db:
            db.execute("INSERT OR REPLACE INTO groups VALUES (?, ?)", (group, node))

    def groups_per_node(self) -> dict[str, int]:
        with self._tx() as db:
            return {row["node"]: row["n"] for row in db.execute("SELECT node, COUNT(*) AS n FROM groups GROUP BY node")}

    def save_benefactor(self, node: str, address: str) -> None:
        with self._tx() as db:
            db.execute("INSERT OR REPLACE INTO benefactors VALUES (?, ?)", (node, address))

    def known_benefactors(self) -> dict[str, str]:
        with self._tx() as db:
            return {row["node"]: row["address"] for row in db.execute("SELECT node, address FROM benefactors")}

    def add_garbage(self, chunks: list[list[Any]]) -> None:
        with self._tx() as db:
            self._discard(db, chunks)

    def garbage(self, limit: int) -> list[tuple[str, str]]:
        with self._tx() as db:
            return [(row["key"], row["node"]) for row in db.execute("SELECT key, node FROM garbage LIMIT ?", (limit,))]

    def collected(self, pairs: list[tuple[str, str]]) -> None:
        with self._tx() as db:
            db.executemany("DELETE FROM garbage WHERE key = ? AND node = ?", pairs)

    # ----- repair of lost replicas -----

    def files_on(self, nodes: set[str], after: int, limit: int) -> list[tuple[int, int, list[list[Any]]]]:
        """(ino, version, chunks) of up to `limit` files with inode numbers above `after` that
        have a chunk copy on one of `nodes`, in inode order."""
        found: list[tuple[int, int, list[list[Any]]]] = []
        with self._tx() as db:
            rows = db.execute("SELECT ino, version, chunks FROM inodes WHERE ino > ? AND chunks != '[]' "
                              "ORDER BY ino", (after,))
            for row in rows:
                chunks = json.loads(row["chunks"])
                if any(node in nodes for chunk in chunks for node in chunk[1]):
                    found.append((row["ino"], row["version"], chunks))
                    if len(found) == limit:
                        break
        return found

    def replace_chunks(self, ino: int, version: int, chunks: list[list[Any]]) -> bool:
        """Give file `ino` the same content on other copies (`chunks`), if it is still at
        `version`; False if it was rewritten or removed meanwhile. Its version and times stay:
        its bytes did not change."""
        with self._tx() as db:
            changed = db.execute("UPDATE inodes SET chunks = ? WHERE ino = ? AND version = ?",
                                 (json.dumps(chunks), ino, version)).rowcount
        return changed == 1

    # ----- helpers (inside a transaction) -----

    def _drop_file(self, db: sqlite3.Connection, row: sqlite3.Row) -> None:
        self._discard(db, json.loads(row["chunks"]))
        db.execute("DELETE FROM inodes WHERE ino = ?", (row["ino"],))

    @staticmethod
    def _discard(db: sqlite3.Connection, chunks: list[list[Any]]) -> None:
        db.executemany("INSERT OR IGNORE INTO garbage VALUES (?, ?)",
                       [(chunk[0], node) for chunk in chunks for node in chunk[1]])

    @staticmethod
    def _touch(db: sqlite3.Connection, ino: int, now: int) -> None:
        db.execute("UPDATE inodes SET mtime_ns = ?, ctime_ns = ? WHERE ino = ?", (now, now, ino))

    def _refuse_cycle(self, db: sqlite3.Connection, moving: int, new_parent: int) -> None:
        ino = new_parent
        while True:
            if ino == moving:
                raise fail(errno.EINVAL, "cannot move a directory into itself")
            if ino == ROOT:
                return
            ino = self._row(db, ino)["parent"]
