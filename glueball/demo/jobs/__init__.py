"""The demo's Glue job scripts, as files: a job's ``ScriptLocation`` points at them.

The scripts are standalone AWS Glue PySpark scripts (``awsglue`` imports, ``getResolvedOptions``,
``Job.init``/``commit``); importing them runs them, so use these paths instead.
"""

from __future__ import annotations

from pathlib import Path

JOBS_DIR = Path(__file__).resolve().parent
TRANSFORM_SCRIPT = JOBS_DIR / "transform.py"
AGGREGATE_SCRIPT = JOBS_DIR / "aggregate.py"
