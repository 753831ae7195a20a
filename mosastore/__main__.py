"""`python -m mosastore manager|benefactor|mount ...`: run one MosaStore process."""

from __future__ import annotations

import os
import sys


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    roles = ("manager", "benefactor", "mount")
    if not args or args[0] not in roles:
        print(f"usage: python -m mosastore {{{'|'.join(roles)}}} [options] (--help for each)",
              file=sys.stderr)
        return 2
    role, rest = args[0], args[1:]
    # Chunks, the metadata database and logs belong to the owner alone, whatever umask we inherit.
    os.umask(0o077)
    if role == "manager":
        from mosastore.manager import main as run
    elif role == "benefactor":
        from mosastore.benefactor import main as run
    else:
        from mosastore.client.mount import main as run
    return run(rest)


if __name__ == "__main__":
    sys.exit(main())
