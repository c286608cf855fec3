"""The contract between service areas and the edge, and glueball's own service model.

``operations`` (what an area serves), ``identity`` (who calls), ``pagination`` (continuation
tokens). ``data/`` holds the botocore-format model of glueball's own ``Glueball.*`` operations,
which boto3 clients (the drivers') and the edge both load.
"""

from __future__ import annotations

from pathlib import Path

MODELS_PATH = Path(__file__).parent / "data"
INTERNAL_SERVICE = "glueball"
