"""Throwaway servers for the test suite and the benchmarks, started on free loopback ports.

``postgres()`` and ``mariadb()`` answer a running server, started on first use from Debian's packages
(``postgresql``, ``mariadb-server``; ``make services`` installs them) in a cluster under
``build/services/`` and stopped by :func:`stop_all` (the suite's session end, or this process's exit).
A user's own servers on 5432 or 3306 are never touched. To use an existing server instead, set
``GLUEBALL_TEST_POSTGRES_URL`` (``postgresql://user[:password]@host:port/database``) or
``GLUEBALL_TEST_MARIADB_URL`` (``mysql://user[:password]@host:port/database``); the user must be
able to create and drop databases.

``kafka()`` answers an Apache Kafka broker (KRaft) started on first use from the jars of glueball's
``kafka-broker`` feature, with PLAINTEXT, TLS, mutual-TLS and SASL (SCRAM-SHA-512, PLAIN) listeners
(``tools.services.kafka``); there is no variable for an existing broker, since the TLS and SASL tests need
the certificates and users this one is made with.

``python -m tools.services env`` starts both databases and prints their URLs as shell exports, for running
scripts by hand against them (``python -m tools.services stop`` ends them).
"""

from __future__ import annotations

import atexit
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from tools.services.base import DatabaseServer, ServiceError
from tools.services.kafka import KafkaBroker
from tools.services.mariadb import MariaDB
from tools.services.postgres import PostgreSQL

__all__ = ["DatabaseServer", "KafkaBroker", "MariaDB", "PostgreSQL", "ServiceError", "kafka", "mariadb", "postgres",
           "stop_all"]

_lock = threading.Lock()
_running: dict[str, Any] = {}
# servers are started from this one long-lived thread: a server dies with the thread that started it
# (tools.services.base.die_with_parent), and a test may first ask for one from a short-lived thread
_launcher = ThreadPoolExecutor(max_workers=1, thread_name_prefix="glueball-services")


def _get(name: str, start: Callable[[], Any]) -> Any:
    with _lock:
        server = _running.get(name)
        if server is None:
            server = _launcher.submit(start).result()
            _running[name] = server
        return server


def postgres() -> PostgreSQL:
    """The suite's PostgreSQL: ``GLUEBALL_TEST_POSTGRES_URL``'s, or a throwaway cluster started now."""
    server = _get("postgres", lambda: PostgreSQL.from_environment() or PostgreSQL.start_throwaway())
    assert isinstance(server, PostgreSQL)
    return server


def mariadb() -> MariaDB:
    """The suite's MariaDB: ``GLUEBALL_TEST_MARIADB_URL``'s, or a throwaway server started now."""
    server = _get("mariadb", lambda: MariaDB.from_environment() or MariaDB.start_throwaway())
    assert isinstance(server, MariaDB)
    return server


def kafka() -> KafkaBroker:
    """The suite's Kafka broker, started now on first use (about 15 s) and shared by every test of the run."""
    broker = _get("kafka", KafkaBroker.start_throwaway)
    assert isinstance(broker, KafkaBroker)
    return broker


def stop_all() -> None:
    """Stop every throwaway server this process started (database servers given by URL are left running)."""
    with _lock:
        servers = list(_running.values())
        _running.clear()
    for server in servers:
        server.stop()


atexit.register(stop_all)
