"""What our FUSE file systems (the MosaStore and Chirp clients) share: who the caller is,
how errors reach the kernel, and how a file's edits are counted while it is published.
Starting a client process and releasing its mount is the ground floor's (`hostkit.mounts`)."""
