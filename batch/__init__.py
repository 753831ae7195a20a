"""Running on batch systems: submission through PSI/J (`swiftcloud submit|jobs|cancel`) and a
trial Slurm in a network namespace (`swiftcloud services start slurm`)."""
