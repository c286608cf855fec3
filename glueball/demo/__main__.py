"""``python -m glueball.demo`` (``make demo``): the daily orders pipeline, see :mod:`glueball.demo.pipeline`."""

import sys

from glueball.demo.pipeline import main

sys.exit(main())
