"""Chirp (from the Cooperative Computing Tools) as a storage backend.

- `protocol`: the Chirp wire protocol over one TCP connection, with `unix`
  authentication; `client`: a thread-safe pool of such connections;
- `adapter`: the `--storage chirp` backend, staging (`getfile`/`putfile`) or
  shared (the FUSE mount);
- `fs` and `mount`: the FUSE file system over Chirp (`python -m
  storage_adapters.chirp mount`), since Debian's chirp_fuse is built without
  FUSE support;
- `service`: real chirp_servers on 127.0.0.1 for tests and for trying it
  (`swiftcloud services start chirp`).
See docs/storage.md.
"""
