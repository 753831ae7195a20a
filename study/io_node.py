"""One node's client of the I/O study: moves its own file between node-local disk and a store.

Started inside a node by study.io (one per node, for one store and one file size) as
`python -m study.io_node --store NAME --size BYTES`. It opens the store, makes sure its
source file of random bytes is on the node's local disk ($TMPDIR/study-io), says
`started`, and then follows the driver on stdin, one round at a time:

    driver: round PATTERN REPEAT   client: (untimed preparation) ready
    driver: go                     client: {"start": ..., "end": ..., "bytes": ...}   (one JSON line)
    driver: quit                   client: exits 0

Patterns: `read` copies a file put in the store beforehand (untimed, by this node, so a
store that keeps a writer's data on its node, as MosaStore does, reads it locally) to
local disk, `write` copies the source into the store, `read_after_write` does both on one
file.
Shared stores (and the `local` reference, a directory on the node's own disk) are copied
to and from the path the store gives (`adapter.local_path`), so a write is the file
system's own write, with no temporary name and rename; staging stores go through the
adapter's `get_file` / `put_file`. Start and end are wall-clock times: the nodes share
one clock. Each round's store file and local copy are deleted after it. A failure is
reported as one JSON line {"error": ...} and exit status 1.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import socket
import sys
import time

from mosastore.plugin import register as register_mosastore
from storage_adapters import open_storage
from storage_adapters.base import StorageAdapter
from storage_adapters.local import LocalAdapter

WORK_DIR = "study-io"  # under the node's $TMPDIR (its own scratch directory)
PATTERNS = ("read", "write", "read_after_write")
CHUNK = 8 * 1024 * 1024
LOCAL = "local"


def work_dir() -> str:
    directory = os.path.join(os.environ.get("TMPDIR", "/tmp"), WORK_DIR)
    os.makedirs(directory, mode=0o700, exist_ok=True)
    return directory


def method(adapter: StorageAdapter) -> str:
    """How this client moves files for `adapter` (said in the study's results)."""
    return "copy to/from the mount path" if adapter.mode == "shared" else "adapter get_file/put_file"


def open_store(name: str) -> StorageAdapter:
    """The store `name` as the cluster's runs see it; `local` is a directory on this node's disk."""
    if name == LOCAL:
        adapter: StorageAdapter = LocalAdapter(os.path.join(work_dir(), "local-store"))
        adapter.check()
        return adapter
    return open_storage(name)


def ensure_source(size: int) -> str:
    """The node's source file of `size` random bytes, made once per size (the driver deletes it)."""
    path = os.path.join(work_dir(), f"source-{size}.bin")
    if os.path.exists(path) and os.path.getsize(path) == size:
        return path
    partial = f"{path}.part-{os.getpid()}"
    with open(partial, "wb") as sink:
        left = size
        while left:
            piece = min(left, CHUNK)
            sink.write(os.urandom(piece))
            left -= piece
    os.replace(partial, path)
    return path


def sha256(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as source:
        while block := source.read(CHUNK):
            digest.update(block)
    return digest.hexdigest()


class Mover:
    """Puts and gets one node's files in one store, the way the study measures it."""

    def __init__(self, adapter: StorageAdapter, node: str) -> None:
        self.adapter = adapter
        self.directory = f"study-io/{node}"
        adapter.mkdir(self.directory)

    def logical(self, name: str) -> str:
        return f"{self.directory}/{name}"

    def put(self, local: str, logical: str) -> None:
        if self.adapter.mode == "shared":
            shutil.copyfile(local, self.adapter.local_path(logical))
        else:
            self.adapter.put_file(local, logical)

    def get(self, logical: str, local: str) -> None:
        if self.adapter.mode == "shared":
            shutil.copyfile(self.adapter.local_path(logical), local)
        else:
            self.adapter.get_file(logical, local)

    def remove(self, logical: str) -> None:
        if self.adapter.exists(logical):
            self.adapter.rm(logical)


def serve(store: str, size: int, verify: bool, node: str) -> None:
    """Open the store, then answer the driver's rounds until `quit` (see the module docstring)."""
    adapter = open_store(store)
    try:
        mover = Mover(adapter, node)
        source = ensure_source(size)
        source_hash = sha256(source) if verify else ""
        local_copy = os.path.join(work_dir(), f"copy-{store}-{size}.bin")
        print("started", flush=True)  # the driver starts the next store's clients once the source exists
        while line := sys.stdin.readline():
            words = line.split()
            if words == ["quit"]:
                return
            if len(words) != 3 or words[0] != "round" or words[1] not in PATTERNS:
                raise ValueError(f"unexpected command from the driver: {line.strip()!r}")
            pattern, repeat = words[1], int(words[2])
            logical = mover.logical(f"{pattern}-{size}-r{repeat}.bin")
            if pattern == "read":
                mover.put(source, logical)
            reply(None)  # "ready"
            if sys.stdin.readline().strip() != "go":
                raise ValueError("the driver did not say go")
            start = time.time()
            if pattern in ("write", "read_after_write"):
                mover.put(source, logical)
            if pattern in ("read", "read_after_write"):
                mover.get(logical, local_copy)
            end = time.time()
            moved = size * (2 if pattern == "read_after_write" else 1)
            result: dict[str, object] = {"node": node, "pattern": pattern, "repeat": repeat, "start": start,
                                         "end": end, "bytes": moved, "method": method(adapter)}
            if pattern != "write":
                result["read_size"] = os.path.getsize(local_copy)
                if verify:
                    result["source_sha256"], result["read_sha256"] = source_hash, sha256(local_copy)
                os.remove(local_copy)
            mover.remove(logical)
            reply(result)
    finally:
        adapter.close()


def reply(result: dict[str, object] | None) -> None:
    print("ready" if result is None else json.dumps(result), flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m study.io_node", description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", required=True, help="the store's name (as --storage), or local")
    parser.add_argument("--size", type=int, required=True, help="file size in bytes")
    parser.add_argument("--verify", action="store_true", help="report SHA-256 of the source and of what was read")
    args = parser.parse_args(argv)
    register_mosastore()  # the store is opened by name, mosastore's too
    try:
        serve(args.store, args.size, args.verify, socket.gethostname())
    except Exception as error:  # noqa: BLE001 - reported to the driver as a value, never a traceback
        print(json.dumps({"error": f"{type(error).__name__}: {error}"}), flush=True)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
