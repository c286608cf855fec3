"""One glueball installation: settings, store and the callers' directory.

Both the HTTP server and the in-process client serve requests through
:meth:`Glueball.handle`, so embedded use and server use behave the same.
"""

from __future__ import annotations

import json
import logging
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from glueball.api.dispatch import INTERNAL_PREFIX, dispatch, dispatch_internal, load_handlers
from glueball.api.identity import AccountDirectory, Caller
from glueball.api.model import TARGET_PREFIX
from glueball.clock import SchedulerClock
from glueball.config import Settings
from glueball.errors import GlueError, SerializationException, UnknownOperationException
from glueball.store.engine import Store

if TYPE_CHECKING:
    from glueball.crawlers.runner import CrawlRunner
    from glueball.jobs.runner import JobRunner
    from glueball.workflows.scheduler import Scheduler

log = logging.getLogger("glueball")


@dataclass
class WireResponse:
    status: int
    body: bytes
    request_id: str


def _default(value: Any) -> Any:
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


class Glueball:
    """The Glue service of one ``GLUEBALL_HOME``."""

    def __init__(self, settings: Settings | None = None, accounts: AccountDirectory | None = None,
                 migrate: bool = True) -> None:
        self.settings = settings or Settings()
        self.settings.ensure_dirs()
        self.store = Store(self.settings.database_url, migrate=migrate)
        self.accounts = accounts or AccountDirectory()
        load_handlers()
        self._crawls: CrawlRunner | None = None
        self._jobs: JobRunner | None = None
        self.clock = SchedulerClock()
        self.scheduler: Scheduler | None = None
        from glueball.crawlers.runner import reconcile
        from glueball.jobs.runner import reconcile as reconcile_job_runs

        reconcile(self)  # crawls a dead process left RUNNING end FAILED
        reconcile_job_runs(self)  # job runs a dead process left: watched again, or FAILED

    @property
    def crawls(self) -> CrawlRunner:
        """The crawls this process runs (background threads), created on first use."""
        if self._crawls is None:
            from glueball.crawlers.runner import CrawlRunner

            self._crawls = CrawlRunner(self)
        return self._crawls

    @property
    def jobs(self) -> JobRunner:
        """The job runs this process launches and watches (background threads), created on first use."""
        if self._jobs is None:
            from glueball.jobs.runner import JobRunner

            self._jobs = JobRunner(self)
        return self._jobs

    def start_scheduler(self, interval: float | None = None) -> Scheduler:
        """Run the scheduler in this process (``glueball server`` and the demo do; embedded clients do not)."""
        if self.scheduler is None:
            from glueball.workflows.scheduler import Scheduler

            self.scheduler = Scheduler(self, interval)
            self.scheduler.start()
        return self.scheduler

    def action_ended(self) -> None:
        """A job run or crawl of this process ended: let the scheduler look at workflow runs now."""
        if self.scheduler is not None:
            self.scheduler.poke()

    def caller(self, authorization: str | None) -> Caller:
        return self.accounts.caller(authorization, self.settings.region)

    def handle(self, target: str | None, body: bytes, authorization: str | None) -> WireResponse:
        """Serve one AWS JSON 1.1 request; never raises."""
        request_id = str(uuid.uuid4())
        try:
            prefix, operation = self._operation(target)
            try:
                request = json.loads(body) if body.strip() else {}
            except (UnicodeDecodeError, json.JSONDecodeError) as exc:
                raise SerializationException(f"Request body is not valid JSON: {exc}") from exc
            serve = dispatch if prefix == TARGET_PREFIX else dispatch_internal
            response = serve(self, self.caller(authorization), operation, request)
            return WireResponse(200, json.dumps(response, default=_default).encode(), request_id)
        except GlueError as err:
            return WireResponse(err.status, json.dumps(err.to_wire()).encode(), request_id)
        except Exception:  # a bug of ours: answer like Glue, keep the trace in the log
            log.exception("request %s failed", request_id)
            body_ = {"__type": "InternalServiceException", "message": f"Internal error, request {request_id}"}
            return WireResponse(500, json.dumps(body_).encode(), request_id)

    @staticmethod
    def _operation(target: str | None) -> tuple[str, str]:
        """``(prefix, name)`` of ``AWSGlue.<name>`` (Glue) or ``Glueball.<name>`` (glueball's own)."""
        if not target:
            raise UnknownOperationException("Missing X-Amz-Target header")
        prefix, _, name = target.partition(".")
        if prefix not in (TARGET_PREFIX, INTERNAL_PREFIX) or not name:
            raise UnknownOperationException(f"Unknown operation {target}")
        return prefix, name

    def close(self) -> None:
        if self.scheduler is not None:
            self.scheduler.close()
        if self._crawls is not None:
            self._crawls.close()
        if self._jobs is not None:
            self._jobs.close()
        self.store.dispose()
