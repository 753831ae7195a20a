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

ROOT = Path(__file__).resolve().parents[1]
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


def job_spec(settings: SubmitSettings, script: str, script_args: list[str], run_dir: str) -> Any:
    """The PSI/J job description of one run."""
    from psij import JobAttributes, JobSpec, ResourceSpecV1

    storage = ["--storage", settings.storage] if settings.storage else []
    if settings.executor == "local":
        engine = ["-m", "engine.cli", "run", "-n", str(settings.processes)]
        resources = ResourceSpecV1(process_count=1)
    else:
        engine = ["-m", "engine.cli", "run", "--mpi"]
        resources = ResourceSpecV1(process_count=settings.processes)
    environment = {"PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
                   **settings.environment}
    if settings.executor == "slurm":
        environment["SLURM_MPI_TYPE"] = "pmi2"
    return JobSpec(
        executable=sys.executable,
        arguments=[*engine, "--run-dir", run_dir, *storage, script, *script_args],
        directory=os.getcwd(),
        name=f"swiftcloud-{Path(script).stem}",
        environment=environment,
        stdout_path=os.path.join(run_dir, "job.out"),
        stderr_path=os.path.join(run_dir, "job.err"),
        resources=resources,
        attributes=JobAttributes(duration=settings.duration(), queue_name=settings.queue,
                                 account=settings.account),
        pre_launch=_pre_launch(settings.modules, run_dir),
        launcher=LAUNCHERS[settings.executor],
    )


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


def submit(settings: SubmitSettings, script: str, script_args: list[str], run_dir: str) -> tuple[JobRecord, Any]:
    """Submit one run; returns its record (saved) and the PSI/J job."""
    from psij import Job
    from psij.exceptions import SubmitException

    job = Job(job_spec(settings, script, script_args, run_dir))
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
