"""A throwaway Apache Kafka broker: one JVM in KRaft mode (broker and controller) from the jars of glueball's
``kafka-broker`` feature (``glueball/jvm/pom.xml``), on free loopback ports, under ``build/services``.

Its listeners, each on its own port:

- ``PLAINTEXT``: no TLS, no authentication (the broker's own traffic too);
- ``SSL``: TLS with a certificate for 127.0.0.1/localhost signed by a throwaway CA (``tools.services.tls``);
- ``MTLS``: TLS that requires a client certificate signed by that CA (the client keystore is a JKS file);
- ``SASL_SSL`` and ``SASL_PLAINTEXT``: SCRAM-SHA-512 and PLAIN over TLS and without it.

The SCRAM user is created by Kafka's own storage tool when the log directory is formatted
(``kafka.tools.StorageTool format --add-scram``); the PLAIN user is in the listeners' JAAS settings. The
broker's log is ``kafka.log`` in its folder. It dies with the process that started it (also kill -9). Its heap is
768 MB unless ``GLUEBALL_TEST_KAFKA_HEAP`` says otherwise (``2g`` for a bigger benchmark).
"""

from __future__ import annotations

import base64
import os
import shutil
import socket
import subprocess
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from tools.services.base import ServiceError, die_with_parent, free_port, new_folder, wait_until
from tools.services.tls import Certificates, make_certificates

LISTENERS = ("PLAINTEXT", "CONTROLLER", "SSL", "MTLS", "SASL_SSL", "SASL_PLAINTEXT")
STARTUP_SECONDS = 120.0
HEAP = os.environ.get("GLUEBALL_TEST_KAFKA_HEAP", "768m")

LOG4J = """\
status = warn
appender.file.type = File
appender.file.name = file
appender.file.fileName = {log}
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = info
rootLogger.appenderRef.file.ref = file
logger.kafka.name = kafka
logger.kafka.level = info
logger.apache.name = org.apache.kafka
logger.apache.level = info
logger.state.name = state.change.logger
logger.state.level = warn
"""


@dataclass
class KafkaBroker:
    """A running broker: its listeners' ``host:port``, the TLS material and the SASL users."""

    ports: dict[str, int]
    certificates: Certificates
    folder: Path
    process: subprocess.Popen[bytes] | None = field(default=None, repr=False)
    scram_user: str = "glueball-scram"
    scram_password: str = "scram-secret"
    plain_user: str = "glueball-plain"
    plain_password: str = "plain-secret"

    def address(self, listener: str) -> str:
        """``127.0.0.1:port`` of ``listener`` (``PLAINTEXT``, ``SSL``, ``MTLS``, ``SASL_SSL``, ``SASL_PLAINTEXT``)."""
        return f"127.0.0.1:{self.ports[listener]}"

    @property
    def bootstrap(self) -> str:
        """The PLAINTEXT listener."""
        return self.address("PLAINTEXT")

    @property
    def log(self) -> Path:
        return self.folder / "kafka.log"

    @classmethod
    def start_throwaway(cls) -> KafkaBroker:
        from glueball import jvm

        java = shutil.which("java")
        if java is None:
            raise ServiceError("java not found: the suite's Kafka broker needs a Java runtime (Java 17)")
        try:
            classpath = os.pathsep.join(str(j) for j in jvm.jars("kafka-broker"))
        except jvm.JarsUnavailable as exc:
            raise ServiceError(f"the suite's Kafka broker: {exc}") from exc
        folder = new_folder("kafka")
        broker = cls(ports={}, certificates=make_certificates(folder / "tls"), folder=folder)
        last: ServiceError | None = None
        for _ in range(3):  # a free port may be taken between the choice and the bind: choose again
            broker.ports = {name: free_port() for name in LISTENERS}
            try:
                broker._format_and_start(java, classpath)
                return broker
            except ServiceError as exc:
                last = exc
                broker._kill()
        broker.stop()
        raise ServiceError(f"the Kafka broker did not start: {last}")

    def _properties(self) -> str:
        tls = self.certificates
        host = "127.0.0.1"
        listeners = ",".join(f"{name}://{host}:{port}" for name, port in self.ports.items())
        advertised = ",".join(f"{name}://{host}:{port}" for name, port in self.ports.items() if name != "CONTROLLER")
        scram = "org.apache.kafka.common.security.scram.ScramLoginModule required;"
        plain = (f'org.apache.kafka.common.security.plain.PlainLoginModule required '
                 f'user_{self.plain_user}="{self.plain_password}";')
        lines = {
            "process.roles": "broker,controller",
            "node.id": "1",
            "controller.quorum.voters": f"1@{host}:{self.ports['CONTROLLER']}",
            "controller.listener.names": "CONTROLLER",
            "inter.broker.listener.name": "PLAINTEXT",
            "listeners": listeners,
            "advertised.listeners": advertised,
            "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,SSL:SSL,MTLS:SSL,"
                                              "SASL_SSL:SASL_SSL,SASL_PLAINTEXT:SASL_PLAINTEXT",
            "log.dirs": str(self.folder / "data"),
            "num.partitions": "1",
            "offsets.topic.replication.factor": "1",
            "transaction.state.log.replication.factor": "1",
            "transaction.state.log.min.isr": "1",
            "share.coordinator.state.topic.replication.factor": "1",
            "share.coordinator.state.topic.min.isr": "1",
            "group.initial.rebalance.delay.ms": "0",
            "auto.create.topics.enable": "false",
            "ssl.keystore.type": "PEM",
            "ssl.keystore.location": str(tls.server_keystore),
            "ssl.truststore.type": "PEM",
            "ssl.truststore.location": str(tls.ca),
            "listener.name.mtls.ssl.client.auth": "required",
            "sasl.enabled.mechanisms": "SCRAM-SHA-512,PLAIN",
        }
        for listener in ("sasl_ssl", "sasl_plaintext"):
            lines[f"listener.name.{listener}.scram-sha-512.sasl.jaas.config"] = scram
            lines[f"listener.name.{listener}.plain.sasl.jaas.config"] = plain
        return "".join(f"{key}={value}\n" for key, value in lines.items())

    def _format_and_start(self, java: str, classpath: str) -> None:
        data = self.folder / "data"
        shutil.rmtree(data, ignore_errors=True)
        config = self.folder / "server.properties"
        config.write_text(self._properties())
        (self.folder / "log4j2.properties").write_text(LOG4J.format(log=self.log))
        cluster_id = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
        jvm_options = [java, f"-Dlog4j2.configurationFile={self.folder / 'log4j2.properties'}", "-cp", classpath]
        formatted = subprocess.run(
            [*jvm_options, "-Xmx128m", "-XX:TieredStopAtLevel=1", "kafka.tools.StorageTool", "format",
             "--config", str(config), "--cluster-id", cluster_id,
             "--add-scram", f"SCRAM-SHA-512=[name={self.scram_user},password={self.scram_password}]"],
            capture_output=True, text=True, stdin=subprocess.DEVNULL, preexec_fn=die_with_parent)
        if formatted.returncode != 0:
            raise ServiceError(f"kafka-storage format failed: {(formatted.stderr or formatted.stdout)[-2000:]}")
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(
                [*jvm_options, f"-Xmx{HEAP}", "-XX:+UseG1GC", "-Djava.awt.headless=true", "kafka.Kafka", str(config)],
                stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, preexec_fn=die_with_parent)
        wait_until(self._started, self.process, self.log, f"Kafka broker on {self.bootstrap}", STARTUP_SECONDS)

    def _started(self) -> bool:
        if "Kafka Server started" not in self.log.read_text(errors="replace"):
            return False
        for name in LISTENERS:
            with socket.create_connection(("127.0.0.1", self.ports[name]), timeout=2):
                pass
        return True

    def _kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.process = None

    def stop(self) -> None:
        """Stop the broker (killed after 30 s) and remove its folder."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self._kill()
        self.process = None
        shutil.rmtree(self.folder, ignore_errors=True)
