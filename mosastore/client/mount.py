"""`python -m mosastore mount`: run the FUSE client in the foreground.

Checks the manager (reachable, secret accepted) before mounting, so a bad
address or secret is one clear line and exit status 2 instead of a mount
that fails later. The kernel's read-ahead for the mount is raised to four
chunks (see `fuse.frontend.serve_mounted`), so large reads reach the client
as 1 MiB requests that map onto whole chunks. Unmount with `fusermount3 -u
MOUNTPOINT` or SIGTERM; either way the process ends and the mount is gone.

    python -m mosastore mount --mount /mnt/mosa --manager head:7000 \\
        --secret-file /etc/mosastore/secret --node "$(hostname)"
"""

from __future__ import annotations

import argparse
import logging
import os
import socket
import sys
import tempfile

from mosastore.auth import AuthenticationError, check_secret, read_secret_file
from mosastore.client.fs import MosaFS
from mosastore.client.link import ManagerLink
from mosastore.client.netem import LinkEmulator
from mosastore.client.store import StoreClient
from mosastore.daemon import setup_logging
from mosastore.rpc import Unreachable
from storage_adapters.fuse.frontend import serve_mounted

log = logging.getLogger("mosastore.client")
FSTYPE = "fuse.mosastore"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="mosastore mount", description="MosaStore FUSE client")
    parser.add_argument("--mount", required=True, help="mount point (the same path on every node)")
    parser.add_argument("--manager", required=True, help="the manager's HOST:PORT")
    parser.add_argument("--secret-file", required=True, help="mode-600 file holding the shared secret")
    parser.add_argument("--node", default=socket.gethostname(),
                        help="this node's name, for callers without SWIFTCLOUD_NODE (default: host name)")
    parser.add_argument("--spool-dir", default=tempfile.gettempdir(), help="local directory for files being written")
    parser.add_argument("--cache-mb", type=int, default=256, help="chunk cache size (default 256 MB)")
    parser.add_argument("--readahead", type=int, default=8, help="chunks fetched ahead of sequential reads")
    parser.add_argument("--timeout", type=float, default=1.0, help="seconds the kernel caches names and attributes")
    parser.add_argument("--emulate-link-mbps", type=float, default=0.0,
                        help="emulate per-node network links of this many MB/s between emulated nodes (benchmarks)")
    parser.add_argument("--only-client", action="store_true",
                        help="this is the store's only mount (one machine): let the kernel cache written pages"
                             " and sizes; wrong when other hosts mount the store too")
    parser.add_argument("--allow-other", action="store_true", help="let other users use the mount")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    setup_logging(f"client {args.node}", args.verbose)
    try:
        secret = check_secret(read_secret_file(args.secret_file))
    except (OSError, ValueError) as error:
        print(f"mosastore mount: {error}", file=sys.stderr)
        return 2
    client = StoreClient(args.manager, secret)
    try:
        hello = StoreClient(args.manager, secret, manager_retry=5.0).manager.ping()
    except (Unreachable, AuthenticationError, OSError) as error:
        print(f"mosastore mount: manager {args.manager}: {error}", file=sys.stderr)
        return 2
    os.makedirs(args.spool_dir, exist_ok=True)
    manager = ManagerLink(args.manager, secret)
    fs = MosaFS(client, manager, args.node, args.spool_dir, hello["chunk_size"], args.timeout,
                args.cache_mb * 1024 * 1024, args.readahead, LinkEmulator(args.emulate_link_mbps), args.only_client)
    log.info("mounting at %s (manager %s, node %s)", args.mount, args.manager, args.node)
    try:
        serve_mounted(fs, os.path.realpath(args.mount), "mosastore", args.allow_other,
                      readahead_kb=4 * hello["chunk_size"] // 1024)
    finally:
        manager.close()
        client.close()
    log.info("unmounted %s", args.mount)
    return 0
