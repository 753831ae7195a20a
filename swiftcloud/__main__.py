"""`python -m swiftcloud`: the command line, as the `swiftcloud` console script runs it."""

import sys

from swiftcloud.command import main

sys.exit(main())
