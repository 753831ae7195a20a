"""Test suite of swiftcloud (a package, so test directories never shadow project packages)."""
