"""An emulated cluster on one machine: nodes as network namespaces on a bridge, shaped links,
regions behind latency proxies, per-node storage daemons, and MPI across the nodes.

`swiftcloud cluster up|down|status|exec` (cli.py) drives `lifecycle.py`; `swiftcloud run
--cluster` takes its mpiexec line from `launch.py`. See docs/cluster.md.
"""
