"""A MosaStore-style workflow-aware store: node-local disks aggregated into one POSIX mount.

A storage system of its own, with its thin `--storage mosastore` backend
(`adapter`), which `plugin` registers with the storage layer. It stands on the
ground floor (`hostkit`: processes and their records, mounts, errors) and on the
storage layer (the adapter's base, the FUSE pieces in `storage_adapters.fuse`
that the HDFS and Chirp clients use too), and on nothing of the engine.

Pieces (each runs as its own process, `python -m mosastore ROLE`):

- `manager`: namespace and metadata in SQLite (survives restarts, atomic
  renames), benefactor registry with heartbeats, placement plans, garbage
  collection of deleted chunks;
- `benefactor`: one per node, stores chunks in a node-local directory;
- `client` (`mount`): the FUSE file system (trio; `storage_adapters.fuse`) mounted at the
  same path on every node; files are striped into chunks, written at close,
  read with parallel fetches and read-ahead.

Placement hints (`user.mosastore.placement`: local, collocate:GROUP,
scatter, replicate:K) and location exposure (`user.mosastore.location`) are
extended attributes; `service` starts everything on one machine. All connections
authenticate with a shared secret (challenge–response, see `auth`).
See docs/mosastore.md.
"""
