"""`python -m storage_adapters.chirp mount`: run the Chirp FUSE client in the foreground.

Checks the server first (reachable, our unix subject authenticated and
granted by its ACL), so a bad address is one clear line and exit status 2
instead of a mount that fails later. Unmount with `fusermount3 -u
MOUNTPOINT` or SIGTERM; either way the process ends and the mount is gone.

    python -m storage_adapters.chirp mount --mount /mnt/chirp --server head:9094
"""

from __future__ import annotations

import sys

from storage_adapters.chirp.client import ChirpClient
from storage_adapters.chirp.fs import ChirpRemote
from storage_adapters.fuse.pathfs import mount_parser, run_mount, setup_logging


def main(argv: list[str] | None = None) -> int:
    parser = mount_parser("chirp mount", "Chirp FUSE client")
    parser.add_argument("--server", required=True, help="the chirp_server's HOST:PORT")
    args = parser.parse_args(argv)
    setup_logging("chirp", args.verbose)
    root = args.root if args.root.startswith("/") else "/" + args.root
    try:
        client = ChirpClient(args.server)
        if not client.call(lambda c: c.stat(root)).is_dir:
            raise NotADirectoryError(f"{root} on the server is not a directory")
    except (OSError, ValueError) as error:
        print(f"chirp mount: server {args.server}: {error}", file=sys.stderr)
        return 2
    try:
        return run_mount(ChirpRemote(client, root), args, "chirp", f"{args.server}{root}")
    finally:
        client.close()
