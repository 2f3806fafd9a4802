"""``python -m cli``: the same command line as the ``skidpad`` console script."""

import sys

from cli import main

sys.exit(main())
