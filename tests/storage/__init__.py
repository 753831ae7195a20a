"""Storage layer tests: one conformance suite run against every backend on real servers."""
