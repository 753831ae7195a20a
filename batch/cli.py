"""`swiftcloud submit|jobs|cancel`: runs as batch jobs, from the command line."""

from __future__ import annotations

import argparse
import os
import sys

from hostkit.errors import EXIT_OK, EXIT_RUNTIME

SUBMIT_DESCRIPTION = """\
Submit a run to a batch system through PSI/J: the engine and N-1 worker ranks start under the
batch system's MPI launcher (srun for Slurm). Prints the job id and the run directory; with
--wait, follows the job to its end and exits with the run's status.

  swiftcloud submit -m slurm -n 33 --time 02:00:00 --queue normal workflow.swift --n=1000
  swiftcloud submit -p campus --wait workflow.swift      # settings from [submit.campus]
  swiftcloud jobs
  swiftcloud cancel 4242

--storage mosastore|hdfs|chirp without a [storage.NAME] table brings that store up on the job's
nodes for the run, and copies the run's results back here at the end:

  swiftcloud submit -n 9 --storage mosastore --stage-in data --wait workflow.swift

Settings can live in a [submit.NAME] profile in swiftcloud.toml (see docs/batch.md). With
'swiftcloud services start slurm' running, -m slurm uses that trial Slurm."""


def add_commands(subparsers: argparse._SubParsersAction) -> None:
    """Register `submit`, `jobs` and `cancel` on the CLI's sub-parsers."""
    submit = subparsers.add_parser("submit", help="submit a run to Slurm (or PBS, LSF, Flux) through PSI/J",
                                   description=SUBMIT_DESCRIPTION, allow_abbrev=False,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    submit.add_argument("-m", dest="executor", metavar="EXECUTOR",
                        help="slurm (default), pbs, lsf, cobalt, flux, or local (runs here; implies --wait)")
    submit.add_argument("-n", dest="processes", type=int, metavar="N",
                        help="MPI processes: the engine and N-1 workers (default 3)")
    submit.add_argument("-p", "--profile", metavar="NAME", help="settings from [submit.NAME] in swiftcloud.toml")
    submit.add_argument("--time", metavar="HH:MM:SS", help="walltime of the job (default 01:00:00)")
    submit.add_argument("--queue", metavar="Q", help="queue (partition) to submit to")
    submit.add_argument("--account", metavar="A", help="account to charge")
    submit.add_argument("--storage", metavar="NAME", help="--storage of the run (see docs/storage.md)")
    submit.add_argument("--stage-in", action="append", metavar="PATH",
                        help="a file or directory loaded into a store the job brings up (repeatable)")
    submit.add_argument("--wait", action="store_true", help="follow the job to its end; exit with the run's status")
    submit.add_argument("--config", help="configuration file (default: ./swiftcloud.toml if present)")
    submit.add_argument("-I", dest="include", action="append", default=[], metavar="DIR",
                        help="also search DIR for imported modules and #include files")
    submit.add_argument("script", help="the Swift script")
    submit.add_argument("args", nargs=argparse.REMAINDER, help="script arguments (--name=value)")
    submit.set_defaults(handler=run_submit)

    jobs = subparsers.add_parser("jobs", help="list the jobs submitted from this directory and their states")
    jobs.add_argument("--config", help="configuration file (default: ./swiftcloud.toml if present)")
    jobs.set_defaults(handler=run_jobs)

    cancel = subparsers.add_parser("cancel", help="cancel a submitted job (its ranks and apps end)")
    cancel.add_argument("job_id", metavar="ID", help="the id 'submit' printed (see 'swiftcloud jobs')")
    cancel.add_argument("--config", help="configuration file (default: ./swiftcloud.toml if present)")
    cancel.set_defaults(handler=run_cancel)


def _config_and_state(config_path: str | None) -> tuple[dict, str]:
    """The configuration and the services state directory."""
    from storage_adapters.config import read_config, state_dir_from

    config = read_config(config_path)
    return config, os.path.abspath(state_dir_from(config))


def _say(text: str) -> None:
    print(f"swiftcloud: {text}", file=sys.stderr, flush=True)


def run_submit(args: argparse.Namespace) -> int:
    import shutil

    from batch import profiles, submit as batch_submit
    from engine.observe.runlog import next_run_dir
    from engine.script import compile_script

    config, state_dir = _config_and_state(args.config)
    settings = profiles.resolve(config, args.profile, {
        "executor": args.executor, "processes": args.processes, "time": args.time, "queue": args.queue,
        "account": args.account, "storage": args.storage, "stage_in": args.stage_in or None})
    compile_script(args.script, args.include)  # a missing script or a compile error: nothing is submitted
    if settings.executor == "slurm" and batch_submit.use_trial_slurm(state_dir):
        _say("using the trial Slurm of 'swiftcloud services start slurm'")
    run_dir = os.path.abspath(next_run_dir())
    try:
        record, job = batch_submit.submit(settings, args.script, list(args.args), run_dir, config, args.config)
    except BaseException:
        shutil.rmtree(run_dir, ignore_errors=True)  # nothing ran: no run directory either
        raise
    print(f"submitted job {record.id} ({settings.executor}, {settings.processes} processes); "
          f"run directory {os.path.relpath(run_dir)}")
    if not (args.wait or settings.executor == "local"):
        print(f"follow it with 'swiftcloud jobs', cancel it with 'swiftcloud cancel {record.id}'")
        return EXIT_OK
    status = batch_submit.follow(job, record, _say)
    out = batch_submit.tail(os.path.join(run_dir, "job.out"), 50)
    if out:
        print(out)
    if status != 0:
        err = batch_submit.tail(os.path.join(run_dir, "job.err"))
        _say(f"job {record.id} {record.state.lower()} (exit status {status}); "
             f"run directory {os.path.relpath(run_dir)}" + (f"; its stderr ends:\n{err}" if err else ""))
        return EXIT_RUNTIME
    _say(f"job {record.id} completed; run directory {os.path.relpath(run_dir)}")
    return EXIT_OK


def run_jobs(args: argparse.Namespace) -> int:
    from batch import jobs as job_records, submit as batch_submit
    from batch.profiles import DEFAULT_POLL_S

    _, state_dir = _config_and_state(args.config)
    records = job_records.all_records()
    if not records:
        print("no jobs submitted from this directory")
        return EXIT_OK
    batch_submit.use_trial_slurm(state_dir)
    print(f"{'ID':>10}  {'EXECUTOR':8}  {'STATE':10}  {'EXIT':>4}  {'AGE':>7}  RUN DIRECTORY  SCRIPT")
    for record in records:
        if not record.final and record.executor != "local":
            job = batch_submit.attach(record, DEFAULT_POLL_S)
            status = job.status
            if status.state.name != "NEW":
                record.state, record.exit_code = status.state.name, status.exit_code
                job_records.save(record)
        exit_code = "" if record.exit_code is None else str(record.exit_code)
        print(f"{record.id:>10}  {record.executor:8}  {record.state.lower():10}  {exit_code:>4}  "
              f"{job_records.age(record):>7}  {os.path.relpath(record.run_dir)}  {record.script}")
    return EXIT_OK


def run_cancel(args: argparse.Namespace) -> int:
    from datetime import timedelta

    from psij import JobState

    from batch import jobs as job_records, submit as batch_submit
    from batch.profiles import DEFAULT_POLL_S

    _, state_dir = _config_and_state(args.config)
    record = job_records.load(args.job_id)
    if record.final:
        print(f"job {record.id} already ended ({record.state.lower()})")
        return EXIT_OK
    batch_submit.use_trial_slurm(state_dir)
    job = batch_submit.attach(record, DEFAULT_POLL_S)
    job.cancel()
    status = job.wait(timeout=timedelta(seconds=60), target_states=[JobState.CANCELED])
    if status is None or not status.state.final:
        _say(f"job {record.id}: cancel sent, but it has not ended within 60 s")
        return EXIT_RUNTIME
    record.state, record.exit_code = status.state.name, status.exit_code
    job_records.save(record)
    print(f"job {record.id} {record.state.lower()}")
    return EXIT_OK
