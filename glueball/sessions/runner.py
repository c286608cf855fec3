"""Running sessions: one driver process per session, watched by a thread of the server.

CreateSession records a PROVISIONING session and hands it here: a daemon thread launches its
driver (``python -m glueball.sessions.session_driver``, in its own process group, logs under
``$GLUEBALL_HOME/logs/sessions/<id>/``) and watches it with the supervisor every long-running
thing of glueball shares (:mod:`glueball.supervise`):

- StopSession (any server) moved it to STOPPING -> the driver is ended -> STOPPED;
- no statement for ``IdleTimeout`` minutes -> ended -> TIMEOUT ("idle for N minutes");
- past ``Timeout`` minutes -> ended -> TIMEOUT;
- the driver exits by itself -> FAILED with its exception (``error.log``), exit status or signal, read
  from the outcome record its keeper wrote (:mod:`glueball.supervise.outcome`).

(``GLUEBALL_JOB_TIMEOUT_UNIT_SECONDS`` shortens a minute for tests, as for job runs.) At start-up
(:func:`reconcile`) sessions whose watcher is gone are claimed: a driver still alive on this host is
watched again, one that ended meanwhile settled from its outcome record; a session whose driver never
started ends FAILED ("the server stopped before the run's driver started").
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy import select, update

from glueball.config import Settings
from glueball.errors import EntityNotFoundException
from glueball.objects.locations import local_path, object_store_root
from glueball.runtime.capacity import driver_options
from glueball.runtime.lake import endpoint_variables
from glueball.runtime.pyenv import job_python
from glueball.runtime.warm_driver import EXTRA_PY_FILES_ENV
from glueball.sessions.models import ENDED, LIVE, Session, SessionState
from glueball.sessions.service import SessionService
from glueball.store.claims import claim_runner
from glueball.store.engine import Store
from glueball.store.scoped import Scope
from glueball.store.session_tables import GlueSessionRow
from glueball.supervise import outcome
from glueball.supervise.driverenv import DriverEnv
from glueball.supervise.process import DriverProcess, host_name, process_start, timeout_unit_seconds
from glueball.supervise.supervisor import (
    NEVER_STARTED_MESSAGE,
    Orphan,
    Supervisor,
    orphan_of,
    reconcile_orphans,
    watch_driver,
)
from glueball.supervise.warm import Shape, WarmPool, shape_of

log = logging.getLogger("glueball.sessions")

# (scope, role, session id, seconds) -> temporary credentials of the role (--auth iam)
RunIdentity = Callable[[Scope, str, str, float], tuple[str, str, str]]


class SessionRunner:
    """The sessions of one process: launches their drivers and watches them."""

    def __init__(self, store: Store, settings: Settings, run_identity: RunIdentity | None = None,
                 warm: WarmPool | None = None) -> None:
        self.store = store
        self.settings = settings
        self.run_identity = run_identity
        self.warm = warm or WarmPool(settings.logs / "warm", 0, dict)
        self.supervisor = Supervisor("session", lambda ids: _beat(store, ids))
        self.identity = self.supervisor.identity
        self._scopes: dict[str, Scope] = {}

    def start(self, scope: Scope, session: Session) -> None:
        """Launch the driver of a PROVISIONING session and watch it (in a background thread)."""
        log_dir = session_log_dir(self.settings, session.session_id)
        if log_dir.is_dir():  # an ended session's id used again: its driver's records are not this one's
            outcome.clear(log_dir)
        self._scopes[session.session_id] = scope
        self.supervisor.track(session.session_id)
        self.supervisor.thread(f"session-{session.session_id[:16]}", self._run, session.session_id, None)

    def adopt(self, scope: Scope, session: Session, driver: DriverProcess) -> None:
        """Watch the driver a stopped process launched (reconciliation): to its end, or settle it from its outcome
        record when it ended meanwhile."""
        self._scopes[session.session_id] = scope
        self.supervisor.track(session.session_id)
        self.supervisor.thread(f"session-{session.session_id[:16]}", self._run, session.session_id, driver)

    def stop(self, session_id: str) -> None:
        """Stop a session this process watches now (others notice STOPPING in the store)."""
        self.supervisor.stop(session_id)

    def close(self) -> None:
        self.supervisor.close()

    def _run(self, session_id: str, adopted: DriverProcess | None) -> None:
        scope = self._scopes[session_id]
        service = SessionService(self.store, scope)
        try:
            self._watch(service, session_id, adopted)
        except Exception:
            log.exception("session %s could not be run or recorded", session_id)
            service.settle(session_id, tuple(LIVE), SessionState.FAILED, "internal error of glueball")
        finally:
            self._scopes.pop(session_id, None)
            self.supervisor.untrack(session_id)

    def _watch(self, service: SessionService, session_id: str, adopted: DriverProcess | None) -> None:
        session = service.get(session_id)
        log_dir = session_log_dir(self.settings, session_id)
        proc: subprocess.Popen[bytes] | None = None
        if adopted is None:
            log_dir.mkdir(parents=True, exist_ok=True)
            try:
                shape, env = self._plan(service.scope, session)
            except Exception as exc:  # noqa: BLE001 - a session that cannot start says why
                service.settle(session_id, (SessionState.PROVISIONING, SessionState.STOPPING), SessionState.FAILED,
                               str(exc))
                return
            argv = ["-m", "glueball.sessions.session_driver", session_id]
            logs = (log_dir, log_dir / "output.log", log_dir / "error.log")
            driver = self.warm.take(shape)  # a warm driver of the session's shape: READY in a moment
            proc = (self.warm.assign(driver, argv, env, *logs) if driver is not None
                    else self.warm.start_now(shape, argv, env, *logs))
            service.record_driver(session_id, host_name(), proc.pid, process_start(proc.pid), str(log_dir),
                                  self.identity)
            pid = proc.pid
        else:
            assert adopted.pid is not None
            pid = adopted.pid
        unit = timeout_unit_seconds()
        idle_out = threading.Event()

        def stopping() -> bool:
            try:
                current = service.get(session_id)
            except EntityNotFoundException:
                return True
            if current.state is SessionState.STOPPING or current.state in ENDED:
                return True
            idle = service.idle_since(session_id)
            if current.state is SessionState.READY and idle is not None and \
                    time.time() - idle >= current.idle_timeout_minutes * unit:
                idle_out.set()
                return True
            return False

        stop = self.supervisor.track(session_id)
        ending = watch_driver(pid, proc, adopted, session.created_on + session.timeout_minutes * unit, stop, stopping)
        if ending.timed_out:
            service.settle(session_id, tuple(LIVE), SessionState.TIMEOUT,
                           f"Session exceeded its Timeout of {session.timeout_minutes} minute(s)")
        elif idle_out.is_set():
            service.settle(session_id, tuple(LIVE), SessionState.TIMEOUT,
                           f"Session was idle for its IdleTimeout of {session.idle_timeout_minutes} minute(s)")
        elif ending.stopped:
            service.settle(session_id, tuple(LIVE), SessionState.STOPPED)
        else:  # a session's driver ends by itself only when something went wrong
            _, message = outcome.verdict(outcome.ended(log_dir, ending.code, pid), log_dir / "error.log",
                                         "Session driver")
            service.settle(session_id, tuple(LIVE), SessionState.FAILED,
                           message or "Session driver ended by itself, with exit status 0")
        try:
            log.info("session %s ended %s", session_id, service.get(session_id).state.value)
        except EntityNotFoundException:
            log.info("session %s ended (deleted)", session_id)

    def _plan(self, scope: Scope, session: Session) -> tuple[Shape, dict[str, str]]:
        """The shape of the session's driver (its Python and Spark settings) and its environment.

        Raises:
            ValueError: an invalid capacity or Spark argument; PythonModulesError: modules cannot be installed.
        """
        settings = self.settings
        env = {k: v for k, v in os.environ.items() if k not in ("PYSPARK_SUBMIT_ARGS", "GLUEBALL_SPARK_CONF")}
        endpoint = settings.endpoint
        DriverEnv(home=settings.home, endpoint=endpoint, store_url="" if endpoint else settings.store_url,
                  log_dir=session_log_dir(settings, session.session_id)).apply(env)
        env.update({"AWS_REGION": scope.region, "AWS_DEFAULT_REGION": scope.region, "PYTHONUNBUFFERED": "1"})
        if endpoint:
            env.update(endpoint_variables(endpoint))
            if self.run_identity is not None:
                seconds = session.timeout_minutes * timeout_unit_seconds() + 600
                env["AWS_ACCESS_KEY_ID"], env["AWS_SECRET_ACCESS_KEY"], env["AWS_SESSION_TOKEN"] = self.run_identity(
                    scope, str(session.spec.get("Role") or ""), session.session_id, seconds)
            else:
                env["AWS_ACCESS_KEY_ID"] = session.access_key or env.get("AWS_ACCESS_KEY_ID") or "glueball"
                env.setdefault("AWS_SECRET_ACCESS_KEY", "glueball")
                env.pop("AWS_SESSION_TOKEN", None)
        arguments = dict(session.spec.get("DefaultArguments") or {})
        spec = session.spec
        worker_type, workers = spec.get("WorkerType"), spec.get("NumberOfWorkers")
        if not worker_type and spec.get("MaxCapacity") is None:
            worker_type, workers = "G.1X", 5  # Glue's default for an interactive session
        master = os.environ.get("GLUEBALL_SPARK_MASTER") or "local[*]"
        options = driver_options(worker_type, workers, spec.get("MaxCapacity"), spec.get("GlueVersion"), master,
                                 arguments, settings.home)
        modules = arguments.get("--additional-python-modules")
        python = str(job_python(modules, settings.home, arguments.get("--python-modules-installer-option", ""))) \
            if modules else sys.executable
        extra = [p.strip() for p in str(arguments.get("--extra-py-files") or "").split(",") if p.strip()]
        if extra:
            env[EXTRA_PY_FILES_ENV] = ",".join(str(local_path(p, object_store_root(settings.home))) for p in extra)
        return shape_of(python, options), env


def _beat(store: Store, session_ids: list[str]) -> None:
    if session_ids:
        with store.write() as db:
            db.execute(update(GlueSessionRow).where(GlueSessionRow.session_id.in_(session_ids)).values(heartbeat=time.time()))


def reconcile(store: Store, runner: SessionRunner) -> list[str]:
    """Settle the live sessions whose watching process is gone: watch a live driver again, else FAILED."""
    with store.read() as db:
        rows = list(db.scalars(select(GlueSessionRow).where(GlueSessionRow.state.in_([s.value for s in LIVE]))))
    orphans = [orphan_of(row.session_id, row, session_log_dir(runner.settings, row.session_id), row) for row in rows]

    def claim(orphan: Orphan[Any]) -> bool:
        return claim_runner(store, GlueSessionRow.id, orphan.item.id, orphan.runner, runner.identity)

    def adopt(orphan: Orphan[Any]) -> None:
        row = orphan.item
        assert orphan.driver is not None
        scope = Scope(row.account_id, row.region)
        runner.adopt(scope, SessionService(store, scope).get(row.session_id), orphan.driver)

    def settle(orphan: Orphan[Any]) -> bool:
        row = orphan.item
        service = SessionService(store, Scope(row.account_id, row.region))
        return service.settle(row.session_id, tuple(LIVE), SessionState.FAILED, NEVER_STARTED_MESSAGE)

    return reconcile_orphans(orphans, claim, adopt, settle, "session")


def session_log_dir(settings: Settings, session_id: str) -> Path:
    """Where a session's driver writes its output and error logs."""
    return settings.logs / "sessions" / session_id
