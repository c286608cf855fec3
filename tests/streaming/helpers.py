"""Test helpers: the suite's Kafka broker with topics and a producer, and running streaming queries to an end."""

from __future__ import annotations

import json
import socket
import subprocess
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tools.services import KafkaBroker

STARTUP_SECONDS = 20.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Broker:
    """The suite's Apache Kafka broker (``tools.services.kafka``), with an admin client and a producer for tests."""

    server: KafkaBroker

    @property
    def bootstrap(self) -> str:
        """The PLAINTEXT listener."""
        return self.server.bootstrap

    def create_topic(self, partitions: int = 1, prefix: str = "t") -> str:
        """A new topic with a unique name."""
        from confluent_kafka.admin import AdminClient, NewTopic

        name = f"{prefix}-{uuid.uuid4().hex[:8]}"
        admin = AdminClient({"bootstrap.servers": self.bootstrap})
        admin.create_topics([NewTopic(name, partitions, 1)])[name].result(timeout=30)
        return name

    def produce(self, topic: str, records: Iterable[tuple[int, bytes | None, bytes | None]],
                headers: Sequence[tuple[str, bytes]] | None = None, timestamp_ms: int | None = None) -> None:
        """Produce ``(partition, key, value)`` records and wait until the broker has them all."""
        from confluent_kafka import Producer

        producer = Producer({"bootstrap.servers": self.bootstrap, "linger.ms": 5})
        extra: dict[str, Any] = {"headers": list(headers)} if headers else {}
        if timestamp_ms is not None:
            extra["timestamp"] = timestamp_ms
        for partition, key, value in records:
            while True:
                try:
                    producer.produce(topic, value=value, key=key, partition=partition, **extra)
                    break
                except BufferError:  # the local queue is full: let deliveries drain
                    producer.poll(0.1)
        assert producer.flush(60) == 0

    def produce_json(self, topic: str, events: Sequence[dict[str, Any]], partitions: int = 1) -> None:
        self.produce(topic, [(i % partitions, str(e.get("id", i)).encode(), json.dumps(e).encode())
                             for i, e in enumerate(events)])


def wait_ready(process: subprocess.Popen[bytes], log_path: Path, probe: Callable[[], Any], what: str) -> None:
    """Call ``probe`` until it stops raising (the service answers); fail when the process exits or time is up."""
    deadline = time.monotonic() + STARTUP_SECONDS
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited with {process.returncode}: {log_path.read_text()[-2000:]}")
        try:
            probe()
            return
        except Exception:  # noqa: BLE001 - not answering yet
            if time.monotonic() > deadline:
                stop_process(process)
                raise RuntimeError(f"{what} did not answer within {STARTUP_SECONDS} s") from None
            time.sleep(0.1)


def stop_process(process: subprocess.Popen[bytes]) -> None:
    """Terminate ``process`` (killed after 10 s)."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


def with_resends(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The events with every 10th sent twice (a producer's retry), the copy a few events later."""
    out: list[dict[str, Any]] = []
    for i, event in enumerate(events):
        out.append(event)
        if i % 10 == 3:
            out.append(events[i - 3])
    return out


def kafka_options(broker: Broker, **options: Any) -> dict[str, Any]:
    return {"bootstrap.servers": broker.bootstrap, "startingOffsets": "earliest", **options}


def drain(df: Any, checkpoint: Path | str) -> list[tuple[int, list[Any]]]:
    """Run ``df`` (a streaming DataFrame) with Trigger.AvailableNow: every batch's id and collected rows."""
    batches: list[tuple[int, list[Any]]] = []

    def collect(batch: Any, batch_id: int) -> None:
        batches.append((batch_id, batch.collect()))

    query = (df.writeStream.foreachBatch(collect).trigger(availableNow=True)
             .option("checkpointLocation", str(checkpoint)).start())
    query.awaitTermination(120)
    if query.isActive:
        query.stop()
        raise AssertionError("the availableNow query did not finish within 120 s")
    return batches


def drain_until_idle(df: Any, checkpoint: Path | str, idle_seconds: float = 2.0,
                     timeout: float = 120.0) -> list[tuple[int, list[Any]]]:
    """Run ``df`` with a short processing-time trigger until no batch has come for ``idle_seconds``: every
    batch's id and rows. For Python data sources, which PySpark 4.1 runs as one batch under Trigger.AvailableNow."""
    batches: list[tuple[int, list[Any]]] = []
    finished = [time.monotonic()]

    def collect(batch: Any, batch_id: int) -> None:
        batches.append((batch_id, batch.collect()))
        finished[0] = time.monotonic()

    query = (df.writeStream.foreachBatch(collect).trigger(processingTime="200 milliseconds")
             .option("checkpointLocation", str(checkpoint)).start())
    deadline = time.monotonic() + timeout
    try:
        while True:
            if query.exception() is not None:
                raise AssertionError(f"the query failed: {query.exception()}")
            status = query.status
            idle = not status["isTriggerActive"] and not status["isDataAvailable"]
            if idle and time.monotonic() - finished[0] > idle_seconds and query.lastProgress is not None:
                return batches
            if time.monotonic() > deadline:
                raise AssertionError(f"the query was not idle within {timeout} s")
            time.sleep(0.1)
    finally:
        query.stop()


class BackgroundRun:
    """``glueContext.forEachBatch`` in a thread, stopped when a condition holds (or a time limit)."""

    def __init__(self, glue_context: Any, frame: Any, batch_function: Callable[[Any, int], Any],
                 options: dict[str, Any]) -> None:
        from glueball.runtime.streaming.foreach import BatchRunner

        self.runner = BatchRunner(glue_context, frame, batch_function, options)
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        try:
            self.runner.run()
        except BaseException as e:  # noqa: BLE001 - handed to the test
            self.error = e

    def __enter__(self) -> BackgroundRun:
        self.thread.start()
        return self

    def wait_until(self, condition: Callable[[], bool], timeout: float = 120.0) -> None:
        deadline = time.monotonic() + timeout
        while not condition():
            if self.error is not None:
                raise AssertionError(f"forEachBatch failed: {self.error}") from self.error
            if not self.thread.is_alive():
                raise AssertionError("forEachBatch returned before the condition held")
            if time.monotonic() > deadline:
                raise AssertionError(f"condition not met within {timeout} s")
            time.sleep(0.2)

    def stop(self) -> None:
        self.runner.stop()
        self.thread.join(60)
        assert not self.thread.is_alive(), "forEachBatch did not return after stop"

    def __exit__(self, *exc: Any) -> None:
        self.stop()
