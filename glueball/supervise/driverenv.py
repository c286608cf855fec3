"""The environment contract between a run's launcher and its driver process.

The launcher (:func:`glueball.jobs.launcher.plan_launch`, for job runs and data quality runs)
writes it with :meth:`DriverEnv.apply`; everything on the driver side that needs to know which
run it is in reads it with :func:`current` - the job's arguments (``glueball.runtime.job``),
bookmarks (``glueball.runtime.bookmarks``), streaming metrics
(``glueball.runtime.streaming.metrics``) and data quality publishing
(``glueball.dataquality.publish``) - instead of each parsing variables of its own.

=============================  ==========================================================
``GLUEBALL_HOME``              the installation (object store, logs)
``GLUEBALL_ENDPOINT``          the server that launched the run (``aws`` for AWS itself);
                               unset: an embedded installation over ``GLUEBALL_STORE``
``GLUEBALL_STORE``             the store URL of an embedded installation
``GLUEBALL_JOB_NAME``          the job (``data-quality-<kind>`` for a data quality run)
``GLUEBALL_JOB_RUN_ID``        the run id
``GLUEBALL_JOB_ATTEMPT``       0 for a first attempt, n for ``<run id>_attempt_<n>``
``GLUEBALL_PREVIOUS_RUN_ID``   the attempt this one retries
``GLUEBALL_JOB_LOG_DIR``       the run's log directory (metrics files, outcome files)
=============================  ==========================================================
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

HOME = "GLUEBALL_HOME"
ENDPOINT = "GLUEBALL_ENDPOINT"
STORE = "GLUEBALL_STORE"
JOB_NAME = "GLUEBALL_JOB_NAME"
RUN_ID = "GLUEBALL_JOB_RUN_ID"
ATTEMPT = "GLUEBALL_JOB_ATTEMPT"
PREVIOUS_RUN_ID = "GLUEBALL_PREVIOUS_RUN_ID"
LOG_DIR = "GLUEBALL_JOB_LOG_DIR"
# variables of one run that must not leak into the next run a driver launches
RUN_VARIABLES = (JOB_NAME, RUN_ID, ATTEMPT, PREVIOUS_RUN_ID, LOG_DIR)
AWS_ENDPOINT = "aws"


@dataclass(frozen=True)
class DriverEnv:
    """Which run a driver process is, and whom it reports to."""

    home: Path | None = None
    endpoint: str = ""
    store_url: str = ""
    job_name: str | None = None
    run_id: str | None = None
    attempt: int = 0
    previous_run_id: str | None = None
    log_dir: Path | None = None

    @property
    def in_run(self) -> bool:
        """Whether this process is the driver of a run a launcher started."""
        return bool(self.job_name and self.run_id)

    @property
    def on_aws(self) -> bool:
        return self.endpoint == AWS_ENDPOINT

    def apply(self, env: dict[str, str]) -> None:
        """Write this contract into a driver's environment (unset members are removed)."""
        values = {HOME: str(self.home) if self.home else None, ENDPOINT: self.endpoint or None,
                  STORE: self.store_url or None, JOB_NAME: self.job_name, RUN_ID: self.run_id,
                  ATTEMPT: str(self.attempt), PREVIOUS_RUN_ID: self.previous_run_id,
                  LOG_DIR: str(self.log_dir) if self.log_dir else None}
        for name, value in values.items():
            if value is None:
                env.pop(name, None)
            else:
                env[name] = value


def current(environ: Mapping[str, str] | None = None) -> DriverEnv:
    """The contract as this process received it (``os.environ`` by default)."""
    env = os.environ if environ is None else environ
    try:
        attempt = int(env.get(ATTEMPT) or 0)
    except ValueError:
        attempt = 0
    return DriverEnv(
        home=Path(env[HOME]).expanduser() if env.get(HOME) else None,
        endpoint=env.get(ENDPOINT, ""),
        store_url=env.get(STORE, ""),
        job_name=env.get(JOB_NAME) or None,
        run_id=env.get(RUN_ID) or None,
        attempt=attempt,
        previous_run_id=env.get(PREVIOUS_RUN_ID) or None,
        log_dir=Path(env[LOG_DIR]) if env.get(LOG_DIR) else None,
    )
