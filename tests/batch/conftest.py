"""The trial Slurm (slurm-wlm + munge in a network namespace), started once for the batch tests.

Started the way `swiftcloud services start slurm` starts it, in a temporary state
directory, and stopped at the end; then no daemon, job process, namespace or munge
directory of it may remain.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from batch import slurm_service
from cluster import netns
from hostkit.records import ServiceRecord
from tests.batch.trial import swiftcloud


@pytest.fixture(scope="package")
def slurm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServiceRecord, Path]]:
    state = tmp_path_factory.mktemp("slurm-state")
    started = swiftcloud("services", "start", "slurm", cwd=state, state=state)
    assert started.returncode == 0, started.stderr
    record = slurm_service.status(str(state))
    daemons = [record.pid, *record.info["daemons"].values()]
    try:
        yield record, state
    finally:
        assert slurm_service.stop(str(state))
        assert not netns.exists(record.info["namespace"])
        assert not os.path.exists(os.path.join(slurm_service.MUNGE_BASE, record.info["namespace"]))
        assert not [pid for pid in daemons if psutil.pid_exists(pid) and
                    psutil.Process(pid).status() != psutil.STATUS_ZOMBIE]
        assert slurm_service.status(str(state)) is None
