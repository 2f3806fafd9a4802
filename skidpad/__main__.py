"""``python -m skidpad``: the same command line as the ``skidpad`` console script."""

import sys

from skidpad.cli import main

sys.exit(main())
