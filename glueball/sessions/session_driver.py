"""A session's driver: ``python -m glueball.sessions.session_driver SESSION_ID``, launched by the server.

It starts Spark and a GlueContext once, then runs the session's statements one after another in
its main thread, with ``spark``, ``sc`` and ``glueContext`` defined as in a Glue session. A
background thread long-polls the server for work (``Glueball.TakeStatement``): the first call
makes the session READY; a statement it takes is handed to the main thread; while one runs, it
asks whether that statement is being cancelled, and if so cancels the statement's Spark job group
and, should the statement not end within half a second, interrupts the main thread (SIGINT:
``time.sleep`` and plain Python loops stop too). Each result goes back with
``Glueball.FinishStatement``: ``AVAILABLE`` with the text of stdout and the last expression's value,
or, when the code raised, ``AVAILABLE`` with ``Status`` ``error`` and the exception's name, value and
traceback, as Glue's ``StatementOutput`` has them (and as its Jupyter kernel reads them).
The driver ends when the session does (the poll answers that it ended) or when it is signalled.
"""

from __future__ import annotations

import os
import queue
import signal
import sys
import threading
import time
from functools import partial
from typing import Any

from botocore.exceptions import BotoCoreError

from glueball.sessions.execute import Namespace, run_code
from glueball.supervise import outcome

POLL_SECONDS = 10.0
# a driver whose server has not answered for this long ends itself (a restarted server re-adopts drivers that live)
ORPHAN_SECONDS = float(os.environ.get("GLUEBALL_SESSION_ORPHAN_SECONDS", "600"))
_CANCEL_GRACE_SECONDS = 0.5


class Driver:
    """The statement loop of one session."""

    def __init__(self, session_id: str, client: Any, namespace: Namespace) -> None:
        self.session_id = session_id
        self.client = client
        self.namespace = namespace
        self.work: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.running: int | None = None
        self.ended = threading.Event()
        self._cancelled: set[int] = set()
        self._lock = threading.Lock()
        self._finished = threading.Event()  # a statement ended: the poller goes back to waiting for work at once

    def serve(self) -> None:
        poller = threading.Thread(target=self._poll, name="session-poller", daemon=True)
        poller.start()
        while True:
            statement = self.work.get()
            if statement is None:
                return
            number = int(statement["Id"])
            try:
                result = run_code(statement["Code"], self.namespace, f"glueball-statement-{number}", number + 1)
            except KeyboardInterrupt:  # the interrupt came just before or after the code ran
                result = {"Status": "error", "ExecutionCount": number + 1, "ErrorName": "KeyboardInterrupt",
                          "ErrorValue": "", "Traceback": [], "Data": {"TextPlain": ""}}
            finally:
                with self._lock:
                    self.running = None
            # an exception is the statement's output, as Glue (and its kernel) have it: AVAILABLE with an
            # error Status; ERROR is for statements glueball could not run at all
            state = "CANCELLED" if number in self._cancelled else "AVAILABLE"
            if not self._answered(partial(self.client.finish_statement, SessionId=self.session_id, Id=number,
                                          State=state, Output=result)):
                return
            self._finished.set()

    def _answered(self, call: Any) -> bool:
        """Make ``call`` to the server, again while it does not answer (it is restarting) for up to
        ``ORPHAN_SECONDS``; False when it never did (the session then ends, saying so)."""
        since = time.monotonic()
        while True:
            try:
                call()
                return True
            except (BotoCoreError, OSError) as exc:
                if time.monotonic() - since > ORPHAN_SECONDS:
                    self._orphaned()
                    return False
                print(f"glueball session {self.session_id}: the server did not answer: {exc}", file=sys.stderr,
                      flush=True)
                time.sleep(1.0)

    def _orphaned(self) -> None:
        message = f"no server answered for {ORPHAN_SECONDS:.0f} s: the session's server stopped"
        print(f"glueball session {self.session_id}: {message}, ending", file=sys.stderr, flush=True)
        outcome.report(outcome.FAILED, message)
        self.ended.set()
        self.work.put(None)

    def _poll(self) -> None:
        unanswered: float | None = None
        while not self.ended.is_set():
            with self._lock:
                running = self.running
            try:
                answer = self.client.take_statement(SessionId=self.session_id, WaitSeconds=POLL_SECONDS if running
                                                    is None else 0.5, **({"RunningId": running} if running is not
                                                                         None else {}))
                unanswered = None
            except Exception as exc:  # noqa: BLE001 - the server restarts or is gone: try again a little later
                unanswered = unanswered or time.monotonic()
                if time.monotonic() - unanswered > ORPHAN_SECONDS:
                    self._orphaned()
                    return
                print(f"glueball session {self.session_id}: polling failed: {exc}", file=sys.stderr, flush=True)
                time.sleep(1.0)
                continue
            if answer.get("SessionEnded"):
                self.ended.set()
                self.work.put(None)
                if running is not None:
                    os.kill(os.getpid(), signal.SIGINT)
                return
            if running is not None and answer.get("Cancel"):
                self._cancel(running)
            statement = answer.get("Statement")
            if statement:
                with self._lock:  # running from now on: the next poll asks about cancelling it at once
                    self.running = int(statement["Id"])
                self.work.put(statement)
            elif running is not None:
                self._finished.wait(0.2)  # while it runs, ask about cancelling five times a second
                self._finished.clear()

    def interrupt(self, signum: int, frame: Any) -> None:
        """SIGINT: interrupts a running statement (``KeyboardInterrupt`` in it); ignored between statements."""
        if self.running is not None:
            raise KeyboardInterrupt

    def _cancel(self, number: int) -> None:
        self._cancelled.add(number)
        context = self.namespace.get("sc")
        if context is not None:
            context.cancelJobGroup(f"glueball-statement-{number}")
        deadline = time.monotonic() + _CANCEL_GRACE_SECONDS
        while time.monotonic() < deadline:
            with self._lock:
                if self.running != number:
                    return
            time.sleep(0.02)
        with self._lock:
            if self.running == number:
                os.kill(os.getpid(), signal.SIGINT)


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m glueball.sessions.session_driver SESSION_ID", file=sys.stderr)
        return 2
    from glueball.runtime.client import internal_client
    from glueball.runtime.lake import expose
    from glueball.sessions.execute import glue_namespace

    expose()
    namespace = glue_namespace()
    driver = Driver(argv[0], internal_client(), namespace)
    signal.signal(signal.SIGTERM, lambda *_: driver.work.put(None))
    signal.signal(signal.SIGINT, driver.interrupt)
    driver.serve()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
