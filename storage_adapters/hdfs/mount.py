"""`python -m storage_adapters.hdfs mount`: run the HDFS FUSE client in the foreground.

Checks the NameNode first, so a bad address is one clear line and exit
status 2 instead of a mount that fails later. Unmount with `fusermount3 -u
MOUNTPOINT` or SIGTERM; either way the process ends and the mount is gone.

    python -m storage_adapters.hdfs mount --mount /mnt/hdfs --namenode head:8020
"""

from __future__ import annotations

import sys

from storage_adapters.fuse.pathfs import mount_parser, run_mount, setup_logging
from storage_adapters.hdfs.client import Hdfs
from storage_adapters.hdfs.fs import HdfsRemote


def main(argv: list[str] | None = None) -> int:
    parser = mount_parser("hdfs mount", "HDFS FUSE client")
    parser.add_argument("--namenode", required=True, help="the NameNode's HOST:PORT")
    parser.add_argument("--replication", type=int, help="replication of files written here (default: the servers')")
    parser.add_argument("--block-size", type=int, help="block size in bytes of files written here (default: the servers')")
    args = parser.parse_args(argv)
    setup_logging("hdfs", args.verbose)
    root = args.root if args.root.startswith("/") else "/" + args.root
    try:
        hdfs = Hdfs(args.namenode, args.replication, args.block_size, patient=True)
        if not hdfs.info(root).isdir:
            raise NotADirectoryError(f"{root} in HDFS is not a directory")
    except (OSError, ValueError) as error:
        print(f"hdfs mount: NameNode {args.namenode}: {error}", file=sys.stderr)
        return 2
    return run_mount(HdfsRemote(hdfs, root), args, "hdfs", f"hdfs://{args.namenode}{root}")
