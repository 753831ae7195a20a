"""The MosaStore client (SAI): a FUSE file system over the manager and the benefactors."""
