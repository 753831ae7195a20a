"""`swiftcloud run --cluster`: the mpiexec line that spreads a run over the cluster's nodes.

mpiexec itself runs on the first node; Hydra starts its proxy on every other node
through the cluster's launcher (`node-exec`, in place of ssh), so the engine and the
workers talk across the emulated network as they would between hosts. Ranks take the
hosts in turn: rank 0 (the engine) and worker 1 on node1, worker 2 on node2, and so
on, wrapping around when there are more workers than nodes. Workers name their node
by their host name, which each node has of its own. The same line, with `-hosts`
from a hostfile and ssh as the launcher, is how a real cluster runs (docs/cluster.md).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping

from cluster import node_exec
from cluster.node_exec import SHARED_SCRATCH, on_node
from cluster.state import ClusterState, cluster_dir, launch_entries, load, services_dir
from engine.errors import UsageError
from engine.scheduler import supervise, zygote_start
from engine.scheduler.launch import INSTALL_HINT, child_environment, mpi_installed, rank_commands, venv_mpiexec
from hostkit.errors import ServiceError

NODE_FROM_HOST = "SWIFTCLOUD_NODE_FROM_HOST"  # read by the worker ranks (engine.scheduler.mpi)
# MPICH's OFI netmod with libfabric's tcp provider over each node's eth0: TCP is what crosses
# the emulated network (all nodes share one kernel, so a shared-memory transport would pass
# it by). UCX's TCP transport was the first choice, but across the delay line its connection
# set-up failed (a worker crashed in wire-up towards the 150 ms region) and a 17-rank barrier
# took 6.5 s against OFI's 4.8 (measured on the study's 16 nodes in 3 regions).
# FI_TCP_MAX_RX_SIZE: the tcp provider clears a pool of 1,025 receive buffers of this size
# (plus 352 bytes each) in every rank at MPI_Init: 17 MB of memory touched per rank at the
# default 16 KiB, 1.4 MB at 1 KiB. A larger message is still taken whole (saved aside as an
# unexpected message, as all of ours are): a bare 9-rank start over TCP 0.45 -> 0.37 s at
# 4 KiB, and 17 ms less again at 1 KiB.
NETWORK_ONLY = {"MPIR_CVAR_CH4_NETMOD": "ofi", "FI_PROVIDER": "tcp", "FI_TCP_IFACE": "eth0",
                "FI_TCP_MAX_RX_SIZE": "1024"}
NODE_NAMES = ("SWIFTCLOUD_NODE", "SWIFTCLOUD_NODES")


def run_on_cluster(state_dir: str, args: argparse.Namespace, transport: str) -> int:
    """Run `swiftcloud run --cluster ...` as a job over the nodes of the cluster that is up under
    `state_dir`, supervised as the engine supervises its own mpiexec; the job's exit status."""
    if transport == "local":
        raise UsageError("--cluster runs workers on the cluster's nodes under MPI: leave out --transport local")
    if not mpi_installed():
        raise UsageError(f"--cluster needs mpi4py and the mpich wheel; {INSTALL_HINT}")
    cluster = find(state_dir)
    if args.processes is None:
        args.processes = len(cluster.nodes) + 1
    if args.processes < 2:
        raise UsageError("-n needs at least 2 processes (1 engine + 1 worker)")
    words = sys.argv[1:]
    if words[:1] != ["run"]:
        raise UsageError("cannot repeat this command line on the cluster")
    mpiexec = venv_mpiexec()
    assert mpiexec is not None
    # Rank 0 runs the same words with --mpi, which it obeys before --cluster.
    env = job_environment(cluster, child_environment())
    if not zygote_start.installed():  # every rank an interpreter of its own
        return supervise.run_job(job(cluster, args.processes, words[1:], mpiexec, []), env)
    # The ranks come from a zygote on this host, each joining its node (zygote.py).
    with zygote_start.started(env, cluster.path(node_exec.ZYGOTES)) as (forker, stub):
        return supervise.run_job(job(cluster, args.processes, words[1:], mpiexec, stub), env,
                                 companion=forker.pid)


def find(state_dir: str) -> ClusterState:
    """The cluster that is up under `state_dir`, or a ServiceError saying how to start one."""
    cluster = load(cluster_dir(state_dir))
    if cluster is None or cluster.phase != "up":
        raise ServiceError(f"--cluster: no cluster is up (state directory {state_dir}); start one with "
                           "'swiftcloud cluster up --nodes N'")
    down = [node.name for node in cluster.nodes if not node.up()]
    if down:
        raise ServiceError(f"--cluster: node(s) {', '.join(down)} are down; 'swiftcloud cluster down', then 'up'")
    if not node_exec.installed(cluster.directory):  # brought up by an older swiftcloud
        node_exec.install(cluster.directory, launch_entries(cluster))
    return cluster


def job(cluster: ClusterState, processes: int, words: list[str], mpiexec: str, stub: list[str]) -> list[str]:
    """The argv that runs `swiftcloud run WORDS` as a `processes`-rank job over the cluster, each
    rank's command after `stub` (its zygote's). The first node has two slots (the engine and
    worker 1), the others one, so k workers run on the first k nodes, home region first."""
    argv = [mpiexec, "-launcher", "ssh", "-launcher-exec", cluster.path(node_exec.LAUNCHER),
            "-hosts", ",".join(f"{node.name}:{2 if index == 0 else 1}" for index, node in enumerate(cluster.nodes)),
            *rank_commands(processes, words, stub, worker_options=("-env", NODE_FROM_HOST, "1"))]
    return on_node(cluster.nodes[0], argv, os.getcwd())


def job_environment(cluster: ClusterState, env: dict[str, str]) -> dict[str, str]:
    """A job's environment on the cluster: `env` less our node names, with the cluster's
    network-only MPI settings and what runs on a node need."""
    job_env = without_node_names(env)
    job_env.update(NETWORK_ONLY)
    job_env.update(node_environment(cluster))
    return job_env


def per_node(cluster: ClusterState, argv: list[str], mpiexec: str) -> list[str]:
    """The argv that runs `argv` as an MPI job of one rank per node, from the first node
    (as `srun --ntasks-per-node=1` would on a real cluster)."""
    launch = [mpiexec, "-launcher", "ssh", "-launcher-exec", cluster.path(node_exec.LAUNCHER),
              "-hosts", ",".join(node.name for node in cluster.nodes), "-ppn", "1", "-n", str(len(cluster.nodes)),
              *argv]
    return on_node(cluster.nodes[0], launch, os.getcwd())


def without_node_names(env: Mapping[str, str]) -> dict[str, str]:
    """`env` less the node names a process on an emulated node has (`SWIFTCLOUD_NODE`, and
    `SWIFTCLOUD_NODES`, `run --nodes`' default): a run started with it names its own."""
    return {key: value for key, value in env.items() if key not in NODE_NAMES}


def runs_environment(state_dir: str) -> dict[str, str]:
    """Our environment for a `swiftcloud run --cluster` started from here: the cluster found
    under `state_dir` (and no emulated node's own names)."""
    return {**without_node_names(os.environ), "SWIFTCLOUD_STATE_DIR": state_dir}


def node_environment(cluster: ClusterState) -> dict[str, str]:
    """What swiftcloud runs on a node need: the cluster's record, its stores (which
    `--storage NAME` finds in their state directory) and the node's own scratch directory."""
    return {node_exec.STATE_VARIABLE: cluster.path("cluster.json"),
            "SWIFTCLOUD_STATE_DIR": services_dir(cluster),
            # Temporary files (a staging task's scratch, an app's own) stay on their node.
            "TMPDIR": cluster.path(SHARED_SCRATCH)}
