"""`python -m storage_adapters.hdfs mount ...`: run the HDFS FUSE client."""

from __future__ import annotations

import os
import sys


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] != "mount":
        print("usage: python -m storage_adapters.hdfs mount [options] (--help for them)", file=sys.stderr)
        return 2
    # Spooled files and the log belong to the owner alone, whatever umask we inherit.
    os.umask(0o077)
    from storage_adapters.hdfs.mount import main as run

    return run(args[1:])


if __name__ == "__main__":
    sys.exit(main())
