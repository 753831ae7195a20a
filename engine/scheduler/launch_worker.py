"""What a worker rank of `swiftcloud run -n N` runs: `python -m engine.scheduler.launch_worker`
(rank 0 runs the command line; `launch` says who does what).

The collector is paused before the imports (`hostkit.startup`) and resumed as the rank's
first session starts (`mpi.serve_rank`).
"""

from __future__ import annotations

import sys

from hostkit.startup import pause_collection

if __name__ == "__main__":
    pause_collection()
    from engine.scheduler.launch import worker_main  # deferred: imported with the collector paused

    sys.exit(worker_main())
