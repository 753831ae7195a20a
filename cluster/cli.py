"""`swiftcloud cluster up|down|status|check|exec`: the emulated cluster from the command line."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

from engine.errors import UsageError
from hostkit.errors import EXIT_OK, EXIT_RUNTIME

if TYPE_CHECKING:
    from cluster.state import ClusterState

DESCRIPTION = """\
Emulate a cluster on this machine: each node is a network namespace with its own host name,
address, shaped link, scratch directory and storage daemons; each region is a subnet, and a
delay line holds what goes between regions (and to S3) for the round trip. Needs root.

  swiftcloud cluster up --nodes 8 --storage mosastore
  swiftcloud run --cluster -n 9 --storage mosastore workflow.swift
  swiftcloud cluster exec node3 -- hostname
  swiftcloud cluster down

See docs/cluster.md for the region file and for running the same flags on a real cluster."""


def add_commands(subparsers: argparse._SubParsersAction) -> None:
    """Register `cluster` and its actions on the CLI's sub-parsers."""
    parser = subparsers.add_parser("cluster", help="bring an emulated cluster up or down (network namespaces)",
                                   description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    up = actions.add_parser("up", help="make the nodes and start their storage daemons")
    up.add_argument("--nodes", type=int, default=4, metavar="N", help="how many nodes (default 4)")
    up.add_argument("--regions", metavar="FILE",
                    help="region file (default: a zone of 8 nodes, a region 60 ms away with 8 more, the rest"
                         " 150 ms away; see docs/cluster.md)")
    up.add_argument("--storage", default="", metavar="NAME[,NAME]",
                    help="stores to start on the nodes: mosastore, s3, s3fs, hdfs, chirp (local needs none)")
    down = actions.add_parser("down", help="end every process, mount, link and namespace of the cluster")
    down.add_argument("--tag", metavar="TAG", help="take down what is left of cluster TAG (e.g. swc1a2b) whose"
                                                   " state directory was deleted; 'down' names such clusters")
    status = actions.add_parser("status", help="list the nodes and services (exit 1 if a node is down)")
    check = actions.add_parser("check", help="measure links, paths, disks and S3 against what is configured"
                                             " (exit 1 if one is off by more than 15%%)")
    run = actions.add_parser("exec", help="run a command on one node", description="Run COMMAND on NODE, "
                             "in its network, mounts and host name, e.g. 'swiftcloud cluster exec node2 -- "
                             "hostname'. swiftcloud commands run there use the cluster's stores: 'swiftcloud "
                             "cluster exec node1 -- swiftcloud get --storage s3 out/x.txt x.txt'")
    run.add_argument("node", metavar="NODE")
    run.add_argument("words", nargs=argparse.REMAINDER, metavar="-- COMMAND")
    for action in (up, down, status, check, run):
        action.add_argument("--state-dir", help="where the cluster keeps its record, logs and node directories"
                                                " (default: $SWIFTCLOUD_STATE_DIR, else .swiftcloud/services)")
    parser.set_defaults(handler=run_cluster)


def add_run_option(run: argparse.ArgumentParser) -> None:
    """Add `--cluster` to the engine's `run`: its launcher runs the job over the cluster's nodes."""
    run.add_argument("--cluster", dest="host_launcher", action="store_const", const=launch_on_cluster,
                     help="run the engine and the workers on the nodes of the emulated cluster that"
                          " 'swiftcloud cluster up' started, under MPI across its network (and with its"
                          " stores for --storage); see docs/cluster.md")


def launch_on_cluster(args: argparse.Namespace, transport: str) -> int:
    """`run --cluster`'s launcher (an `engine.scheduler.launch.HostLauncher`)."""
    from cluster.launch import run_on_cluster  # deferred: a run without --cluster never loads the cluster

    return run_on_cluster(state_dir(None), args, transport)


def state_dir(given: str | None) -> str:
    from storage_adapters.config import read_config, state_dir_from

    return os.path.abspath(given or state_dir_from(read_config(None)))


def run_cluster(args: argparse.Namespace) -> int:
    if os.geteuid() != 0:
        raise UsageError("the emulated cluster needs root (network namespaces, bridges and tc)")
    from cluster import lifecycle, state

    directory = state_dir(args.state_dir)

    def say(line: str) -> None:
        print(f"cluster: {line}", file=sys.stderr, flush=True)

    if args.action == "up":
        from cluster.regions import DEFAULT_REGIONS, Layout, load
        from cluster.stores import with_daemons

        layout = load(args.regions) if args.regions else Layout(DEFAULT_REGIONS)
        stores = with_daemons(name for name in args.storage.split(",") if name)
        cluster = lifecycle.up(directory, args.nodes, layout.regions, stores, say, layout.paths, layout.s3_mbit)
        _print_status(cluster)
        return EXIT_OK
    if args.action == "down":
        if args.tag:
            if not lifecycle.down_orphan(args.tag, say):
                say(f"no namespaces of a cluster {args.tag} are left")
            return EXIT_OK
        if not lifecycle.down(directory, say):
            say(f"no cluster is up (state directory {directory})")
            for tag, namespaces in lifecycle.orphans().items():
                say(f"{len(namespaces)} namespaces of cluster {tag} have no record (its state directory is "
                    f"gone): remove them with 'swiftcloud cluster down --tag {tag}'")
        return EXIT_OK
    cluster = state.load(state.cluster_dir(directory))
    if cluster is None:
        print(f"no cluster is up (state directory {directory})", file=sys.stderr)
        return EXIT_RUNTIME
    if args.action == "status":
        _print_status(cluster)
        return EXIT_OK if all(node.up() for node in cluster.nodes) else EXIT_RUNTIME
    if args.action == "check":
        from cluster import check

        measured = check.measure(cluster, say)
        print(check.report(measured))
        for failure in measured["failures"]:
            say(f"off: {failure}")
        return EXIT_OK if measured["ok"] else EXIT_RUNTIME
    command = args.words[1:] if args.words[:1] == ["--"] else args.words
    if not command:
        raise UsageError("usage: swiftcloud cluster exec NODE -- COMMAND...")
    from cluster.launch import node_environment
    from cluster.node_exec import on_node

    argv = on_node(cluster.node(args.node), command)
    os.environ.update(node_environment(cluster))  # swiftcloud commands there use the cluster's stores
    sys.stdout.flush()
    os.execvp(argv[0], argv)
    return EXIT_RUNTIME  # not reached


def _print_status(cluster: ClusterState) -> None:
    regions = {region["name"]: region for region in cluster.regions}
    print(f"cluster {cluster.tag}: {len(cluster.nodes)} nodes, storage: {', '.join(cluster.storage) or 'local'}")
    for node in cluster.nodes:
        region = regions[node.region]
        distance = f", {region['rtt_ms']:g} ms to home" if region["rtt_ms"] else ""
        print(f"  {node.name:8} {node.address:14} {node.region:12} {region['node_mbit']:g} Mbit/s{distance}"
              f"  {'up' if node.up() else 'DOWN'}")
    for name, address in cluster.endpoints.items():
        print(f"  service {name} at {address}")
