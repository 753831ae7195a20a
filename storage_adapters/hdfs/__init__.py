"""HDFS as a storage backend: Apache Hadoop's NameNode and DataNodes, our native-client adapter.

- `client`: HDFS through `hdfs-native` (no JVM in the client), with POSIX
  errnos and atomic whole-file publication;
- `adapter`: the `--storage hdfs` backend, staging or shared (the FUSE mount),
  with block locations for the scheduler's data-aware placement;
- `fs` and `mount`: the FUSE file system over HDFS (`python -m
  storage_adapters.hdfs mount`), on `fuse.pathfs`;
- `service`: a real NameNode and DataNodes on 127.0.0.1 for tests and for trying
  it (`swiftcloud services start hdfs --datanodes N`).
See docs/storage.md.
"""
