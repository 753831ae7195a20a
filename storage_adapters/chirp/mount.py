"""`python -m storage_adapters.chirp mount`: run the Chirp FUSE client in the foreground.

Checks the volume first (every server reachable, our unix subject authenticated and
granted by its ACL, the root a directory), so a bad address is one clear line and exit
status 2 instead of a mount that fails later. Unmount with `fusermount3 -u MOUNTPOINT` or
SIGTERM; either way the process ends and the mount is gone.

    python -m storage_adapters.chirp mount --mount /mnt/chirp --server head:9094
    python -m storage_adapters.chirp mount --mount /mnt/chirp --server head:9094 \\
        --volume multi --servers head:9094,node2:9094,node3:9094
"""

from __future__ import annotations

import sys

from storage_adapters.chirp.fs import ChirpRemote
from storage_adapters.chirp.volume import VOLUMES, MultiVolume, open_volume
from storage_adapters.fuse.pathfs import mount_parser, run_mount, setup_logging


def main(argv: list[str] | None = None) -> int:
    parser = mount_parser("chirp mount", "Chirp FUSE client")
    parser.add_argument("--server", required=True, help="the chirp_server's HOST:PORT (a multi volume's directory server)")
    parser.add_argument("--volume", choices=VOLUMES, default="single",
                        help="one server's tree, or a tree of stubs naming data on several servers")
    parser.add_argument("--servers", default="", help="multi: the data servers, HOST:PORT,... (default: --server alone)")
    parser.add_argument("--seed", type=int, help="multi: seed the choice of data servers (for tests)")
    args = parser.parse_args(argv)
    setup_logging("chirp", args.verbose)
    root = args.root if args.root.startswith("/") else "/" + args.root
    servers = [server for server in args.servers.split(",") if server]
    try:
        volume = open_volume(args.volume, args.server, servers, args.seed, patient=True)
    except ValueError as error:
        print(f"chirp mount: {error}", file=sys.stderr)
        return 2
    try:
        if isinstance(volume, MultiVolume):
            volume.prepare()
            for server in volume.servers:
                volume.client(server).call(lambda c: c.whoami())
        if not volume.stat(root).is_dir:
            raise NotADirectoryError(f"{root} on the server is not a directory")
    except (OSError, ValueError) as error:
        print(f"chirp mount: {volume.describe()}: {error}", file=sys.stderr)
        volume.close()
        return 2
    try:
        return run_mount(ChirpRemote(volume, root), args, "chirp", f"{args.server}{root}")
    finally:
        volume.close()
