"""`swiftcloud services start slurm`: a real one-node Slurm (and munge) in a network namespace.

For trying `swiftcloud submit -m slurm` and for the tests. slurmctld and
slurmd bind the wildcard address with no option to change it, so they run in
a network namespace of their own (`swcslurm-<tag>`, the tag made from the
state directory) whose loopback also carries 127.0.0.2, the address the
controller and the node are configured with: nothing listens on the host's
network. The daemons are Debian's slurm-wlm and munge:

- munged runs as the munge user with a key made at start and its socket in
  `/run/swiftcloud/<namespace>/munge` (`AuthInfo=socket=...`), so the host's
  munge is never used; not in the state directory, which may lie under a
  private directory the munge user cannot reach;
- slurmctld and slurmd run as root in the foreground (`-D`), with
  `proctrack/linuxproc`, `task/none`, no accounting, and one node named after
  this host with `CPUS` CPUs (more than the hardware's two, with
  `config_overrides`, so a job of 1 engine + N workers fits; the kernel
  shares the cores);
- the commands users and PSI/J call (`sbatch`, `squeue`, `scancel`, `srun`,
  `sinfo`, `scontrol`) are wrappers in `<state>/slurm/bin` that exec the real
  command in the namespace (`nsenter --net`, no shell), with `SLURM_CONF`
  pointing at this instance. `swiftcloud submit -m slurm` puts them first on
  its PATH when this service runs.

`stop` ends every process in the namespace (daemons and any job still
running), by the namespace's own process list, then deletes the namespace
and munge's directory.
Starting needs root (namespaces, daemons as root).
"""

from __future__ import annotations

import hashlib
import os
import pwd
import shutil
import signal
import socket
import stat
import subprocess
import sys
import time
from typing import Any

from cluster import netns
from hostkit import shm
from hostkit.errors import MissingDependencyError, ServiceError
from hostkit.process_start import is_zombie
from hostkit.processes import log_tail, spawn, wait_until
from hostkit.records import ServiceRecord, forget_record, record_process, running_record, save_record, service_dir

NAME = "slurm"
ADDRESS = "127.0.0.2"
CPUS = 8
PARTITION = "debug"
COMMANDS = ("sbatch", "squeue", "scancel", "srun", "sinfo", "scontrol")
DAEMONS = ("munged", "slurmctld", "slurmd")
MUNGE_BASE = "/run/swiftcloud"
FIRST_JOB_ID_SPAN = 60_000_000  # below Slurm's MaxJobId (67,043,328)
INSTALL_HINT = "apt-get install slurm-wlm munge (see setup.d/60-slurm.sh)"
READY_TIMEOUT_S = 60.0


def _binary(name: str) -> str:
    found = shutil.which(name) or shutil.which(name, path="/usr/sbin:/usr/bin")
    if found is None:
        raise MissingDependencyError(f"{name} is not installed: {INSTALL_HINT}")
    return found


def namespace_of(state_dir: str) -> str:
    """The network namespace of the Slurm of this state directory."""
    digest = hashlib.sha256(os.path.abspath(state_dir).encode()).hexdigest()[:8]
    return f"swcslurm-{digest}"


def slurm_environment(record: ServiceRecord) -> dict[str, str]:
    """What a process needs to use this Slurm: the wrappers first on PATH, and SLURM_CONF."""
    path = os.environ.get("PATH", "")
    return {"PATH": f"{record.info['bin']}{os.pathsep}{path}", "SLURM_CONF": record.info["conf"]}


def status(state_dir: str) -> ServiceRecord | None:
    """The running service's record (slurmctld is the recorded process), or None."""
    return running_record(state_dir, NAME)


def start(state_dir: str) -> ServiceRecord:
    """Start munged, slurmctld and slurmd in a fresh namespace; wait until the node is idle."""
    existing = status(state_dir)
    if existing is not None:
        return existing
    if os.geteuid() != 0:
        raise ServiceError("the trial Slurm needs root (network namespaces, daemons running as root)")
    binaries = {name: _binary(name) for name in (*DAEMONS, "mungekey", "nsenter", *COMMANDS)}
    home = service_dir(state_dir, NAME)
    namespace = namespace_of(state_dir)
    _remove_namespace(namespace)  # what a crashed start or a deleted record left
    for sub in ("ctld", "spool", "log", "bin"):
        os.makedirs(os.path.join(home, sub), mode=0o700, exist_ok=True)
    conf = os.path.join(home, "slurm.conf")
    munge = os.path.join(MUNGE_BASE, namespace, "munge")
    socket_path = _prepare_munge(munge, binaries["mungekey"])
    host = socket.gethostname().split(".")[0]
    _write_conf(conf, home, host, socket_path)
    _write_wrappers(os.path.join(home, "bin"), namespace, conf, binaries)
    netns.add(namespace)
    netns.run("ip", "-n", namespace, "link", "set", "lo", "up")
    netns.run("ip", "-n", namespace, "addr", "add", f"{ADDRESS}/32", "dev", "lo")
    enter = [binaries["nsenter"], f"--net={netns.NETNS_DIR}/{namespace}", "--"]
    log = os.path.join(home, "log", "daemons.log")
    env = {**os.environ, "SLURM_CONF": conf}
    munge_user = pwd.getpwnam("munge")
    try:
        munged = spawn([*enter, "setpriv", f"--reuid={munge_user.pw_uid}", f"--regid={munge_user.pw_gid}",
                        "--init-groups", binaries["munged"], "--foreground", "--force",
                        f"--socket={socket_path}", f"--key-file={os.path.join(munge, 'key', 'munge.key')}",
                        f"--pid-file={os.path.join(munge, 'munged.pid')}",
                        f"--seed-file={os.path.join(munge, 'key', 'munged.seed')}",
                        f"--log-file={os.path.join(home, 'log', 'munged.log')}"], log, env)
        wait_until(lambda: os.path.exists(socket_path), munged, "munged", log, timeout=READY_TIMEOUT_S)
        controller = spawn([*enter, binaries["slurmctld"], "-D", "-c", "-f", conf], log, env)
        node = spawn([*enter, binaries["slurmd"], "-D", "-f", conf, "-N", host], log, env)
        record = record_process(NAME, controller, {
            "namespace": namespace, "conf": conf, "bin": os.path.join(home, "bin"), "node": host,
            "partition": PARTITION, "cpus": CPUS, "address": ADDRESS, "log": log,
            "daemons": {"munged": munged.pid, "slurmd": node.pid},
        }, {})
        save_record(state_dir, record)
        wait_until(lambda: _node_idle(record), node, "slurmd", log, timeout=READY_TIMEOUT_S)
        if controller.poll() is not None:
            raise ServiceError(f"slurmctld exited with status {controller.returncode}:\n{log_tail(log)}")
    except BaseException:
        _remove_namespace(namespace)
        forget_record(state_dir, NAME)
        raise
    return record


def stop(state_dir: str) -> bool:
    """End every process in the namespace and delete it; False if the service was not running."""
    running = status(state_dir)
    namespace = namespace_of(state_dir)
    present = netns.exists(namespace)
    _remove_namespace(namespace)
    forget_record(state_dir, NAME)
    shm.sweep()  # the jobs' ranks that were killed left their MPICH segments
    return running is not None or present


def _node_idle(record: ServiceRecord) -> bool:
    done = subprocess.run([os.path.join(record.info["bin"], "sinfo"), "-h", "-N", "-o", "%T"],
                          capture_output=True, text=True, check=False, timeout=30)
    return done.returncode == 0 and done.stdout.strip() == "idle"


def _remove_namespace(namespace: str) -> None:
    """SIGTERM, then SIGKILL, every process in the namespace (daemons, jobs), then delete it
    and munge's directory."""
    if netns.exists(namespace):
        for signum in (signal.SIGTERM, signal.SIGKILL):
            for pid in netns.pids(namespace):
                try:
                    os.kill(pid, signum)
                except ProcessLookupError:
                    pass
            deadline = time.monotonic() + 10.0
            while _live(namespace) and time.monotonic() < deadline:
                time.sleep(0.05)
            if not _live(namespace):
                break
        left = _live(namespace)
        if left:
            raise ServiceError(f"processes {left} in namespace {namespace} would not end")
        netns.delete(namespace)
    shutil.rmtree(os.path.join(MUNGE_BASE, namespace), ignore_errors=True)


def _live(namespace: str) -> list[int]:
    return [pid for pid in netns.pids(namespace) if not _zombie(pid)]


def _zombie(pid: int) -> bool:
    if not is_zombie(pid):
        return False
    try:
        os.waitpid(pid, os.WNOHANG)  # ours (spawned daemons): collect it
    except ChildProcessError:
        pass
    return True


def _prepare_munge(munge: str, mungekey: str) -> str:
    """A fresh key (mode 600 in a mode-700 directory of the munge user) and the socket path
    (in a directory every user may reach, as clients must)."""
    key_dir = os.path.join(munge, "key")
    shutil.rmtree(munge, ignore_errors=True)
    os.makedirs(key_dir)
    os.chmod(os.path.dirname(munge), 0o755)
    key = os.path.join(key_dir, "munge.key")
    done = subprocess.run([mungekey, "--create", f"--keyfile={key}"], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise ServiceError(f"mungekey failed: {done.stderr.strip()}")
    user = pwd.getpwnam("munge")
    for path in (munge, key_dir, key):
        os.chown(path, user.pw_uid, user.pw_gid)
    os.chmod(key, 0o600)
    os.chmod(key_dir, 0o700)
    os.chmod(munge, 0o755)
    return os.path.join(munge, "munge.socket.2")


def _write_conf(conf: str, home: str, host: str, socket_path: str) -> None:
    lines = [
        "ClusterName=swiftcloud",
        f"SlurmctldHost={host}({ADDRESS})",
        "SlurmUser=root",
        "SlurmdUser=root",
        "SlurmctldPort=6817",
        "SlurmdPort=6818",
        "AuthType=auth/munge",
        "CredType=cred/munge",
        f"AuthInfo=socket={socket_path}",
        f"StateSaveLocation={os.path.join(home, 'ctld')}",
        f"SlurmdSpoolDir={os.path.join(home, 'spool')}",
        f"SlurmctldPidFile={os.path.join(home, 'slurmctld.pid')}",
        f"SlurmdPidFile={os.path.join(home, 'slurmd.pid')}",
        f"SlurmctldLogFile={os.path.join(home, 'log', 'slurmctld.log')}",
        f"SlurmdLogFile={os.path.join(home, 'log', 'slurmd.log')}",
        "ProctrackType=proctrack/linuxproc",
        "TaskPlugin=task/none",
        "AccountingStorageType=accounting_storage/none",
        "JobAcctGatherType=jobacct_gather/none",
        "JobCompType=jobcomp/filetxt",
        f"JobCompLoc={os.path.join(home, 'log', 'jobs.txt')}",
        "SchedulerType=sched/builtin",
        "SelectType=select/cons_tres",
        "SelectTypeParameters=CR_Core",
        "MpiDefault=none",
        "ReturnToService=2",
        "SlurmdParameters=config_overrides",
        "KillWait=2",
        # Job ids differ from one start to the next. MPICH names its shared-memory segment
        # after the PMI job id, and a killed job leaves the segment in /dev/shm: with ids
        # restarting at 1, a new job 1.0 attached to the dead one's segment and hung in
        # MPI_Init (13 of 17 jobs in the tests, until the stale files were removed).
        f"FirstJobId={1 + int(time.time()) % FIRST_JOB_ID_SPAN}",
        f"NodeName={host} NodeAddr={ADDRESS} CPUs={CPUS} State=UNKNOWN",
        f"PartitionName={PARTITION} Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES",
    ]
    with open(conf, "w", encoding="utf-8") as handle:
        handle.write("\n".join(lines) + "\n")
    os.chmod(conf, 0o644)


def _write_wrappers(directory: str, namespace: str, conf: str, binaries: dict[str, str]) -> None:
    """One executable per Slurm command that runs the real one in the namespace."""
    for command in COMMANDS:
        argv: list[Any] = [binaries["nsenter"], f"--net={netns.NETNS_DIR}/{namespace}", "--", binaries[command]]
        path = os.path.join(directory, command)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(f"#!{sys.executable}\n"
                         f'"""{command} of the trial Slurm in namespace {namespace} (made by swiftcloud)."""\n'
                         "import os, sys\n"
                         f"os.environ['SLURM_CONF'] = {conf!r}\n"
                         f"os.execv({argv[0]!r}, {argv!r} + sys.argv[1:])\n")
        os.chmod(path, stat.S_IRWXU | stat.S_IRGRP | stat.S_IXGRP | stat.S_IROTH | stat.S_IXOTH)
