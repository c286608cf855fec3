"""TestConnection: open a real connection with a connection's properties, and say why when it fails.

- **JDBC**: the JDBC drivers Spark jobs use (``/usr/share/java/postgresql.jar``,
  ``mariadb-java-client.jar``, ``GLUEBALL_EXTRA_JARS``) open one connection to
  ``JDBC_CONNECTION_URL`` as ``USERNAME``/``PASSWORD`` in a short-lived JVM
  (``ConnectionProbe.java``, run from source; the secrets go through its stdin) and check it is
  valid. ``JDBC_ENFORCE_SSL=true`` asks the driver for TLS (``ssl``/``useSsl``).
- **KAFKA**: a confluent-kafka admin client with the connection's bootstrap servers, TLS and SASL
  settings (those a streaming job would use) fetches the cluster's metadata.

A connection that cannot be opened is ``InvalidInputException`` carrying the driver's or broker's
own reason; one that does not answer in time is ``OperationTimeoutException``. NETWORK connections
have nothing to connect to and are refused, as Glue tests only JDBC (and SaaS) connections.
"""

from __future__ import annotations

import base64
import logging
import re
import shutil
import subprocess
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from glueball.connections.models import ConnectionType
from glueball.errors import InvalidInputException, OperationTimeoutException

log = logging.getLogger("glueball.connections.probe")
_TIMING = re.compile(r" \(after \d+ms in state \w+\)")
PROBE_SOURCE = Path(__file__).with_name("ConnectionProbe.java")
LOGIN_TIMEOUT_SECONDS = 15
# the JVM compiles the probe from source before connecting: allow for that on a busy machine
JVM_TIMEOUT_SECONDS = 90
KAFKA_TIMEOUT_SECONDS = 15.0


def probe(name: str, kind: str, properties: Mapping[str, str], jdbc_jars: list[str]) -> None:
    """Connect as a connection of ``kind`` with ``properties`` would; return when it worked.

    ``name`` is how messages call what is tested ("Connection pg", "TestConnectionInput").

    Raises:
        InvalidInputException: the connection could not be opened (the reason is in the message), or its type
            cannot be tested.
        OperationTimeoutException: the database or broker did not answer in time.
    """
    if kind == ConnectionType.JDBC:
        probe_jdbc(name, properties, jdbc_jars)
    elif kind == ConnectionType.KAFKA:
        probe_kafka(name, properties)
    else:
        raise InvalidInputException(f"TestConnection supports JDBC and KAFKA connections; {name} is {kind}")


def _line(text: str) -> bytes:
    return base64.b64encode(text.encode()) + b"\n"


def probe_jdbc(name: str, properties: Mapping[str, str], jars: list[str]) -> None:
    """Open and close one JDBC connection (see the module's docstring)."""
    url = properties.get("JDBC_CONNECTION_URL")
    if not url:
        raise InvalidInputException(f"{name}: JDBC connections require JDBC_CONNECTION_URL")
    java = shutil.which("java")
    if java is None:
        raise InvalidInputException("TestConnection of JDBC connections needs a Java runtime (java on PATH)")
    extra = ["ssl=true", "useSsl=true"] if properties.get("JDBC_ENFORCE_SSL", "").lower() == "true" else []
    command = [java, "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-Xmx128m", "-cp", ":".join(jars),
               str(PROBE_SOURCE), str(LOGIN_TIMEOUT_SECONDS), *extra]
    secrets = _line(url) + _line(properties.get("USERNAME", "")) + _line(properties.get("PASSWORD", ""))
    try:
        done = subprocess.run(command, input=secrets, capture_output=True, timeout=JVM_TIMEOUT_SECONDS, check=False)
    except subprocess.TimeoutExpired as exc:
        raise OperationTimeoutException(
            f"{name}: {url} did not answer within {JVM_TIMEOUT_SECONDS} seconds") from exc
    answer = done.stdout.decode(errors="replace").strip().splitlines()
    last = answer[-1] if answer else ""
    if done.returncode == 0 and last.startswith("OK"):
        return
    if last.startswith("FAILED "):
        reason = last[len("FAILED "):]
        if "timed out" in reason.lower() or "timeout" in reason.lower():
            raise OperationTimeoutException(f"{name}: test failed: {reason}")
        raise InvalidInputException(f"{name}: test failed: {reason}")
    errors = done.stderr.decode(errors="replace").strip().splitlines()
    raise InvalidInputException(f"{name}: the JDBC probe could not run: "
                                f"{errors[-1] if errors else f'exit status {done.returncode}'}")


def probe_kafka(name: str, properties: Mapping[str, str]) -> None:
    """Fetch the cluster metadata through the connection's bootstrap servers; a broker that refuses or fails
    the handshake ends the test at once, one that stays silent at :data:`KAFKA_TIMEOUT_SECONDS`."""
    from confluent_kafka import KafkaError, KafkaException
    from confluent_kafka.admin import AdminClient

    from glueball.runtime.errors import GlueRuntimeError
    from glueball.runtime.streaming.kafka_options import properties_config

    try:
        config: dict[str, Any] = dict(properties_config(name, properties))
    except GlueRuntimeError as err:
        raise InvalidInputException(f"{name}: {err}") from err
    problems: list[str] = []
    down = threading.Event()

    def on_error(error: Any) -> None:
        problems.append(_TIMING.sub("", error.str()))
        if error.code() in (KafkaError._ALL_BROKERS_DOWN, KafkaError._AUTHENTICATION, KafkaError._SSL):
            down.set()

    config.update({"error_cb": on_error, "logger": log, "log_level": 2, "socket.connection.setup.timeout.ms":
                   int(KAFKA_TIMEOUT_SECONDS * 1000)})
    admin = AdminClient(config)
    deadline = time.monotonic() + KAFKA_TIMEOUT_SECONDS
    servers = properties.get("KAFKA_BOOTSTRAP_SERVERS", "")
    while True:
        try:
            metadata = admin.list_topics(timeout=1.0)
            break
        except KafkaException as exc:
            admin.poll(0.1)  # serves the error callback
            if down.is_set() or time.monotonic() >= deadline:
                if problems:
                    raise InvalidInputException(f"{name}: test failed: {'; '.join(dict.fromkeys(problems))}") from exc
                raise OperationTimeoutException(
                    f"{name}: no broker of {servers} answered within {KAFKA_TIMEOUT_SECONDS:g} seconds") from exc
    if not metadata.brokers:
        raise InvalidInputException(f"{name}: test failed: the cluster reported no brokers")
