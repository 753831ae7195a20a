"""`python -m storage_adapters.hdfs mount`: run the HDFS FUSE client in the foreground.

Checks the NameNode first, so a bad address is one clear line and exit
status 2 instead of a mount that fails later. Unmount with `fusermount3 -u
MOUNTPOINT` or SIGTERM; either way the process ends and the mount is gone.

    python -m storage_adapters.hdfs mount --mount /mnt/hdfs --namenode head:8020
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import tempfile

import pyfuse3
import trio

from storage_adapters.fuse.pathfs import PathFS, serve
from storage_adapters.hdfs.client import Hdfs
from storage_adapters.hdfs.fs import HdfsRemote

log = logging.getLogger("hdfs.client")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="hdfs mount", description="HDFS FUSE client")
    parser.add_argument("--mount", required=True, help="mount point (the same path on every node)")
    parser.add_argument("--namenode", required=True, help="the NameNode's HOST:PORT")
    parser.add_argument("--root", default="/", help="directory of HDFS shown as the mount's root")
    parser.add_argument("--spool-dir", default=tempfile.gettempdir(), help="local directory for files being written")
    parser.add_argument("--replication", type=int, help="replication of files written here (default: the servers')")
    parser.add_argument("--block-size", type=int, help="block size in bytes of files written here (default: the servers')")
    parser.add_argument("--timeout", type=float, default=1.0, help="seconds the kernel caches names and attributes")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO, stream=sys.stderr,
                        format="%(asctime)s hdfs-client %(levelname)s %(message)s")
    root = args.root if args.root.startswith("/") else "/" + args.root
    try:
        hdfs = Hdfs(args.namenode, args.replication, args.block_size)
        if not hdfs.info(root).isdir:
            raise NotADirectoryError(f"{root} in HDFS is not a directory")
    except (OSError, ValueError) as error:
        print(f"hdfs mount: NameNode {args.namenode}: {error}", file=sys.stderr)
        return 2
    os.makedirs(args.spool_dir, mode=0o700, exist_ok=True)
    fs = PathFS(HdfsRemote(hdfs, root), args.spool_dir, args.timeout)
    options = set(pyfuse3.default_options) | {"fsname=hdfs", "subtype=hdfs"}
    pyfuse3.init(fs, os.path.realpath(args.mount), options)
    log.info("mounted hdfs://%s%s at %s", args.namenode, root, args.mount)
    try:
        trio.run(serve, fs)
    finally:
        pyfuse3.close(unmount=True)
    log.info("unmounted %s", args.mount)
    return 0
