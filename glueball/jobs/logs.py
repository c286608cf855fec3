"""Where a job run's logs are, and reading them back (``glueball logs RUN_ID``).

Each run has ``$GLUEBALL_HOME/logs/jobs/<job, %-quoted>/<run id>/`` with ``output.log`` (the
driver's stdout: Glue's ``/aws-glue/jobs/output`` stream of the run), ``error.log`` (stderr:
``/aws-glue/jobs/error``), ``events/`` (Spark's event log), ``driver.json`` and ``outcome.json``
(the driver's process and how it ended: :mod:`glueball.supervise.outcome`) and ``metrics.json``
(ExecutionTime, DPUSeconds, rows and bytes read and written) once the run ended. Run ids are
unique, so a run's directory is found from its id alone.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

OUTPUT_LOG = "output.log"
ERROR_LOG = "error.log"
METRICS_FILE = "metrics.json"


@dataclass(frozen=True)
class RunLogs:
    """The log files of one run."""

    job_name: str
    run_id: str
    directory: Path

    @property
    def output(self) -> Path:
        return self.directory / OUTPUT_LOG

    @property
    def error(self) -> Path:
        return self.directory / ERROR_LOG

    @property
    def metrics(self) -> Path:
        return self.directory / METRICS_FILE


def jobs_log_root(home: Path) -> Path:
    return home / "logs" / "jobs"


def find_run_logs(home: Path, run_id: str) -> RunLogs | None:
    """The logs of run ``run_id`` under ``home``, or None if it has none there."""
    if not run_id or "/" in run_id or run_id in (".", ".."):
        return None
    for directory in jobs_log_root(home).glob(f"*/{run_id}"):
        if directory.is_dir():
            return RunLogs(unquote(directory.parent.name), run_id, directory)
    return None


def read_text(path: Path, limit: int | None = None) -> str:
    """A log's text (its last ``limit`` bytes when given); empty if the file does not exist."""
    try:
        with path.open("rb") as handle:
            if limit is not None:
                handle.seek(0, 2)
                handle.seek(max(0, handle.tell() - limit))
            return handle.read().decode("utf-8", "replace")
    except FileNotFoundError:
        return ""


def follow(path: Path, position: int = 0) -> Iterator[tuple[str, int]]:
    """New text appended to ``path`` since ``position``, with the new position (one read)."""
    try:
        with path.open("rb") as handle:
            handle.seek(position)
            data = handle.read()
    except FileNotFoundError:
        return
    if data:
        yield data.decode("utf-8", "replace"), position + len(data)
