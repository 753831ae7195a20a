"""One run as a batch job, through PSI/J: build the job, submit it, follow it, cancel it.

The job runs `swiftcloud run --mpi` as every rank under the batch system's MPI
launcher: rank 0 is the engine, the others serve tasks. For Slurm that is
PSI/J's `srun` launcher with `SLURM_MPI_TYPE=pmi2` (the MPICH wheel speaks
PMI-2); for PBS, LSF, Cobalt and Flux PSI/J's `mpirun` launcher; `local` runs
`swiftcloud run -n N` (our own mpiexec) as a child of this command. The run
directory is made here, before submission, and passed with `--run-dir`, so
the user knows where the run log and the job's stdout/stderr (`job.out`,
`job.err`) will be. PSI/J's scripts and exit-code files go to
`.swiftcloud/jobs/psij`, which compute nodes must see (the submitting
directory is on the shared file system on clusters).

When `swiftcloud services start slurm` runs in this state directory, Slurm
commands go to that trial Slurm (its wrappers first on PATH, its SLURM_CONF).
"""

from __future__ import annotations

import os
import shlex
import sys
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

from batch.jobs import JobRecord, jobs_dir, save
from batch.profiles import SubmitSettings
from engine.errors import SwiftError, UsageError
from hostkit.program import importable, swiftcloud_command
from storage_adapters.config import find_config

LAUNCHERS = {"slurm": "srun", "pbs": "mpirun", "lsf": "mpirun", "cobalt": "mpirun", "flux": "mpirun",
             "local": "single"}


class SubmitError(SwiftError):
    """The batch system refused the job or could not be asked about it."""


def use_trial_slurm(state_dir: str) -> bool:
    """Point Slurm commands at the trial Slurm of `state_dir` if it runs; True if it does."""
    from batch import slurm_service

    record = slurm_service.status(state_dir)
    if record is None:
        return False
    os.environ.update(slurm_service.slurm_environment(record))
    return True


def own_store(settings: SubmitSettings, config: dict[str, Any]) -> str | None:
    """The backend whose daemons the job starts itself, or None.

    A store with per-node daemons (MosaStore, HDFS, Chirp: `batch.node_roles`) named by
    `--storage` with no `[storage.NAME]` table for a standing one is brought up inside the job.
    """
    from batch.node_roles import ROLES

    name = settings.storage
    if name is None or name not in ROLES or name in config.get("storage", {}):
        return None
    if settings.executor not in ("slurm", "local"):
        raise UsageError(f"--storage {name}: bringing up the store inside a {settings.executor} job is not "
                         f"supported yet (only slurm and local); run a standing store and name it in a "
                         f"[storage.{name}] table (docs/batch.md)")
    return name


def job_spec(settings: SubmitSettings, script: str, script_args: list[str], run_dir: str,
             config: dict[str, Any], config_path: str | None = None) -> Any:
    """The PSI/J job description of one run."""
    from psij import JobAttributes, JobSpec, ResourceSpecV1

    run = ["--run-dir", run_dir, script, *script_args]
    launcher = LAUNCHERS[settings.executor]
    backend = own_store(settings, config)
    _check_store_settings(settings.stage_in, backend, settings.store_dir)
    if backend is not None:
        # The driver runs once, on the first node, and starts the store's and the run's steps.
        found = find_config(config_path)
        arguments = ["-m", "batch.job_store", "--backend", backend,
                     "--executor", settings.executor, "-n", str(settings.processes), "--run-dir", run_dir,
                     "--store-dir", settings.store_dir,
                     *(["--config", os.path.abspath(found)] if found else []),
                     *(f"--stage-in={path}" for path in settings.stage_in), "--", *run]
        launcher = "single"
    else:
        storage = ["--storage", settings.storage] if settings.storage else []
        arguments = swiftcloud_command(*_run_command(settings), *storage, *run)[1:]
    processes = 1 if settings.executor == "local" else settings.processes
    environment = {"PYTHONPATH": importable(os.environ)["PYTHONPATH"], **settings.environment}
    if settings.executor == "slurm":
        environment["SLURM_MPI_TYPE"] = "pmi2"
    return JobSpec(
        executable=sys.executable,
        arguments=arguments,
        directory=os.getcwd(),
        name=f"swiftcloud-{Path(script).stem}",
        environment=environment,
        stdout_path=os.path.join(run_dir, "job.out"),
        stderr_path=os.path.join(run_dir, "job.err"),
        resources=ResourceSpecV1(process_count=processes),
        attributes=JobAttributes(duration=settings.duration(), queue_name=settings.queue,
                                 account=settings.account),
        pre_launch=_pre_launch(settings.modules, run_dir),
        launcher=launcher,
    )


def _check_store_settings(paths: list[str], backend: str | None, store_dir: str) -> None:
    if paths and backend is None:
        raise UsageError("--stage-in loads files into a store the job brings up (--storage mosastore, hdfs or chirp "
                         "without a [storage.NAME] table); other stores are loaded with 'swiftcloud put'")
    if not os.path.isabs(store_dir):
        raise UsageError(f"store_dir {store_dir!r}: must be an absolute path (a node-local directory)")
    for path in paths:
        if os.path.isabs(path) or os.path.normpath(path).startswith("..") or not os.path.exists(path):
            raise UsageError(f"--stage-in {path}: not an existing file or directory under the submitting directory")


def _run_command(settings: SubmitSettings) -> list[str]:
    """`run` as every rank runs it under the batch system's launcher, or as one process under -m local."""
    return ["run", "-n", str(settings.processes)] if settings.executor == "local" else ["run", "--mpi"]


def _pre_launch(modules: list[str], run_dir: str) -> str | None:
    """A script PSI/J sources before the launch, loading the profile's modules."""
    if not modules:
        return None
    path = os.path.join(run_dir, "pre_launch.sh")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("# made by swiftcloud submit: the profile's modules\n")
        handle.writelines(f"module load {shlex.quote(module)}\n" for module in modules)
    return path


def executor(name: str, poll_seconds: float) -> Any:
    """The PSI/J executor `name`, polling the queue every `poll_seconds`."""
    from psij import JobExecutor

    if name == "local":
        return JobExecutor.get_instance("local")
    from psij.executors.batch.batch_scheduler_executor import BatchSchedulerExecutorConfig

    config = BatchSchedulerExecutorConfig(work_directory=Path(jobs_dir(), "psij"), keep_files=True,
                                          queue_polling_interval=max(1, round(poll_seconds)),
                                          initial_queue_polling_delay=1)
    return JobExecutor.get_instance(name, config=config)


def submit(settings: SubmitSettings, script: str, script_args: list[str], run_dir: str,
           config: dict[str, Any], config_path: str | None = None) -> tuple[JobRecord, Any]:
    """Submit one run; returns its record (saved) and the PSI/J job."""
    from psij import Job
    from psij.exceptions import SubmitException

    job = Job(job_spec(settings, script, script_args, run_dir, config, config_path))
    try:
        executor(settings.executor, settings.poll_seconds).submit(job)
    except (SubmitException, OSError) as error:
        hint = ""
        if settings.executor == "slurm" and "configuration" in str(error):
            hint = ("\n(no Slurm is configured here; to try submission on this machine, start the trial one:"
                    " 'swiftcloud services start slurm')")
        raise SubmitError(f"the {settings.executor} executor refused the job: {_first_lines(str(error))}{hint}"
                          ) from None
    record = JobRecord(id=str(job.native_id), executor=settings.executor, script=script, args=script_args,
                       run_dir=run_dir, submitted=time.time())
    save(record)
    return record, job


def attach(record: JobRecord, poll_seconds: float) -> Any:
    """A PSI/J job following an earlier submission, with its current state known."""
    from psij import Job, JobState

    if record.executor == "local":
        raise UsageError(f"job {record.id} ran under 'submit -m local', which has no queue to ask")
    job = Job()
    executor(record.executor, poll_seconds).attach(job, record.id)
    # The first poll comes within a second of attaching; wait for it to tell the state.
    job.wait(timeout=timedelta(seconds=poll_seconds + 5), target_states=[JobState.QUEUED])
    return job


def follow(job: Any, record: JobRecord, say: Callable[[str], None]) -> int:
    """Wait for the job's end, saying each change of state; returns the run's exit status."""
    from psij import JobState

    seen = {"state": ""}

    def changed(_job: Any, status: Any) -> None:
        name = status.state.name
        if name != seen["state"] and not status.state.final:  # the end is told by the caller
            seen["state"] = name
            say(f"job {record.id}: {name.lower()}")

    job.set_job_status_callback(changed)
    status = job.wait()
    record.state = status.state.name
    record.exit_code = status.exit_code
    save(record)
    if status.state == JobState.COMPLETED and not status.exit_code:
        return 0
    return status.exit_code or 1


def _first_lines(text: str, count: int = 6) -> str:
    return "\n".join(text.strip().splitlines()[:count])


def tail(path: str, lines: int = 25) -> str:
    """The last lines of a job's output file, or '' if there is none."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return "".join(handle.readlines()[-lines:]).rstrip()
    except OSError:
        return ""
