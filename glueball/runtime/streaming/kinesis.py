"""Kinesis Data Streams as a PySpark streaming Python data source (``format("glueball-kinesis")``).

Written on PySpark 4's Python data source API with boto3 (any endpoint: ``endpointUrl``):

- **Offsets** are Spark offsets, one position per shard, kept in the query's checkpoint:
  ``{"shardId-000000000000": "AFTER:49590...", "shardId-000000000001": "TRIM_HORIZON"}``. A position is
  ``TRIM_HORIZON``, ``AT_TIMESTAMP:<epoch ms>`` (where ``startingPosition`` put it), ``AFTER:<sequence
  number>`` (the last record read) or ``SHARD_END:<sequence number>`` (a closed shard read to its end).
  A restarted query resumes from its checkpoint; a new one starts from ``startingPosition`` (``latest`` is
  pinned as ``AT_TIMESTAMP`` of the moment the query starts, so a replayed batch reads the same records).
- **Planning** (driver): ``latestOffset`` lists the shards (at most every ``describeShardInterval``) and,
  per readable shard, reads ahead with GetRecords — at most ``maxFetchRecordsPerShard`` records and
  ``maxFetchTimeInMs`` — to find where the batch ends (Kinesis has no cheaper way to learn a shard's
  latest sequence number). No records anywhere: the offsets do not move and no batch is planned.
  PySpark 4.1's ``latestOffset()`` is not given the batch's start: the reader keeps it — the end it last
  planned, or after a restart the end of the batch Spark plans first from the checkpoint (``partitions``);
  a new query asks for ``latestOffset`` before ``initialOffset``, so the initial offset is computed once.
  ``Trigger.AvailableNow`` runs one batch (PySpark 4.1 wraps a Python source so), capped as any other.
- **Resharding**: a child shard (``ParentShardId``/``AdjacentParentShardId``) is read only once every
  parent still in the stream is at ``SHARD_END`` in a committed offset (closed, and read up to its
  ``EndingSequenceNumber``, or GetRecords answered no next iterator). Its records come after its parents'.
- **Reading** (tasks): one Spark partition per shard with records; the task reads ``(start, end]`` of its
  shard with GetRecords (``maxRecordPerRead``) and hands Spark Arrow record batches.

Columns, as Glue's Kinesis source: ``data`` (binary), ``streamName``, ``partitionKey``, ``sequenceNumber``
(strings) and ``approximateArrivalTimestamp`` (UTC).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from pyspark.sql.datasource import DataSource, DataSourceStreamReader, InputPartition
from pyspark.sql.types import StructType

from glueball.runtime.errors import GlueRuntimeError
from glueball.runtime.streaming.kinesis_options import TRIM_HORIZON, KinesisOptions

if TYPE_CHECKING:
    import pyarrow as pa

log = logging.getLogger("glueball.runtime.streaming")

SOURCE_NAME = "glueball-kinesis"
SCHEMA = ("data binary, streamName string, partitionKey string, sequenceNumber string, "
          "approximateArrivalTimestamp timestamp")
AFTER = "AFTER:"
SHARD_END = "SHARD_END:"
ARROW_BATCH_ROWS = 32_768
MIN_STALL_SECONDS = 10.0
_THROTTLED = ("ProvisionedThroughputExceededException", "LimitExceededException", "KMSThrottlingException",
              "ThrottlingException")
T = TypeVar("T")


def sequence(position: str) -> int | None:
    """The sequence number a position stands after (None: ``TRIM_HORIZON``, a timestamp, an empty end)."""
    for prefix in (AFTER, SHARD_END):
        if position.startswith(prefix) and position[len(prefix):]:
            return int(position[len(prefix):])
    return None


def is_shard_end(position: str) -> bool:
    return position.startswith(SHARD_END)


@dataclass(frozen=True)
class Shard:
    """A shard as ListShards describes it."""

    shard_id: str
    parents: tuple[str, ...]
    ending_sequence: int | None  # set once the shard is closed

    @classmethod
    def from_api(cls, item: Mapping[str, Any]) -> Shard:
        parents = tuple(p for p in (item.get("ParentShardId"), item.get("AdjacentParentShardId")) if p)
        ending = item.get("SequenceNumberRange", {}).get("EndingSequenceNumber")
        return cls(item["ShardId"], parents, int(ending) if ending not in (None, "") else None)


@dataclass
class ShardRange(InputPartition):
    """One Spark task's share: the records of one shard after ``start`` up to sequence number ``end``."""

    shard_id: str
    start: str
    end: int
    options: KinesisOptions


class KinesisDataSource(DataSource):
    """The ``glueball-kinesis`` streaming source (options: see ``glueball.runtime.streaming.kinesis_options``)."""

    @classmethod
    def name(cls) -> str:
        return SOURCE_NAME

    def schema(self) -> str:
        return SCHEMA

    def streamReader(self, schema: StructType) -> DataSourceStreamReader:  # noqa: N802
        return KinesisStreamReader(KinesisOptions.parse(self.options), schema)


class Stream:
    """Calls to one stream with Glue's retries (``numRetries``, ``retryIntervalMs``, ``maxRetryIntervalMs``)."""

    def __init__(self, options: KinesisOptions) -> None:
        self.options = options
        self.client = options.client()

    def call(self, what: str, operation: Callable[..., T], **kwargs: Any) -> T:
        from botocore.exceptions import ClientError, ConnectionError

        opts = self.options
        delay = opts.retry_interval_ms / 1000
        for attempt in range(opts.num_retries + 1):
            try:
                return operation(**kwargs)
            except ClientError as e:
                code = e.response.get("Error", {}).get("Code", "")
                if code not in _THROTTLED or attempt == opts.num_retries:
                    raise GlueRuntimeError(f"Kinesis {what} on stream {opts.stream_name!r} failed: {e}") from e
            except ConnectionError as e:
                if attempt == opts.num_retries:
                    raise GlueRuntimeError(f"Kinesis {what}: cannot reach {opts.endpoint_url or opts.region}: "
                                           f"{e}") from e
            time.sleep(delay)
            delay = min(delay * 2, opts.max_retry_interval_ms / 1000)
        raise AssertionError("unreachable")

    def shards(self) -> list[Shard]:
        out: list[Shard] = []
        kwargs: dict[str, Any] = {"StreamName": self.options.stream_name}
        while True:
            page = self.call("ListShards", self.client.list_shards, **kwargs)
            out.extend(Shard.from_api(item) for item in page.get("Shards", []))
            token = page.get("NextToken")
            if not token:
                return sorted(out, key=lambda s: s.shard_id)
            kwargs = {"NextToken": token}

    def iterator(self, shard_id: str, position: str) -> str:
        kwargs: dict[str, Any] = {"StreamName": self.options.stream_name, "ShardId": shard_id}
        after = sequence(position)
        if after is not None:
            kwargs.update(ShardIteratorType="AFTER_SEQUENCE_NUMBER", StartingSequenceNumber=str(after))
        elif position.startswith("AT_TIMESTAMP:"):
            millis = int(position.split(":", 1)[1])
            kwargs.update(ShardIteratorType="AT_TIMESTAMP", Timestamp=millis / 1000)
        else:
            kwargs.update(ShardIteratorType="TRIM_HORIZON")
        return str(self.call("GetShardIterator", self.client.get_shard_iterator, **kwargs)["ShardIterator"])

    def get_records(self, shard_iterator: str, limit: int) -> dict[str, Any]:
        return self.call("GetRecords", self.client.get_records, ShardIterator=shard_iterator, Limit=limit)


class KinesisStreamReader(DataSourceStreamReader):
    """Plans micro-batches over shard positions; ``read`` runs in the tasks (see the module docstring)."""

    def __init__(self, options: KinesisOptions, schema: StructType) -> None:
        self.options = options
        self.schema = schema
        self._stream: Stream | None = None
        self._shards: list[Shard] = []
        self._listed_at = 0.0
        self._initial: dict[str, str] | None = None
        self._position: dict[str, str] | None = None  # where the next batch starts

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_stream"] = None  # the driver's client stays behind
        return state

    @property
    def stream(self) -> Stream:
        if self._stream is None:
            self._stream = Stream(self.options)
        return self._stream

    def shards(self, fresh: bool = False) -> list[Shard]:
        now = time.monotonic()
        if fresh or not self._shards or (now - self._listed_at) * 1000 >= self.options.describe_shard_interval_ms:
            self._shards = self.stream.shards()
            self._listed_at = now
        return self._shards

    # -- planning (driver) -----------------------------------------------------------------------

    def initialOffset(self) -> dict:  # noqa: N802
        if self._initial is None:  # once: a "latest" start is pinned to the query's first call
            start = self.options.starting_position
            if start == "LATEST":
                start = f"AT_TIMESTAMP:{int(time.time() * 1000)}"
            self._initial = {shard.shard_id: start for shard in self.shards(fresh=True)}
        return dict(self._initial)

    def latestOffset(self) -> dict:  # noqa: N802
        start = self._position if self._position is not None else self.initialOffset()
        shards = self.shards()
        listed = {s.shard_id for s in shards}
        gone = sorted(sid for sid, pos in start.items() if sid not in listed and not is_shard_end(pos))
        if gone:
            log.warning("Kinesis: shards %s of %s left the stream before they were read to their end (retention)",
                        ", ".join(gone), self.options.stream_name)
        end = dict(start)
        for shard in shards:
            position = end.setdefault(shard.shard_id, TRIM_HORIZON)  # a new shard: all its records are new
            if is_shard_end(position) or not self._parents_done(shard, start, listed):
                continue
            end[shard.shard_id] = self._read_ahead(shard, position)
        self._position = dict(sorted(end.items()))
        return dict(self._position)

    @staticmethod
    def _parents_done(shard: Shard, start: Mapping[str, str], listed: set[str]) -> bool:
        return all(p not in listed or is_shard_end(start.get(p, "")) for p in shard.parents)

    def _read_ahead(self, shard: Shard, position: str) -> str:
        """Where this batch ends on ``shard``: at most ``maxFetchRecordsPerShard`` records, ``maxFetchTimeInMs``."""
        opts, stream = self.options, self.stream
        last = sequence(position)
        if shard.ending_sequence is not None and last is not None and last >= shard.ending_sequence:
            return f"{SHARD_END}{last}"
        deadline = time.monotonic() + opts.max_fetch_time_ms / 1000
        shard_iterator: str | None = stream.iterator(shard.shard_id, position)
        count = 0
        ended = False
        while shard_iterator is not None and count < opts.max_fetch_records_per_shard:
            answer = stream.get_records(shard_iterator, min(opts.max_record_per_read,
                                                            opts.max_fetch_records_per_shard - count))
            records = answer.get("Records", [])
            if records:
                last, count = int(records[-1]["SequenceNumber"]), count + len(records)
            shard_iterator = answer.get("NextShardIterator")
            ended = shard_iterator is None or (shard.ending_sequence is not None and last is not None
                                               and last >= shard.ending_sequence)
            caught_up = not records and not answer.get("MillisBehindLatest")
            if ended or caught_up or time.monotonic() >= deadline:
                ended = ended or (caught_up and shard.ending_sequence is not None)
                break
            if opts.idle_between_reads_ms:
                time.sleep(opts.idle_between_reads_ms / 1000)
        if ended:
            return f"{SHARD_END}{'' if last is None else last}"
        return position if last is None else f"{AFTER}{last}"

    def partitions(self, start: dict, end: dict) -> Sequence[InputPartition]:
        if self._position is None:  # a restart: Spark plans the checkpoint's last batch before asking for more
            self._position = dict(end)
        out: list[InputPartition] = []
        for shard_id, position in sorted(end.items()):
            until = sequence(position)
            begin = start.get(shard_id, TRIM_HORIZON)
            if until is None or begin == position:
                continue
            after = sequence(begin)
            if after is None or until > after:
                out.append(ShardRange(shard_id, begin, until, self.options))
        return out

    def commit(self, end: dict) -> None:
        # Spark's checkpoint holds the positions; nothing is kept in Kinesis (no lease table)
        if self._position is None:
            self._position = dict(end)

    def stop(self) -> None:
        self._stream = None

    # -- reading (tasks) ---------------------------------------------------------------------------

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        assert isinstance(partition, ShardRange)
        from pyspark.sql.pandas.types import to_arrow_schema

        yield from read_range(partition, to_arrow_schema(self.schema))  # timestamps in UTC


def read_range(part: ShardRange, schema: pa.Schema) -> Iterator[pa.RecordBatch]:
    """The records of ``part`` as Arrow batches of the source's columns."""
    opts = part.options
    stream = Stream(opts)
    where = f"{opts.stream_name}/{part.shard_id} ({part.start}, {part.end}]"
    stall_limit = max(MIN_STALL_SECONDS, opts.max_fetch_time_ms / 1000 * (opts.num_retries + 1))
    shard_iterator: str | None = stream.iterator(part.shard_id, part.start)
    pending: list[dict[str, Any]] = []
    last_progress = time.monotonic()
    while True:
        if shard_iterator is None:
            raise GlueRuntimeError(f"Kinesis: {where} ended before sequence number {part.end}")
        answer = stream.get_records(shard_iterator, opts.max_record_per_read)
        records = answer.get("Records", [])
        shard_iterator = answer.get("NextShardIterator")
        done = bool(records) and int(records[-1]["SequenceNumber"]) >= part.end
        if done:
            records = [r for r in records if int(r["SequenceNumber"]) <= part.end]
        if records:
            pending.extend(records)
            last_progress = time.monotonic()
        elif time.monotonic() - last_progress > stall_limit:
            raise GlueRuntimeError(f"Kinesis: no records of {where} arrived for {stall_limit:.0f} s (trimmed by "
                                   f"retention?)")
        if len(pending) >= ARROW_BATCH_ROWS or (done and pending):
            yield to_arrow(pending, opts.stream_name, schema)
            pending = []
        if done:
            return
        if opts.idle_between_reads_ms:
            time.sleep(opts.idle_between_reads_ms / 1000)
        elif not records:
            time.sleep(0.05)


def to_arrow(records: list[dict[str, Any]], stream_name: str, schema: pa.Schema) -> pa.RecordBatch:
    """One Arrow batch of the source's columns from GetRecords records."""
    import pyarrow as pa

    n = len(records)
    columns = {
        "data": pa.array([r["Data"] for r in records], pa.binary()),
        "streamName": pa.repeat(pa.scalar(stream_name, pa.string()), n),
        "partitionKey": pa.array([r.get("PartitionKey") for r in records], pa.string()),
        "sequenceNumber": pa.array([r["SequenceNumber"] for r in records], pa.string()),
        "approximateArrivalTimestamp": pa.array(
            [int(r["ApproximateArrivalTimestamp"].timestamp() * 1_000_000) for r in records], pa.int64()
        ).cast(schema.field("approximateArrivalTimestamp").type),
    }
    return pa.RecordBatch.from_arrays([columns[f.name] for f in schema], schema=schema)
