"""What our FUSE file systems (the MosaStore and Chirp clients) share: who the caller is,
how errors reach the kernel, and how a client process is mounted and released."""
