"""The batch package's part in the product beside its commands: the trial Slurm, started with
`swiftcloud services start slurm` (not storage: the batch system `submit -m slurm` can use)."""

from __future__ import annotations

from storage_adapters.services import register_service


def register() -> None:
    """Make `slurm` a service (importing it only when used)."""
    register_service("slurm", "batch.slurm_service")
