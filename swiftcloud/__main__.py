"""`python -m swiftcloud`: the command line, as the `swiftcloud` console script runs it."""

import sys

from swiftcloud.cli import main

sys.exit(main())
