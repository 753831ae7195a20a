"""The storage study: one command over every store on an emulated cluster (issue 13)."""
