"""Kafka as a PySpark streaming Python data source (``spark.readStream.format("glueball-kafka")``).

Spark's JVM Kafka connector is not on this build's classpath, so the source is written on
PySpark 4's Python data source API with confluent-kafka (librdkafka):

- **Offsets** are Spark offsets, ``{"topic": {"0": 42, "1": 17}}`` (the next offset to read per
  topic-partition), kept in the query's checkpoint: a restarted query resumes where it stopped;
  a new checkpoint starts from ``startingOffsets``/``startingTimestamp``.
- **Planning** happens on the driver: ``latestOffset`` asks the brokers for the partitions of the
  subscription and their latest offsets (one ListOffsets request), capped by ``endingOffsets`` and
  by the read limit — ``maxOffsetsPerTrigger`` is Spark's ``ReadMaxRows``, split across partitions in
  proportion to what each has waiting. Partitions that appear later (``subscribePattern``, added
  partitions) are read from their earliest offset.
- **Reading** happens in Spark tasks: one per topic-partition range (more with ``minPartitions``:
  ranges are cut into contiguous pieces). Each task assigns its range to a consumer and hands Spark
  Arrow record batches: through the C reader (``_kafkacols``: librdkafka's messages copied straight
  into the columns' buffers, no Python object per record) when it was built, else with confluent-kafka's
  ``consume(num_messages=...)`` and columns built from the messages (always so with ``includeHeaders``).
- ``failOnDataLoss``: a partition that vanished, or offsets no longer on the broker (retention,
  a recreated topic), fail the query; with ``false`` the source logs it and reads what is there.

Columns: ``key`` and ``value`` (binary), ``topic``, ``partition``, ``offset``, ``timestamp`` (UTC),
``timestampType`` (0 create time, 1 log-append time), and ``headers`` (``array<struct<key: string,
value: binary>>``) with ``includeHeaders``.
"""

from __future__ import annotations

import functools
import logging
import re
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from pyspark.sql.datasource import DataSource, DataSourceStreamReader, InputPartition
from pyspark.sql.streaming.datasource import ReadLimit, ReadMaxRows, SupportsTriggerAvailableNow
from pyspark.sql.types import StructType

from glueball.runtime.errors import GlueRuntimeError
from glueball.runtime.streaming.kafka_options import EARLIEST, LATEST, KafkaOptions

if TYPE_CHECKING:
    import pyarrow as pa

log = logging.getLogger("glueball.runtime.streaming")

SOURCE_NAME = "glueball-kafka"
BASE_SCHEMA = ("key binary, value binary, topic string, partition int, offset bigint, timestamp timestamp, "
               "timestampType int")
HEADERS_SCHEMA = "headers array<struct<key: string, value: binary>>"
ARROW_BATCH_ROWS = 131_072       # rows per Arrow batch handed to Spark (fewer, larger batches: less JVM work)
CONSUME_BATCH = 10_000           # records per consume() call
# a task's consumer (options given by the user win): bigger fetches, and when librdkafka's local queue is at
# queued.min.messages it waits fetch.queue.backoff.ms (default 1000 ms) before fetching again — a task
# draining its queue faster than that would stall a second each time (measured: 150k -> 600k records/s)
TASK_CONSUMER_DEFAULTS: dict[str, Any] = {"max.partition.fetch.bytes": 8 * 1024 * 1024,
                                          "fetch.queue.backoff.ms": 10}
MIN_STALL_SECONDS = 10.0         # no record for this long (at least) fails a read

TopicPartition = tuple[str, int]
_COLUMNS: Any = None  # the C reader module once looked for (False: not available)
Offsets = dict[TopicPartition, int]
T = TypeVar("T")


def source_schema(include_headers: bool) -> str:
    return f"{BASE_SCHEMA}, {HEADERS_SCHEMA}" if include_headers else BASE_SCHEMA


def to_spark_offset(offsets: Offsets) -> dict[str, dict[str, int]]:
    """Offsets as Spark keeps them, in a fixed order so equal offsets are equal JSON."""
    out: dict[str, dict[str, int]] = {}
    for topic, partition in sorted(offsets):
        out.setdefault(topic, {})[str(partition)] = int(offsets[(topic, partition)])
    return out


def from_spark_offset(offset: Mapping[str, Any]) -> Offsets:
    return {(str(topic), int(p)): int(o) for topic, parts in offset.items() for p, o in parts.items()}


@dataclass
class KafkaRange(InputPartition):
    """One Spark task's share: offsets ``[start, end)`` of one topic-partition."""

    topic: str
    partition: int
    start: int
    end: int
    config: dict[str, str] = field(repr=False)
    poll_timeout_ms: int = 512
    num_retries: int = 3
    fail_on_data_loss: bool = True
    include_headers: bool = False


def allot(available: Mapping[TopicPartition, int], limit: int) -> dict[TopicPartition, int]:
    """Split ``limit`` records across partitions in proportion to what each has waiting.

    The shares add up to ``min(limit, total)``; what rounding leaves over goes to the largest
    remainders (ties in topic-partition order), so every trigger makes progress.
    """
    total = sum(available.values())
    if total <= limit:
        return dict(available)
    shares = {tp: limit * n // total for tp, n in available.items()}
    left = limit - sum(shares.values())
    by_remainder = sorted(available, key=lambda tp: (-(limit * available[tp] % total), tp))
    for tp in by_remainder:
        if left <= 0:
            break
        if shares[tp] < available[tp]:
            shares[tp] += 1
            left -= 1
    return shares


def split_ranges(ranges: list[tuple[TopicPartition, int, int]], min_partitions: int | None
                 ) -> list[tuple[TopicPartition, int, int]]:
    """Cut ranges into contiguous pieces so there are at least ``min_partitions`` (sizes proportional)."""
    total = sum(end - start for _, start, end in ranges)
    if not min_partitions or len(ranges) >= min_partitions or total == 0:
        return ranges
    out: list[tuple[TopicPartition, int, int]] = []
    for tp, start, end in ranges:
        size = end - start
        pieces = max(1, min(size, -(-size * min_partitions // total)))
        for i in range(pieces):
            out.append((tp, start + size * i // pieces, start + size * (i + 1) // pieces))
    return out


class KafkaDataSource(DataSource):
    """The ``glueball-kafka`` streaming source (options: see ``glueball.runtime.streaming.kafka_options``)."""

    @classmethod
    def name(cls) -> str:
        return SOURCE_NAME

    def schema(self) -> str:
        options = KafkaOptions.parse(self.options, resolve_connection=False)
        return source_schema(options.include_headers)

    def streamReader(self, schema: StructType) -> DataSourceStreamReader:  # noqa: N802
        return KafkaStreamReader(KafkaOptions.parse(self.options), schema)


class _Broker:
    """The driver's view of the cluster: partitions and offsets, with Glue's retries."""

    def __init__(self, options: KafkaOptions) -> None:
        from confluent_kafka.admin import AdminClient

        self.options = options
        self.admin = AdminClient(dict(options.client_config))
        self.timeout = max(5.0, options.poll_timeout_ms / 1000 * (options.num_retries + 1))

    def _retry(self, what: str, call: Callable[[], T]) -> T:
        from confluent_kafka import KafkaException

        attempts = self.options.num_retries + 1
        for attempt in range(attempts):
            try:
                return call()
            except KafkaException as e:
                if attempt + 1 == attempts:
                    raise GlueRuntimeError(f"Kafka: could not {what} after {attempts} attempts: {e}") from e
                time.sleep(self.options.retry_interval_ms / 1000)
        raise AssertionError("unreachable")

    def partitions(self) -> list[TopicPartition]:
        """The topic-partitions of the subscription, sorted."""
        sub = self.options.subscription
        metadata = self._retry("list topics", lambda: self.admin.list_topics(timeout=self.timeout))
        topics = {name: sorted(t.partitions) for name, t in metadata.topics.items() if t.error is None}
        if sub.pattern is not None:
            regex = re.compile(sub.pattern)
            return [(t, p) for t in sorted(topics) if not t.startswith("__") and regex.fullmatch(t)
                    for p in topics[t]]
        if sub.assign is not None:
            wanted = [(t, p) for t, ps in sorted(sub.assign.items()) for p in ps]
        else:
            wanted = [(t, p) for t in sorted(sub.topics) for p in topics.get(t, [])]
            missing = sorted(t for t in sub.topics if t not in topics)
            if missing:
                self.data_loss(f"topic(s) {', '.join(missing)} do not exist")
        present = [tp for tp in wanted if tp[1] in topics.get(tp[0], [])]
        if len(present) != len(wanted):
            self.data_loss(f"partitions {sorted(set(wanted) - set(present))} do not exist")
        return present

    def offsets(self, tps: Sequence[TopicPartition], spec: str | int) -> Offsets:
        """``earliest``, ``latest`` or the first offset at or after a timestamp (ms; -1 when none)."""
        from confluent_kafka import TopicPartition as KafkaTopicPartition
        from confluent_kafka.admin import OffsetSpec

        if not tps:
            return {}
        if spec == "earliest":
            offset_spec = OffsetSpec.earliest()
        elif spec == "latest":
            offset_spec = OffsetSpec.latest()
        else:
            offset_spec = OffsetSpec.for_timestamp(int(spec))

        def call() -> Offsets:
            futures = self.admin.list_offsets({KafkaTopicPartition(t, p): offset_spec for t, p in tps},
                                              request_timeout=self.timeout)
            return {(k.topic, k.partition): int(f.result(timeout=self.timeout).offset) for k, f in futures.items()}

        return self._retry(f"fetch {spec} offsets", call)

    def data_loss(self, message: str) -> None:
        if self.options.fail_on_data_loss:
            raise GlueRuntimeError(f"Kafka: {message} (some data may have been lost; set failOnDataLoss to "
                                   f"false to go on)")
        log.warning("Kafka: %s; going on (failOnDataLoss=false)", message)


class KafkaStreamReader(DataSourceStreamReader, SupportsTriggerAvailableNow):
    """Plans micro-batches over Kafka offsets; ``read`` runs in the tasks (see the module docstring)."""

    def __init__(self, options: KafkaOptions, schema: StructType) -> None:
        self.options = options
        self.schema = schema
        self._broker: _Broker | None = None
        self._latest: Offsets | None = None
        self._available_now: Offsets | None = None

    def __getstate__(self) -> dict[str, Any]:
        # the reader is pickled into the tasks; the driver's client stays behind
        state = dict(self.__dict__)
        state["_broker"] = None
        return state

    @property
    def broker(self) -> _Broker:
        if self._broker is None:
            self._broker = _Broker(self.options)
        return self._broker

    # -- planning (driver) -----------------------------------------------------------------------

    def initialOffset(self) -> dict:  # noqa: N802
        broker, opts = self.broker, self.options
        tps = broker.partitions()
        if opts.starting_timestamp_ms is not None:
            found = broker.offsets(tps, opts.starting_timestamp_ms)
            latest = broker.offsets(tps, "latest")
            start = {tp: (o if o >= 0 else latest[tp]) for tp, o in found.items()}
        elif isinstance(opts.starting, str):
            start = broker.offsets(tps, opts.starting)
        else:
            start = self._specific(tps, opts.starting)
        return to_spark_offset(start)

    def _specific(self, tps: list[TopicPartition], given: Mapping[str, Mapping[int, int]]) -> Offsets:
        named = {(t, p): o for t, ps in given.items() for p, o in ps.items()}
        missing = sorted(set(tps) - set(named))
        if missing:
            raise GlueRuntimeError(f"Kafka option startingOffsets must give every partition of the subscription; "
                                   f"missing {missing}")
        earliest, latest = self.broker.offsets(tps, "earliest"), self.broker.offsets(tps, "latest")
        start: Offsets = {}
        for tp in tps:
            wanted = named[tp]
            offset = earliest[tp] if wanted == EARLIEST else latest[tp] if wanted == LATEST else wanted
            if not earliest[tp] <= offset <= latest[tp]:
                self.broker.data_loss(f"startingOffsets {offset} of {tp[0]}-{tp[1]} is outside "
                                      f"[{earliest[tp]}, {latest[tp]}]")
                offset = min(max(offset, earliest[tp]), latest[tp])
            start[tp] = offset
        return start

    def _latest_offsets(self, start: Offsets) -> Offsets:
        broker, opts = self.broker, self.options
        tps = broker.partitions()
        gone = sorted(set(start) - set(tps))
        if gone:
            broker.data_loss(f"partitions {gone} are gone")
        latest = broker.offsets(tps, "latest")
        if isinstance(opts.ending, dict):
            for (topic, partition), offset in list(latest.items()):
                cap = opts.ending.get(topic, {}).get(partition)
                if cap is not None and cap != LATEST:
                    latest[(topic, partition)] = min(offset, cap)
        if self._available_now is not None:  # Trigger.AvailableNow: nothing beyond what was there at its start
            latest = {tp: min(o, self._available_now[tp]) for tp, o in latest.items() if tp in self._available_now}
        return latest

    def latestOffset(self, start: dict, limit: ReadLimit) -> dict:  # noqa: N802
        begin = from_spark_offset(start)
        latest = self._latest_offsets(begin)
        new = [tp for tp in latest if tp not in begin]
        begin.update(self.broker.offsets(new, "earliest"))
        for tp, offset in latest.items():
            if offset < begin[tp]:
                self.broker.data_loss(f"{tp[0]}-{tp[1]} is at offset {offset}, behind {begin[tp]} already read "
                                      f"(was the topic recreated?)")
        available = {tp: max(0, latest[tp] - begin[tp]) for tp in latest}
        if isinstance(limit, ReadMaxRows):
            available = allot(available, limit.max_rows)
        end = {tp: (begin[tp] + available[tp] if latest[tp] >= begin[tp] else latest[tp]) for tp in latest}
        # a partition missing from this answer keeps its position: should it come back, it is not read again
        end.update({tp: offset for tp, offset in begin.items() if tp not in end})
        self._latest = latest
        return to_spark_offset(end)

    def getDefaultReadLimit(self) -> ReadLimit:  # noqa: N802
        from pyspark.sql.streaming.datasource import ReadAllAvailable

        limit = self.options.max_offsets_per_trigger
        return ReadMaxRows(limit) if limit else ReadAllAvailable()

    def reportLatestOffset(self) -> dict | None:  # noqa: N802
        return None if self._latest is None else to_spark_offset(self._latest)

    def prepareForTriggerAvailableNow(self) -> None:  # noqa: N802
        self._available_now = None
        self._available_now = self._latest_offsets({})

    def partitions(self, start: dict, end: dict) -> Sequence[InputPartition]:
        begin, finish = from_spark_offset(start), from_spark_offset(end)
        new = [tp for tp in finish if tp not in begin]
        if new:
            begin.update(self.broker.offsets(new, "earliest"))
        ranges = [(tp, begin[tp], finish[tp]) for tp in sorted(finish) if finish[tp] > begin[tp]]
        opts = self.options
        return [KafkaRange(tp[0], tp[1], s, e, opts.client_config, opts.poll_timeout_ms, opts.num_retries,
                           opts.fail_on_data_loss, opts.include_headers)
                for tp, s, e in split_ranges(ranges, opts.min_partitions)]

    def commit(self, end: dict) -> None:
        # Spark's checkpoint holds the offsets; nothing is committed to consumer groups
        return None

    def stop(self) -> None:
        self._broker = None

    # -- reading (tasks) ---------------------------------------------------------------------------

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        assert isinstance(partition, KafkaRange)
        from pyspark.sql.pandas.types import to_arrow_schema

        yield from read_range(partition, to_arrow_schema(self.schema, timezone="UTC"))


def _consumer_config(part: KafkaRange) -> dict[str, Any]:
    config: dict[str, Any] = {**TASK_CONSUMER_DEFAULTS, **part.config}
    config.update({"group.id": f"glueball-kafka-{uuid.uuid4().hex[:12]}", "enable.auto.commit": False,
                   "enable.auto.offset.store": False, "enable.partition.eof": True,
                   "auto.offset.reset": "error"})
    return config


def _consumer(part: KafkaRange) -> Any:
    from confluent_kafka import Consumer

    return Consumer(_consumer_config(part))


def _columns_module() -> Any:
    """``glueball.runtime.streaming._kafkacols`` (the C reader) with its librdkafka loaded; None when not available.

    The library is the one confluent-kafka ships (``confluent_kafka.libs``), else the system's
    ``librdkafka``. ``GLUEBALL_KAFKA_COLUMNS=0`` turns the C reader off.
    """
    global _COLUMNS
    if _COLUMNS is None:
        _COLUMNS = _load_columns_module() or False
    return _COLUMNS or None


def _load_columns_module() -> Any:
    import ctypes.util
    import glob
    import os

    if os.environ.get("GLUEBALL_KAFKA_COLUMNS", "1").strip().lower() in ("0", "false", "no"):
        return None
    try:
        import confluent_kafka

        from glueball.runtime.streaming import _kafkacols  # type: ignore[attr-defined]
    except ImportError:
        return None
    bundled = os.path.join(os.path.dirname(os.path.dirname(confluent_kafka.__file__)), "confluent_kafka.libs")
    found = sorted(glob.glob(os.path.join(bundled, "librdkafka*.so*")))
    path = found[0] if found else ctypes.util.find_library("rdkafka")
    if not path:
        return None
    try:
        _kafkacols.load(path)
    except ImportError as e:
        log.warning("Kafka: the C reader is off (%s); reading through confluent-kafka", e)
        return None
    return _kafkacols


def read_range(part: KafkaRange, schema: pa.Schema) -> Iterator[pa.RecordBatch]:
    """The records of ``part`` as Arrow batches of ``schema`` (the source's columns).

    With the C reader (``_kafkacols``, built against librdkafka) records go from librdkafka into
    column buffers without a Python object per record; otherwise (or with headers) through
    confluent-kafka's messages.
    """
    columns = None if part.include_headers else _columns_module()
    if columns is None:
        yield from _read_messages(part, schema)
    else:
        yield from _read_columns(columns, part, schema)


def _data_loss(part: KafkaRange, where: str, detail: str) -> None:
    if part.fail_on_data_loss:
        raise GlueRuntimeError(f"Kafka: offsets of {where} are no longer on the broker (some data "
                               f"was lost; set failOnDataLoss to false to go on): {detail}")
    log.warning("Kafka: offsets of %s are gone; reading from the earliest", where)


def _stalled(part: KafkaRange, where: str, position: int, stall_limit: float) -> GlueRuntimeError:
    return GlueRuntimeError(f"Kafka: no records of {where} arrived for {stall_limit:.0f} s "
                            f"(stopped at offset {position}; pollTimeoutMs {part.poll_timeout_ms}, "
                            f"numRetries {part.num_retries})")


def _read_columns(columns: Any, part: KafkaRange, schema: pa.Schema) -> Iterator[pa.RecordBatch]:
    import numpy as np
    import pyarrow as pa
    from confluent_kafka import OFFSET_BEGINNING, KafkaError

    config = _consumer_config(part)
    if "fetch.queue.backoff.ms" not in part.config and not _knows_queue_backoff(columns):
        # an older librdkafka (before 2.2) backs off a fixed second when its queue is full: keep it from filling
        config.pop("fetch.queue.backoff.ms", None)
        config.setdefault("queued.min.messages", 1_000_000)
    reader = columns.Reader({k: _setting(v) for k, v in config.items()}, part.topic, part.partition, part.start)
    stall_limit = max(MIN_STALL_SECONDS, part.poll_timeout_ms / 1000 * (part.num_retries + 1))
    where = f"{part.topic}-{part.partition} [{part.start}, {part.end})"
    position = part.start
    last_progress = time.monotonic()
    try:
        while position < part.end:
            (rows, key_offsets, key_data, key_valid, key_nulls, value_offsets, value_data, value_valid, value_nulls,
             offsets, stamps, kinds, events) = reader.read(min(ARROW_BATCH_ROWS, part.end - position),
                                                           part.poll_timeout_ms)
            if rows:
                offset_values = np.frombuffer(offsets, dtype=np.int64)
                keep = int(np.searchsorted(offset_values, part.end))  # offsets ascend within a partition
                if keep:
                    batch = _batch(
                        part, schema, rows,
                        pa.Array.from_buffers(pa.binary(), rows, [pa.py_buffer(key_valid) if key_nulls else None,
                                                                  pa.py_buffer(key_offsets), pa.py_buffer(key_data)],
                                              null_count=key_nulls),
                        pa.Array.from_buffers(pa.binary(), rows,
                                              [pa.py_buffer(value_valid) if value_nulls else None,
                                               pa.py_buffer(value_offsets), pa.py_buffer(value_data)],
                                              null_count=value_nulls),
                        pa.Array.from_buffers(pa.int64(), rows, [None, pa.py_buffer(offsets)]),
                        pa.Array.from_buffers(pa.int64(), rows, [None, pa.py_buffer(stamps)]),
                        pa.Array.from_buffers(pa.int32(), rows, [None, pa.py_buffer(kinds)]))
                    position = max(position, int(offset_values[keep - 1]) + 1)
                    last_progress = time.monotonic()
                    yield batch if keep == rows else batch.slice(0, keep)
                if keep < rows:
                    position = part.end  # an offset past the range: nothing of the range is left
            for code, offset, text in events:
                if code == KafkaError._PARTITION_EOF:
                    if offset >= part.end:
                        position = part.end  # the rest of the range holds no records (compaction, markers)
                elif code in (KafkaError._AUTO_OFFSET_RESET, KafkaError.OFFSET_OUT_OF_RANGE):
                    _data_loss(part, where, text)
                    reader.assign(part.topic, part.partition, OFFSET_BEGINNING)
                else:
                    raise GlueRuntimeError(f"Kafka: reading {where} failed: {text}")
            if not rows and position < part.end and time.monotonic() - last_progress > stall_limit:
                raise _stalled(part, where, position, stall_limit)
    finally:
        reader.close()


@functools.cache
def _knows_queue_backoff(columns: Any) -> bool:
    """Whether the loaded librdkafka has ``fetch.queue.backoff.ms`` (2.2 and later); asked once per process."""
    return bool(columns.accepts("fetch.queue.backoff.ms", "10"))


def _setting(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _batch(part: KafkaRange, schema: pa.Schema, n: int, key: pa.Array, value: pa.Array, offset: pa.Array,
           millis: pa.Array, kinds: pa.Array, headers: pa.Array | None = None) -> pa.RecordBatch:
    """One Arrow batch of ``schema`` from the records' columns (``millis``/``kinds``: librdkafka's timestamps)."""
    import pyarrow as pa

    timestamp, timestamp_type = _timestamps(millis, kinds, schema)
    columns: dict[str, pa.Array] = {
        "key": key, "value": value,
        "topic": pa.repeat(pa.scalar(part.topic, pa.string()), n),
        "partition": pa.repeat(pa.scalar(part.partition, pa.int32()), n),
        "offset": offset, "timestamp": timestamp, "timestampType": timestamp_type,
    }
    if headers is not None:
        columns["headers"] = headers
    return pa.RecordBatch.from_arrays([columns[f.name] for f in schema], schema=schema)


def _timestamps(millis: pa.Array, kinds: pa.Array, schema: pa.Schema) -> tuple[pa.Array, pa.Array]:
    """Spark's ``timestamp`` and ``timestampType`` from librdkafka's milliseconds and timestamp types.

    librdkafka: 0 not available, 1 create time, 2 log-append time; Spark: 0 create time, 1 log-append time.
    """
    import pyarrow.compute as pc

    available = pc.not_equal(kinds, 0)
    micros = pc.if_else(available, pc.multiply(millis, 1000), None)
    return micros.cast(schema.field("timestamp").type), pc.if_else(available, pc.subtract(kinds, 1), None)


def _read_messages(part: KafkaRange, schema: pa.Schema) -> Iterator[pa.RecordBatch]:
    from confluent_kafka import OFFSET_BEGINNING, KafkaError
    from confluent_kafka import TopicPartition as KafkaTopicPartition

    consumer = _consumer(part)
    stall_limit = max(MIN_STALL_SECONDS, part.poll_timeout_ms / 1000 * (part.num_retries + 1))
    where = f"{part.topic}-{part.partition} [{part.start}, {part.end})"
    try:
        consumer.assign([KafkaTopicPartition(part.topic, part.partition, part.start)])
        pending: list[Any] = []
        position = part.start
        last_progress = time.monotonic()
        while position < part.end:
            # consume() waits for num_messages or the timeout: never ask for more than the range still holds
            wanted = min(CONSUME_BATCH, part.end - position)
            messages = consumer.consume(num_messages=wanted, timeout=part.poll_timeout_ms / 1000)
            records = []
            for message in messages:
                error = message.error()
                if error is None:
                    records.append(message)
                    continue
                code = error.code()
                if code == KafkaError._PARTITION_EOF:
                    if message.offset() >= part.end:
                        position = part.end  # the rest of the range holds no records (compaction, markers)
                elif code == KafkaError._AUTO_OFFSET_RESET or code == KafkaError.OFFSET_OUT_OF_RANGE:
                    _data_loss(part, where, error.str())
                    consumer.assign([KafkaTopicPartition(part.topic, part.partition, OFFSET_BEGINNING)])
                elif error.fatal() or not error.retriable():
                    raise GlueRuntimeError(f"Kafka: reading {where} failed: {error.str()}")
            if records:
                if records[-1].offset() >= part.end:
                    records = [m for m in records if m.offset() < part.end]
                if records:
                    position = max(position, records[-1].offset() + 1)
                    pending.extend(records)
                    last_progress = time.monotonic()
            elif position < part.end and time.monotonic() - last_progress > stall_limit:
                raise _stalled(part, where, position, stall_limit)
            if len(pending) >= ARROW_BATCH_ROWS:
                yield to_arrow(pending, part, schema)
                pending = []
        if pending:
            yield to_arrow(pending, part, schema)
    finally:
        consumer.close()


def to_arrow(messages: list[Any], part: KafkaRange, schema: pa.Schema) -> pa.RecordBatch:
    """One Arrow batch of the source's columns, built column by column from confluent-kafka messages."""
    import pyarrow as pa

    stamps = [m.timestamp() for m in messages]
    headers = None
    if part.include_headers:
        headers = pa.array([[{"key": k, "value": v} for k, v in (m.headers() or ())] for m in messages],
                           schema.field("headers").type)
    return _batch(part, schema, len(messages), pa.array([m.key() for m in messages], pa.binary()),
                  pa.array([m.value() for m in messages], pa.binary()),
                  pa.array([m.offset() for m in messages], pa.int64()),
                  pa.array([s[1] for s in stamps], pa.int64()), pa.array([s[0] for s in stamps], pa.int32()), headers)
