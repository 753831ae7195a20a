"""Suite-wide rules.

- Under `CI=true` a skipped test fails instead (tests/ci_rule.py).
- `--quick` runs the quick tier only (tests/tiers.py), for the edit-test loop.
- With pytest-xdist (`./test.sh` runs two workers), each test module runs whole on
  one worker, so a module's servers start once; the tests of the emulated cluster, the
  batch system and the study run on one worker, one after another (tests/tiers.py).
- Every process the suite starts inherits `SWIFTCLOUD_SUITE_MARK`. At the end, after
  every worker's fixtures are torn down, the suite fails if anything of its own is
  left: a process, a mount, a network namespace, a /dev/shm segment or a temporary
  file (tests/leftovers.py). Before that check, what MPICH leaves of killed jobs is
  swept, as the next MPI run would sweep it. While another session of the suite runs
  beside this one (a quick tier run during the whole suite), what neither can claim
  (namespaces, segments, temporary files, mounts outside this session's temporary
  directory) is listed in the summary instead of failing, and the sweep leaves segments
  younger than its usual grace period: they may be that session's jobs starting.
- Every package's stores and services are registered, as the command line registers them.
- The golden programs outside the MPI sample run under MPI one slice a day
  (tests/tiers.py); the summary names the slice.
"""

from __future__ import annotations

import os
import shutil
import time
import uuid

import pytest

from hostkit import shm
from swiftcloud.packages import register as register_packages
from tests import tiers
from tests.ci_rule import pytest_runtest_makereport  # noqa: F401  (a hook: pytest finds it here)
from tests.leftovers import SUITE_MARK, Snapshot, other_sessions, session_directory

SNAPSHOT = pytest.StashKey[Snapshot]()
GOLDEN_MPI = pytest.StashKey[str]()
STATE_HOME = pytest.StashKey[str]()
UNCLAIMED = pytest.StashKey[str]()
LEFTOVERS_ID = "tests/conftest.py::nothing_left_behind"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--quick", action="store_true",
                     help="run only the quick tier (tests/tiers.py): the edit-test loop, about 2 minutes")


def _is_worker(config: pytest.Config) -> bool:
    """An xdist worker: the controller alone sees the whole run begin and end."""
    return hasattr(config, "workerinput")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "quick: in the quick tier although its module is not (tests/tiers.py)")
    os.environ.setdefault(SUITE_MARK, uuid.uuid4().hex)  # xdist workers inherit the controller's
    register_packages()  # tests start services and open stores by name in-process, as the command line does
    if not _is_worker(config):
        config.stash[GOLDEN_MPI] = tiers.fix_golden_mpi_slice()
        # `services start` lists its state directory in the user's index (hostkit.records):
        # the suite keeps an index of its own, which xdist workers and subprocesses inherit.
        os.environ["XDG_STATE_HOME"] = config.stash[STATE_HOME] = session_directory(os.environ[SUITE_MARK])
        # Compiled scripts (engine.script_cache) are kept there too, not in the user's cache.
        os.environ["XDG_CACHE_HOME"] = os.path.join(config.stash[STATE_HOME], "cache")


def pytest_unconfigure(config: pytest.Config) -> None:
    if STATE_HOME in config.stash:
        shutil.rmtree(config.stash[STATE_HOME], ignore_errors=True)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    if GOLDEN_MPI in config.stash:
        terminalreporter.write_line(config.stash[GOLDEN_MPI])
    if UNCLAIMED in config.stash:
        terminalreporter.write_line(config.stash[UNCLAIMED])


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not config.getoption("quick"):
        return
    kept, dropped = [], []
    for item in items:
        (kept if tiers.is_quick(item) else dropped).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object:
    """xdist's scheduler that hands out whole groups (tests/tiers.py), not single tests."""
    from xdist.scheduler import LoadScopeScheduling  # only with xdist, which calls this hook

    class GroupScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return tiers.worker_group(nodeid)

    return GroupScheduling(config, log)


def pytest_sessionstart(session: pytest.Session) -> None:
    if not _is_worker(session.config):
        session.config.stash[SNAPSHOT] = Snapshot.take()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    config = session.config
    if _is_worker(config) or SNAPSHOT not in config.stash:
        return
    snapshot = config.stash[SNAPSHOT]
    mark, base_temp = os.environ[SUITE_MARK], str(config._tmp_path_factory.getbasetemp())  # type: ignore[attr-defined]
    snapshot.wait_for_processes(mark, base_temp)
    others = other_sessions(mark)
    deadline = time.monotonic() + 10  # a Hydra proxy of the last job may still be ending
    while not others and shm.proxy_running() and time.monotonic() < deadline:
        time.sleep(0.1)
    # As the next MPI run would; the suite's own jobs are over, but another session's may be starting.
    shm.sweep(grace_s=shm.GRACE_S if others else 0.0)
    left = snapshot.left_behind(mark, base_temp)
    if not left.ours and left.unclaimed and others:
        config.stash[UNCLAIMED] = (f"another session of the suite runs beside this one (PIDs {others[:5]}); "
                                   "left, its or this one's:\n" + "\n".join(left.unclaimed))
        return
    if not left.ours and not left.unclaimed:
        return
    report = pytest.TestReport(LEFTOVERS_ID, ("tests/conftest.py", 0, "nothing left behind"), {}, "failed",
                               "the suite left behind:\n" + "\n".join(left.ours + left.unclaimed), "call")
    config.hook.pytest_runtest_logreport(report=report)
    session.exitstatus = pytest.ExitCode.TESTS_FAILED
