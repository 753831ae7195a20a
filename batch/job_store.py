"""A job that brings its own store: `python -m batch.job_store` is the job's executable.

`swiftcloud submit --storage mosastore|hdfs|chirp` (a store with per-node daemons, and no
`[storage.NAME]` table naming a standing one) submits this driver instead of the run.
On the job's first node it:

1. makes `<run dir>/store/` (mode 700: the store's secret, the daemons' logs, the
   ready file) and starts one `batch.store_node` per node as a step of its own
   (`srun --overlap --ntasks-per-node=1`; one plain process under `-m local`), and
   waits until rank 0 says the store is mounted everywhere, or why not;
2. writes the run's configuration, `<run dir>/store/swiftcloud.toml`: the user's
   configuration and a `[storage.NAME]` table for the mount;
3. loads `--stage-in` paths into the store (what the workflow globs; files it names
   are loaded by the run itself), then runs the workflow as the second step
   (`srun --overlap -n N ... run --mpi`, or `run -n N`);
4. copies what the run wrote (every file of the store but the staged-in ones and the
   engine's `_swiftcloud/` area) to the submitting directory at the same paths, as a
   run without `--storage` leaves them, each through a temporary name;
5. ends the store's step (the stop file: every node unmounts and stops its daemons)
   and exits with the run's status.

SIGTERM to the driver (the job cancelled or out of time) ends the run's step and the
store's before the driver exits.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path
from typing import Any

from batch.node_roles import ROLES
from batch.store_node import READY_FILE, STOP_FILE
from engine.errors import SwiftError
from hostkit import shm
from hostkit.errors import StorageError
from hostkit.program import importable, swiftcloud_command
from mosastore.plugin import register as register_mosastore
from storage_adapters.config import find_config

READY_TIMEOUT_S = 300.0
STOP_TIMEOUT_S = 60.0
ENGINE_AREA = "_swiftcloud"
DEFAULT_STORE_DIR = "/tmp"


class JobStoreError(SwiftError):
    """The store could not be brought up, used or copied out of."""


def node_dir_for(run_dir: str, parent: str = DEFAULT_STORE_DIR) -> str:
    """The node-local directory of this job's store under `parent`: one name on every node."""
    tag = hashlib.sha256(os.path.abspath(run_dir).encode()).hexdigest()[:12]
    return os.path.join(parent, f"swiftcloud-job-{tag}")


def _say(text: str) -> None:
    print(f"swiftcloud job: {text}", file=sys.stderr, flush=True)


def _tail(path: str, lines: int = 15) -> str:
    try:
        return "".join(Path(path).read_text(errors="replace").splitlines(keepends=True)[-lines:]).rstrip()
    except OSError:
        return ""


class Driver:
    """One job's store and run, on the job's first node."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.shared = os.path.join(args.run_dir, "store")
        self.node_dir = node_dir_for(args.run_dir, args.store_dir)
        self.step: subprocess.Popen[bytes] | None = None
        self.run: subprocess.Popen[bytes] | None = None
        self.stopping = False

    # ----- launching steps -----

    def _launch(self, ranks: list[str], argv: list[str], **options: Any) -> subprocess.Popen[bytes]:
        """`argv` as a step of the job (`ranks`: srun's options) or, under -m local, as a child."""
        prefix = ["srun", "--overlap", *ranks] if self.args.executor == "slurm" else []
        return subprocess.Popen([*prefix, *argv], env=importable(os.environ), stdin=subprocess.DEVNULL, **options)

    def start_store(self) -> dict[str, Any]:
        """Start the store on every node; its `[storage.NAME]` table once it is mounted everywhere."""
        os.makedirs(self.shared, mode=0o700, exist_ok=True)
        ROLES[self.args.backend].prepare(self.shared)
        nodes = os.environ.get("SLURM_JOB_NUM_NODES") or os.environ.get("SLURM_NNODES") or "1"
        program = [sys.executable, "-m", "batch.store_node", self.args.backend, "--node-dir", self.node_dir,
                   "--shared-dir", self.shared] + (["--mpi"] if self.args.executor == "slurm" else [])
        log = os.path.join(self.shared, "step.log")
        with open(log, "ab") as output:
            self.step = self._launch([f"--nodes={nodes}", f"--ntasks={nodes}", "--ntasks-per-node=1"], program,
                                     stdout=output, stderr=subprocess.STDOUT)
        ready = os.path.join(self.shared, READY_FILE)
        deadline = time.monotonic() + READY_TIMEOUT_S
        while not os.path.exists(ready):
            if self.step.poll() is not None or time.monotonic() > deadline or self.stopping:
                raise JobStoreError(f"the {self.args.backend} store did not come up on the job's nodes; "
                                    f"{log} ends:\n{_tail(log)}")
            time.sleep(0.2)
        with open(ready, encoding="utf-8") as handle:
            outcome = json.load(handle)
        if outcome.get("error"):
            raise JobStoreError(f"the {self.args.backend} store did not come up: {outcome['error']}")
        return outcome["table"]

    def write_config(self, table: dict[str, Any]) -> str:
        """The run's configuration: the user's, and a table for the job's store."""
        user = find_config(self.args.config)
        text = Path(user).read_text(encoding="utf-8") if user else ""
        lines = [f"{key} = {json.dumps(value)}" for key, value in table.items()]  # TOML accepts JSON scalars
        text += f"\n# added by swiftcloud submit: the job's own store\n[storage.{self.args.backend}]\n"
        text += "\n".join(lines) + "\n"
        try:
            tomllib.loads(text)
        except tomllib.TOMLDecodeError as error:
            raise JobStoreError(f"cannot add the job's [storage.{self.args.backend}] table to {user}: {error}"
                                ) from None
        path = os.path.join(self.shared, "swiftcloud.toml")
        Path(path).write_text(text, encoding="utf-8")
        return path

    def run_workflow(self, config: str) -> int:
        """The workflow's own step; its exit status."""
        if self.args.executor == "slurm":
            engine, ranks = ["run", "--mpi"], [f"--ntasks={self.args.processes}"]
        else:
            engine, ranks = ["run", "-n", str(self.args.processes)], []
        os.environ["SWIFTCLOUD_NODE_FROM_HOST"] = "1"  # workers are named as the store names its nodes
        self.run = self._launch(ranks, swiftcloud_command(*engine, "--config", config,
                                                          "--storage", self.args.backend, *self.args.run_args))
        return self.run.wait()

    # ----- files in and out -----

    def stage_in(self, config: str) -> None:
        from storage_adapters import open_storage

        if not self.args.stage_in:
            return
        store = open_storage(self.args.backend, config)
        try:
            for path in self.args.stage_in:
                if os.path.isabs(path) or not os.path.exists(path):
                    raise JobStoreError(f"--stage-in {path}: must be an existing path under the submitting directory")
                store.put(path, os.path.normpath(path))
        finally:
            store.close()

    def copy_out(self, config: str) -> None:
        """What the run wrote, from the store to the submitting directory."""
        from storage_adapters import open_storage
        from storage_adapters.local import LocalAdapter

        staged = {os.path.normpath(p) for p in self.args.stage_in}
        store = open_storage(self.args.backend, config)
        here = LocalAdapter(os.getcwd(), "submit-dir")
        count = size = 0
        try:
            for path in store.find(""):
                if path.split("/")[0] == ENGINE_AREA or any(path == s or path.startswith(s + "/") for s in staged):
                    continue
                size += here.put_file(store.local_path(path), path)
                count += 1
        finally:
            store.close()
        _say(f"copied {count} files ({size / 1e6:.1f} MB) from the job's {self.args.backend} store "
             f"to {os.getcwd()}")

    # ----- ending -----

    def stop(self) -> None:
        """End the run's step if it runs, then the store's; wait for both."""
        if self.step is not None:
            Path(self.shared, STOP_FILE).touch()  # each node unmounts and stops its daemons, and the step ends
            try:
                self.step.wait(STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                pass
        for process in (self.run, self.step):
            if process is not None and process.poll() is None:
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(STOP_TIMEOUT_S)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()

    def on_signal(self, signum: int, _frame: Any) -> None:
        self.stopping = True
        if self.run is not None and self.run.poll() is None:
            self.run.send_signal(signum)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m batch.job_store", description=__doc__.split("\n\n")[0])
    parser.add_argument("--backend", required=True, help="the store, also the name the run's --storage uses")
    parser.add_argument("--executor", choices=("slurm", "local"), required=True)
    parser.add_argument("-n", dest="processes", type=int, required=True)
    parser.add_argument("--run-dir", required=True)
    parser.add_argument("--store-dir", default=DEFAULT_STORE_DIR,
                        help="node-local directory for the store's data, the same on every node (default /tmp)")
    parser.add_argument("--config")
    parser.add_argument("--stage-in", action="append", default=[])
    parser.add_argument("run_args", nargs=argparse.REMAINDER, help="after --: the run's --run-dir, script, args")
    args = parser.parse_args(argv)
    args.run_args = args.run_args[1:] if args.run_args[:1] == ["--"] else args.run_args
    register_mosastore()  # the job's store is opened by its backend's name, mosastore's too

    driver = Driver(args)
    signal.signal(signal.SIGTERM, driver.on_signal)
    signal.signal(signal.SIGINT, driver.on_signal)
    status = 1
    try:
        config = driver.write_config(driver.start_store())
        driver.stage_in(config)
        status = driver.run_workflow(config)
        if driver.stopping:
            _say("the job is being ended (cancelled, or out of time): the run's results are not copied back")
        else:
            driver.copy_out(config)
    except (SwiftError, StorageError) as error:
        _say(str(error))
        status = status or 1
    except Exception as error:  # anything else is said plainly too: the store still ends below
        _say(f"{type(error).__name__}: {error}")
        status = status or 1
    finally:
        driver.stop()
        shm.sweep()  # what ranks killed on this node left behind
    return status


if __name__ == "__main__":
    sys.exit(main())
