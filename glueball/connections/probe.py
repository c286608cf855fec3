"""TestConnection: open a real connection with a connection's properties, and say why when it fails.

- **JDBC**: the JDBC drivers Spark jobs use (``/usr/share/java/postgresql.jar``,
  ``mariadb-java-client.jar``, ``GLUEBALL_EXTRA_JARS``) open one connection to
  ``JDBC_CONNECTION_URL`` as ``USERNAME``/``PASSWORD`` in a short-lived JVM
  (``ConnectionProbe.java``; the secrets go through its stdin) and check it is valid.
  ``JDBC_ENFORCE_SSL=true`` asks the driver for TLS (``ssl``/``useSsl``).
- **KAFKA**: Kafka's Java admin client (the kafka-clients of glueball's ``kafka`` JVM feature, plus the MSK
  IAM library for ``AWS_MSK_IAM``), in a short-lived JVM (``KafkaProbe.java``; the client properties go
  through its stdin), asks the cluster for its brokers with the very properties a streaming job's
  Kafka source gets from the connection (``glueball.runtime.streaming.kafka_connection``): TLS with the custom
  CA, client keystores, PLAIN, SCRAM, GSSAPI, MSK IAM. It first checks that a bootstrap server accepts a TCP
  connection, so a refused connection says so at once.

Each probe's class is compiled once per machine into glueball's jar cache (:mod:`glueball.runtime.javabuild`;
the Kafka probe's against the very kafka-clients it runs with) and a probe's JVM runs that class: launched from
its source file, a JVM compiles it first (a JDBC probe: 0.77 s against 0.26 s, ``bench/connections.py``). Where it
cannot be compiled ahead (no ``javac``, a cache that cannot be written), the JVM is given the source file.

A connection that cannot be opened is ``InvalidInputException`` carrying the driver's or broker's
own reason; one that does not answer in time is ``OperationTimeoutException``. NETWORK connections
have nothing to connect to and are refused, as Glue tests only JDBC (and SaaS) connections.
"""

from __future__ import annotations

import base64
import logging
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path

from glueball.connections.models import ConnectionType
from glueball.errors import InvalidInputException, OperationTimeoutException
from glueball.runtime import javabuild

log = logging.getLogger("glueball.connections.probe")
PROBE_SOURCE = Path(__file__).with_name("ConnectionProbe.java")
KAFKA_PROBE_SOURCE = Path(__file__).with_name("KafkaProbe.java")
LOGIN_TIMEOUT_SECONDS = 15
# the JVM may compile the probe from source before connecting (no javac): allow for that on a busy machine
JVM_TIMEOUT_SECONDS = 90
KAFKA_TIMEOUT_SECONDS = 15
JVM_OPTIONS = ["-Xshare:auto", "-XX:TieredStopAtLevel=1", "-Xmx128m"]  # a probe's short-lived, small JVM


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


def _java(name: str, kind: str) -> str:
    java = shutil.which("java")
    if java is None:
        raise InvalidInputException(f"TestConnection of {kind} connections needs a Java runtime (java on PATH)")
    return java


class ProbeBuildError(RuntimeError):
    """A probe's class cannot be compiled ahead (no javac, an unwritable cache, javac failed)."""


_BUILDS: dict[tuple[Path, tuple[str, ...]], javabuild.JavaJar] = {}


def launch(source: Path, classpath: list[str], compiled_against: list[str] | None = None) -> list[str]:
    """The JVM arguments that run the probe ``source`` with ``classpath``: its class, compiled into glueball's jar
    cache on first use (against ``compiled_against``, by default ``classpath``); else (no javac, an unwritable
    cache) the source file, which the JVM compiles itself."""
    against = classpath if compiled_against is None else compiled_against
    key = (source, tuple(against))
    build = _BUILDS.get(key)
    if build is None:
        build = _BUILDS[key] = javabuild.JavaJar(
            f"TestConnection's {source.stem}", lambda: [source], lambda: [Path(p) for p in against],
            ProbeBuildError, "javac not found", facts=lambda: [Path(p).name for p in against])
    jar = build.jar()
    if jar is None:
        log.info("%s runs from its source: %s", source.name, build.unavailable_reason())
        return ["-cp", ":".join(classpath), str(source)]
    return ["-cp", ":".join([str(jar), *classpath]), source.stem]


def _run_probe(name: str, kind: str, target: str, command: list[str], secrets: bytes) -> None:
    """Run a probe JVM for a ``kind`` connection to ``target``: return on ``OK``; ``FAILED``/``TIMEOUT`` become
    the errors Glue answers with."""
    try:
        done = subprocess.run(command, input=secrets, capture_output=True, timeout=JVM_TIMEOUT_SECONDS, check=False)
    except subprocess.TimeoutExpired as exc:
        raise OperationTimeoutException(f"{name}: {target} did not answer within {JVM_TIMEOUT_SECONDS} seconds") \
            from exc
    answer = done.stdout.decode(errors="replace").strip().splitlines()
    last = answer[-1] if answer else ""
    if done.returncode == 0 and last.startswith("OK"):
        return
    outcome, _, reason = last.partition(" ")
    if outcome == "TIMEOUT" or (outcome == "FAILED" and ("timed out" in reason.lower() or "timeout" in reason.lower())):
        raise OperationTimeoutException(f"{name}: test failed: {reason}")
    if outcome == "FAILED":
        raise InvalidInputException(f"{name}: test failed: {reason}")
    errors = done.stderr.decode(errors="replace").strip().splitlines()
    raise InvalidInputException(f"{name}: the {kind} probe could not run: "
                                f"{errors[-1] if errors else f'exit status {done.returncode}'}")


def probe_jdbc(name: str, properties: Mapping[str, str], jars: list[str]) -> None:
    """Open and close one JDBC connection (see the module's docstring)."""
    url = properties.get("JDBC_CONNECTION_URL")
    if not url:
        raise InvalidInputException(f"{name}: JDBC connections require JDBC_CONNECTION_URL")
    java = _java(name, "JDBC")
    extra = ["ssl=true", "useSsl=true"] if properties.get("JDBC_ENFORCE_SSL", "").lower() == "true" else []
    command = [java, *JVM_OPTIONS, *launch(PROBE_SOURCE, jars, []), str(LOGIN_TIMEOUT_SECONDS), *extra]
    secrets = _line(url) + _line(properties.get("USERNAME", "")) + _line(properties.get("PASSWORD", ""))
    _run_probe(name, "JDBC", url, command, secrets)


def kafka_probe_classpath(msk_iam: bool) -> list[str]:
    """The Kafka probe's class path: the ``kafka`` feature's jars (``msk-iam``'s too), and PySpark's SLF4J API.

    Raises:
        InvalidInputException: the jars are not in the cache and cannot be fetched now (the reason says how).
    """
    import pyspark

    from glueball import jvm

    try:
        jars = [str(p) for name in ("kafka", "msk-iam")[:2 if msk_iam else 1] for p in jvm.jars(name)]
    except jvm.JarsUnavailable as exc:
        raise InvalidInputException(f"TestConnection of KAFKA connections: {exc}") from exc
    jars += [str(p) for p in sorted((Path(pyspark.__file__).parent / "jars").glob("slf4j-api-*.jar"))]
    return jars


def probe_kafka(name: str, properties: Mapping[str, str]) -> None:
    """Ask the cluster for its brokers with the connection's client properties (see the module's docstring)."""
    from glueball.runtime.errors import GlueRuntimeError
    from glueball.runtime.streaming.kafka_connection import client_settings, needs_msk_iam

    try:
        settings = client_settings(name, properties)
    except GlueRuntimeError as err:
        raise InvalidInputException(f"{name}: {err}") from err
    java = _java(name, "KAFKA")
    classpath = kafka_probe_classpath(needs_msk_iam(settings.properties))
    system = [f"-D{key}={value}" for key, value in settings.system_properties.items()]
    command = [java, *JVM_OPTIONS, *system, *launch(KAFKA_PROBE_SOURCE, classpath), str(KAFKA_TIMEOUT_SECONDS)]
    secrets = b"".join(_line(key) + _line(value) for key, value in settings.properties.items())
    _run_probe(name, "Kafka", properties.get("KAFKA_BOOTSTRAP_SERVERS", "the brokers"), command, secrets)


