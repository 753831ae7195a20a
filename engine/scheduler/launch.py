"""Starting a run under MPI: which process does what, and joining the MPI job.

`enter_run(args)` is the first thing `swiftcloud run` does. It decides:

- **local**: `--transport local` (or `auto` without MPI installed): go on as
  the engine with forked local workers.
- **start mpiexec** (`-n N` with `--transport mpi`, or `auto` with MPI
  installed): run the venv's own `mpiexec` (the `mpich` wheel's, the MPI
  that mpi4py loads) and return its exit status, like `swift-t -n N` (see
  supervise.py). Rank 0 runs `swiftcloud run --mpi ...` (`hostkit.program`:
  the whole product, every package's stores registered); the worker ranks run
  the leaner `python -m engine.scheduler.launch_worker`, which skips the command line
  and compiler imports (a worker opens only staging stores, the storage
  layer's own). On one host every rank is forked from a zygote that has loaded
  what they share (zygote.py); mpiexec starts a stub in each rank's place.
- **elsewhere** (`--cluster`, an option the cluster package adds to `run`):
  its launcher (`args.host_launcher`) runs the job over other hosts.
- **join** (`--mpi`, or any process a launcher started: `mpiexec`, `mpirun`,
  `srun`): initialize MPI; rank 0 goes on as the engine with the MPI
  transport and `-n` taken from the job's size; ranks 1..N-1 serve tasks
  until rank 0 lets them go, then return.

Before MPI starts, the launcher's environment is compared with the MPI
library mpi4py loads: a process started by another MPI's launcher would
abort in MPI_Init with a PMI error, or run as a lone singleton; both are
reported with what to do instead. Once MPI runs, the launcher's variables are
removed from the environment, so that apps (perhaps MPI programs of their
own) do not think they belong to this job.

Imports are deferred to where they are needed: the process that only starts
mpiexec should not pay for mpi4py, and a worker rank not for the CLI.
"""

from __future__ import annotations

import atexit
import importlib
import importlib.util
import os
import sys
import sysconfig
from collections.abc import Callable, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Mapping, NamedTuple, NoReturn

from engine.errors import UsageError
from hostkit import namespaces
from hostkit.errors import EXIT_COMPILE, EXIT_OK, EXIT_RUNTIME
from hostkit.process_end import exit_without_teardown
from hostkit.program import importable, swiftcloud_command
from hostkit.startup import resume_collection

if TYPE_CHECKING:  # argparse costs a worker rank 8 ms to import, for annotations alone
    import argparse

    from engine.scheduler.mpi_world import World

# `--transport auto` picks MPI when it is installed: hello world starts in
# well under the 1 s goal under mpiexec here (see docs/mpi.md for figures).
AUTO_PREFERS_MPI = True
INSTALL_HINT = "install it with ./setup.sh (or: pip install mpi4py mpich)"
TRANSPORT_ENV = "SWIFTCLOUD_TRANSPORT"  # what `--transport auto` means, if set
# A rank forked for a node of the emulated cluster: its node's cgroups' `cgroup.procs`, open
# (descriptors, comma-separated), to enter once MPI is up (`enter_node_cgroups`).
CGROUP_DOORS_VARIABLE = "SWIFTCLOUD_CGROUP_DOORS"
# Set by launchers in every process they start; gone once MPI has read them.
LAUNCHER_PREFIXES = ("PMI_", "PMIX_", "OMPI_", "HYDI_", "HYDRA_", "MPI_LOCAL")
PMI_FAMILY = ("MPICH", "Intel(R) MPI", "MVAPICH")
# MPICH spins a core inside its blocking calls, and MPI_Init, the start-up
# allgather and MPI_Finalize all wait for the slowest rank: worker ranks reach
# MPI_Init while rank 0 is still importing the compiler, and would take its
# core. Heavy yield makes those waits sleep (1.1 s of CPU per rank and second
# of waiting down to 0.2 s here). Our own waits never block inside MPI.
#
# UCX (one of MPICH's network modules, linked into the library whichever is used) patches the
# process's mmap and munmap when the library loads, so that it can drop registrations of freed
# memory with RDMA hardware: 40 ms a process here, 9 of them at once on `run -n 9`. Shared
# memory and TCP register nothing, so the hooks are off; on RDMA hardware UCX then registers
# each message rather than caching, which our messages (a task, a result) are small enough for.
MPICH_SETTINGS = MappingProxyType({"MPIR_CVAR_ENABLE_HEAVY_YIELD": "1", "UCX_MEM_EVENTS": "no"})
# Where Hydra (the wheel's mpiexec) finds hosts to spread a job over: a resource manager's
# allocation (Slurm, PBS, SGE, LSF, Cobalt, LoadLeveler) or a host file. With none of them
# set, every rank of `run -n N` runs on this host.
HOST_LIST_VARIABLES = ("SLURM_JOB_NODELIST", "SLURM_NODELIST", "PBS_NODEFILE", "PE_HOSTFILE",
                       "LSB_DJOB_HOSTFILE", "LSB_MCPU_HOSTS", "COBALT_NODEFILE", "LOADL_HOSTFILE",
                       "HYDRA_HOST_FILE")
# A job on one host: MPICH passes messages between its ranks through its own shared memory,
# and UCX (its network module) need not open its TCP transport, which probes every network
# interface as MPI starts (some 300 sockets and 90 reads of the routing table a rank):
# 9 ranks start 35 ms sooner (0.475 -> 0.44 s for hello world under `run -n 9`). Of its
# shared-memory transports one is enough for UCX to reach every rank (MPICH sends through its
# own): "sm" also set up SysV segments and cross-memory attach, 560 page faults and about
# 10 ms of CPU a rank (a bare 9-rank start 0.455 -> 0.39 s).
ONE_HOST_UCX = MappingProxyType({"UCX_TLS": "self,posix"})
# `run -n N` leaves MPICH's network module at its default. libfabric's shm provider started
# 9 ranks faster (0.22 against 0.30 s), but its addresses name the rank's PID, and MPICH takes
# every rank's address to be as long as its own: ranks whose PIDs have different numbers of
# digits (9999 and 10000) aborted in MPI_Init ("Message truncated").
# A run on other hosts than this machine (the emulated cluster's nodes): the package that
# provides them adds an option to `run` storing its launcher as `args.host_launcher`, which is
# given the arguments and the transport asked for and returns the job's exit status.
HostLauncher = Callable[["argparse.Namespace", str], int]


class Launcher(NamedTuple):
    """What started this process, read from the variables launchers set. (A named tuple: the
    command that only starts mpiexec imports no `dataclasses`, 6 ms of its start.)"""

    name: str
    speaks: str  # "pmi" (MPICH's hydra, srun --mpi=pmi2), "pmix" (Open MPI), "" (unknown)
    size: int | None
    rank: int | None


def enter_run(args: argparse.Namespace) -> int | None:
    """Decide this process's part in `swiftcloud run`: an exit status when that part is
    over (it ran the job under mpiexec, or served as a worker rank), else None to go on
    as the engine (local, or MPI rank 0 with `args.processes` set to the job's size)."""
    launcher = detect_launcher(os.environ)
    transport = getattr(args, "transport", "auto")
    if transport == "auto":
        transport = os.environ.get(TRANSPORT_ENV) or "auto"
        if transport not in ("auto", "local", "mpi"):
            raise UsageError(f"${TRANSPORT_ENV} is {transport!r}; use auto, local or mpi")
    if getattr(args, "mpi", False) or (launcher is not None and transport != "local"):
        return _join(args, launcher)
    host_launcher: HostLauncher | None = getattr(args, "host_launcher", None)
    if host_launcher is not None:
        resume_collection()  # this process's work is the job elsewhere (hostkit.startup)
        return host_launcher(args, transport)
    if launcher is not None and (launcher.size or 1) > 1:
        raise UsageError(f"{launcher.name} started {launcher.size} copies of this run with "
                         "--transport local; each would run the whole script: use --mpi")
    if transport == "local" or (transport == "auto" and not (AUTO_PREFERS_MPI and mpi_installed())):
        return None
    if not mpi_installed():
        raise UsageError(f"--transport mpi needs mpi4py and the mpich wheel; {INSTALL_HINT}")
    if args.processes < 2:
        raise UsageError("-n needs at least 2 processes (1 engine + 1 worker)")
    from engine.scheduler import supervise, zygote_start

    resume_collection()  # this process's work is the job (hostkit.startup)
    env = local_job_environment()
    # Ranks elsewhere could not reach this host's zygote; without the stub there is none.
    if not on_this_host_alone(env) or not zygote_start.installed():
        return supervise.run_job(mpiexec_command(args.processes, sys.argv), env)
    with zygote_start.started(env) as (forker, stub):
        return supervise.run_job(mpiexec_command(args.processes, sys.argv, stub), env, companion=forker.pid)


def mpi_installed() -> bool:
    """Are mpi4py and the venv's own mpiexec (from the mpich wheel) both installed?"""
    return venv_mpiexec() is not None and importlib.util.find_spec("mpi4py") is not None


def venv_mpiexec() -> str | None:
    """This environment's own `mpiexec`: the one a wheel (mpich) put beside our Python,
    matching the MPI library mpi4py loads from the same environment."""
    path = os.path.join(sysconfig.get_path("scripts"), "mpiexec")
    return path if os.access(path, os.X_OK) else None


def mpiexec_command(processes: int, argv: list[str], stub: Sequence[str] = ()) -> list[str]:
    """The mpiexec line for this command line: rank 0 runs it again with `--mpi`, the
    other ranks serve tasks (`worker_rank_command`); each rank's command after `stub`, a
    zygote's stub (zygote_start), if one serves the job."""
    words = argv[1:]
    if words[:1] != ["run"]:
        raise UsageError("cannot repeat this command line under mpiexec; use --transport local")
    mpiexec = venv_mpiexec()
    assert mpiexec is not None
    return [mpiexec, *rank_commands(processes, words[1:], stub)]


def rank_commands(processes: int, words: list[str], stub: Sequence[str] = (),
                  worker_options: Sequence[str] = ()) -> list[str]:
    """mpiexec's words that start a job of `processes` ranks running `swiftcloud run WORDS`:
    rank 0 the engine, the others workers (with mpiexec's `worker_options`, as `-env NAME
    VALUE`), each rank's command after `stub` (a zygote's)."""
    return ["-n", "1", *stub, *swiftcloud_command("run", "--mpi", *words),
            ":", "-n", str(processes - 1), *worker_options, *stub, *worker_rank_command()]


def worker_rank_command() -> list[str]:
    """What a worker rank of an MPI job runs: `worker_main`, by way of `launch_worker`."""
    return [sys.executable, "-m", "engine.scheduler.launch_worker"]


def detect_launcher(env: Mapping[str, str]) -> Launcher | None:
    """Which MPI launcher started this process, if any (by the variables it sets)."""
    def number(name: str) -> int | None:
        value = env.get(name, "")
        return int(value) if value.isdigit() else None

    if "PMI_RANK" in env and ("PMI_FD" in env or "PMI_PORT" in env):
        return Launcher("an MPICH-style mpiexec (PMI)", "pmi", number("PMI_SIZE"),
                        number("PMI_RANK"))
    if "OMPI_COMM_WORLD_SIZE" in env:
        return Launcher("Open MPI's mpirun", "pmix", number("OMPI_COMM_WORLD_SIZE"),
                        number("OMPI_COMM_WORLD_RANK"))
    if "PMIX_RANK" in env:
        return Launcher("a PMIx launcher (srun --mpi=pmix, prterun)", "pmix",
                        number("SLURM_STEP_NUM_TASKS"), number("PMIX_RANK"))
    if "SLURM_STEP_ID" in env and "SLURM_STEP_NUM_TASKS" in env:  # inside srun, not sbatch
        return Launcher("srun", "", number("SLURM_STEP_NUM_TASKS"), number("SLURM_PROCID"))
    return None


def mismatch(launcher: Launcher | None, library: str) -> str | None:
    """Why the MPI library cannot join this launcher's job, or None if it can."""
    if launcher is None or not launcher.speaks:
        return None
    library_speaks = ("pmi" if library.startswith(PMI_FAMILY)
                      else "pmix" if library.startswith("Open MPI") else launcher.speaks)
    if library_speaks == launcher.speaks:
        return None
    return (f"this process was started by {launcher.name}, but mpi4py uses "
            f"{library.splitlines()[0].strip()}, which cannot join that launcher's job")


def _join(args: argparse.Namespace, launcher: Launcher | None) -> int | None:
    """Become a rank of the MPI job: rank 0 returns None (go on as the engine, with the MPI
    transport and the job's size)."""
    world = join(launcher)
    if isinstance(world, int):
        return world
    args.processes = world.size
    args.mpi_world = world
    return None


def join(launcher: Launcher | None = None) -> World | int:
    """Take part in the MPI job this process was started in.

    A worker rank serves tasks here until rank 0 releases it, and its process
    ends here. A process that cannot take part gets its exit status (the reason
    is printed once, by the launcher's rank 0). Rank 0 gets the job's `World`,
    with an exit hook that releases (or aborts) the worker ranks.
    """
    world = _start_mpi(launcher)
    if isinstance(world, int):
        return world
    if world.rank != 0:
        _serve(world)
    atexit.register(_engine_exit, world)
    return world


def _start_mpi(launcher: Launcher | None) -> World | int:
    """Initialize MPI (after checking the launcher); this process's world."""
    import warnings

    if launcher is None:
        launcher = detect_launcher(os.environ)
    if importlib.util.find_spec("mpi4py") is None:
        raise UsageError(f"--mpi needs mpi4py; {INSTALL_HINT}")
    from engine.scheduler import mpi_world

    MPI = load_mpi()
    problem = mismatch(launcher, MPI.Get_library_version())
    if problem is not None:
        return _refuse(problem, launcher)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # mpi4py's own guess at the above
        MPI.Init_thread(MPI.THREAD_FUNNELED)
    comm = MPI.COMM_WORLD
    if comm.Get_size() < 2:
        MPI.Finalize()
        if launcher is not None and (launcher.size or 1) > 1:
            return _refuse(f"{launcher.name} started {launcher.size} processes, but MPI sees each "
                           "as alone: the launcher and mpi4py's MPI library do not match", launcher)
        raise UsageError("--mpi: this process was not started by an MPI launcher (or with -n 1); "
                         "use 'swiftcloud run -n N SCRIPT' to start mpiexec, or "
                         "'mpiexec -n N swiftcloud run --mpi SCRIPT' (N >= 2)")
    peers = comm.allgather((os.uname().nodename, os.getpid()))
    for name in [name for name in os.environ if name.startswith(LAUNCHER_PREFIXES)]:
        del os.environ[name]
    enter_node_cgroups()
    return mpi_world.World(comm, peers)


def load_mpi() -> Any:
    """mpi4py's MPI module, its library loaded and MPI not started (we check the launcher
    first, and finalize ourselves), with MPICH's settings in the environment (read as the
    library loads or by MPI_Init; a user's own win)."""
    import mpi4py

    mpi4py.rc.initialize = False
    mpi4py.rc.finalize = False
    for name, value in MPICH_SETTINGS.items():
        os.environ.setdefault(name, value)
    from mpi4py import MPI

    return MPI


def enter_node_cgroups() -> None:
    """A rank the zygote forked for a node of the emulated cluster enters the node's cgroups
    (`CGROUP_DOORS_VARIABLE`), now that MPI is up. Not before: the waits of MPI's start yield
    the core, and a yield gives way only within one cgroup's run queue, so ranks spinning in
    their nodes' cgroups took the two cores from the ranks they waited for, and a job of 9
    ranks on 8 nodes started 0.2-0.35 s late about one time in four."""
    doors = os.environ.pop(CGROUP_DOORS_VARIABLE, "")
    if doors:
        namespaces.enter([int(door) for door in doors.split(",")])


def _refuse(problem: str, launcher: Launcher | None) -> int:
    if launcher is None or not launcher.rank:
        mpiexec = venv_mpiexec() or "the mpich wheel's mpiexec"
        print(f"swiftcloud: {problem}.\n"
              f"  Start it with the MPI that mpi4py uses: 'swiftcloud run -n N SCRIPT' starts "
              f"{mpiexec} for you, or run '{mpiexec} -n N swiftcloud run --mpi SCRIPT'.\n"
              "  Under Slurm, use 'srun --mpi=pmi2 ...'. To use a cluster's own MPI instead, "
              "rebuild mpi4py against it: 'pip uninstall -y mpich && pip install --no-binary "
              "mpi4py --force-reinstall mpi4py' (with that MPI's mpicc on PATH).",
              file=sys.stderr)
    return EXIT_COMPILE


def _serve(world: World) -> NoReturn:
    """A worker rank's whole part: serve until released, then finalize and exit 0."""
    from engine.scheduler import mpi

    try:
        released = mpi.serve_rank(world)
    except SystemExit as stop:  # SIGTERM: apps already killed by the worker's handler
        _leave(stop.code if isinstance(stop.code, int) else EXIT_RUNTIME)
    except BaseException:  # noqa: BLE001 - ours to fix; the launcher must end the job, not wait
        import traceback

        traceback.print_exc()
        print("swiftcloud: internal error in an MPI worker rank; please report it", file=sys.stderr)
        _leave(EXIT_RUNTIME)
    if not released:  # rank 0 died: finalizing would wait for it forever
        _leave(EXIT_RUNTIME)
    from mpi4py import MPI

    MPI.Finalize()
    exit_without_teardown(EXIT_OK)


def _leave(status: int) -> NoReturn:
    """Exit without finalizing MPI, which tells the launcher to end the whole job."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)


def _engine_exit(world: World) -> None:
    """Rank 0's last act: release the worker ranks (or abort them), then finalize."""
    from engine.scheduler import supervise

    supervise.mark_orderly_exit()
    world.shutdown()


def child_environment() -> dict[str, str]:
    """Our environment, with this checkout importable by the job's ranks anywhere."""
    return importable(os.environ)


def local_job_environment() -> dict[str, str]:
    """The environment of the job `run -n N` starts with the venv's mpiexec: when no resource
    manager gave hosts to spread it over, every rank runs on this host, and UCX is told so."""
    env = child_environment()
    if on_this_host_alone(env):
        for name, value in ONE_HOST_UCX.items():
            env.setdefault(name, value)  # a user's own setting wins
    return env


def on_this_host_alone(env: Mapping[str, str]) -> bool:
    """Does a job `run -n N` starts with environment `env` run every rank on this host (no
    resource manager gave it hosts to spread over)?"""
    return not any(env.get(name) for name in HOST_LIST_VARIABLES)


def worker_main() -> int:
    """Entry point of the worker ranks `swiftcloud run -n N` starts (rank 0 runs the CLI)."""
    try:
        status = join()
    except UsageError as problem:
        print(f"swiftcloud: {problem}", file=sys.stderr)
        return EXIT_COMPILE
    if not isinstance(status, int):
        print("swiftcloud: internal error: a worker rank's entry point started as rank 0; "
              "please report it", file=sys.stderr)
        _leave(EXIT_RUNTIME)
    return status
