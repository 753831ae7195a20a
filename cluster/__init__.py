"""An emulated cluster on one machine: nodes as network namespaces, shaped links, regions as
subnets with a delay line between them, per-node storage daemons, and MPI across the nodes.

`swiftcloud cluster up|down|status|exec` (cli.py) drives `lifecycle.py`; `swiftcloud run
--cluster` takes its mpiexec line from `launch.py`. See docs/cluster.md.
"""
