"""`python -m storage_adapters.chirp mount`: run the Chirp FUSE client in the foreground.

Checks the server first (reachable, our unix subject authenticated and
granted by its ACL), so a bad address is one clear line and exit status 2
instead of a mount that fails later. Unmount with `fusermount3 -u
MOUNTPOINT` or SIGTERM; either way the process ends and the mount is gone.

    python -m storage_adapters.chirp mount --mount /mnt/chirp --server head:9094
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import tempfile

import pyfuse3
import trio

from storage_adapters.chirp.client import ChirpClient
from storage_adapters.chirp.fs import ChirpRemote
from storage_adapters.fuse.pathfs import PathFS, serve

log = logging.getLogger("chirp.client")
FSTYPE = "fuse.chirp"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="chirp mount", description="Chirp FUSE client")
    parser.add_argument("--mount", required=True, help="mount point (the same path on every node)")
    parser.add_argument("--server", required=True, help="the chirp_server's HOST:PORT")
    parser.add_argument("--root", default="/", help="directory on the server shown as the mount's root")
    parser.add_argument("--spool-dir", default=tempfile.gettempdir(), help="local directory for files being written")
    parser.add_argument("--timeout", type=float, default=1.0, help="seconds the kernel caches names and attributes")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO, stream=sys.stderr,
                        format="%(asctime)s chirp-client %(levelname)s %(message)s")
    try:
        client = ChirpClient(args.server)
        root = args.root if args.root.startswith("/") else "/" + args.root
        if not client.call(lambda c: c.stat(root)).is_dir:
            raise NotADirectoryError(f"{root} on the server is not a directory")
    except (OSError, ValueError) as error:
        print(f"chirp mount: server {args.server}: {error}", file=sys.stderr)
        return 2
    os.makedirs(args.spool_dir, mode=0o700, exist_ok=True)
    fs = PathFS(ChirpRemote(client, root), args.spool_dir, args.timeout)
    options = set(pyfuse3.default_options) | {"fsname=chirp", "subtype=chirp"}
    pyfuse3.init(fs, os.path.realpath(args.mount), options)
    log.info("mounted %s%s at %s", args.server, root, args.mount)
    try:
        trio.run(serve, fs)
    finally:
        pyfuse3.close(unmount=True)
        client.close()
    log.info("unmounted %s", args.mount)
    return 0
