"""A MosaStore-style workflow-aware store: node-local disks aggregated into one POSIX mount.

A storage system of its own; `storage_adapters.mosastore` is its thin `--storage
mosastore` backend. It builds on the storage layer's shared pieces (errors, the
FUSE mount plumbing in `storage_adapters.fuse` that the HDFS and Chirp mounts
use too, process records in `storage_adapters.services.common`) and on nothing
of the engine.

Pieces (each runs as its own process, `python -m mosastore ROLE`):

- `manager`: namespace and metadata in SQLite (survives restarts, atomic
  renames), benefactor registry with heartbeats, placement plans, garbage
  collection of deleted chunks;
- `benefactor`: one per node, stores chunks in a node-local directory;
- `client` (`mount`): the FUSE file system (pyfuse3 + trio) mounted at the
  same path on every node; files are striped into chunks, written at close,
  read with parallel fetches and read-ahead.

Placement hints (`user.mosastore.placement`: local, collocate:GROUP,
scatter, replicate:K) and location exposure (`user.mosastore.location`) are
extended attributes; `service` starts everything on one machine. All connections
authenticate with a shared secret (challenge–response, see `auth`).
See docs/mosastore.md.
"""
