"""The Kinesis source's options, read as Glue reads its Kinesis connection options.

Glue's names (case-insensitive, as Spark hands data source options over):

- where: ``streamARN`` (``arn:aws:kinesis:REGION:ACCOUNT:stream/NAME``: the region comes from it) or
  ``streamName``; ``endpointUrl`` (``https://kinesis.us-east-1.amazonaws.com`` or any Kinesis-compatible
  endpoint: the region is taken from an AWS host name); otherwise the region of boto3's configuration
  (``AWS_DEFAULT_REGION``, ...), ``us-east-1`` when there is none. Credentials: boto3's default chain.
- from: ``startingPosition`` ``latest`` (default), ``trim_horizon`` or ``earliest`` (the same), or an
  ISO-8601 timestamp (``2023-04-04T08:00:00-04:00``, ``...Z``). Used only when the checkpoint is new.
- how much: ``maxFetchRecordsPerShard`` (default 100000, per shard per micro-batch), ``maxRecordPerRead``
  (default 10000, one GetRecords call), ``maxFetchTimeInMs`` (default 1000: time spent finding a batch's
  records per shard), ``addIdleTimeBetweenReads``/``idleTimeBetweenReadsInMs`` (default false/1000),
  ``describeShardInterval`` (default ``1s``: shards are listed at most this often), ``numRetries``,
  ``retryIntervalMs``, ``maxRetryIntervalMs`` (3, 1000, 10000: throttled calls are retried with back-off),
  ``avoidEmptyBatches`` (accepted: empty batches are never planned here).
- refused: ``awsSTSRoleARN``, ``awsSTSSessionName``, ``awsSTSEndpoint`` (glueball assumes no roles: give the
  credentials to boto3), enhanced fan-out consumers, ``includeHeaders`` (Kafka only).
"""

from __future__ import annotations

import datetime as dt
import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from glueball.runtime.errors import GlueRuntimeError
from glueball.runtime.streaming.option_values import as_bool, int_option, lower_keys

log = logging.getLogger("glueball.runtime.streaming")

TRIM_HORIZON = "TRIM_HORIZON"
# options the source reads (lower-cased)
SOURCE_OPTIONS = frozenset(name.lower() for name in (
    "streamARN", "streamName", "endpointUrl", "startingPosition", "maxFetchRecordsPerShard", "maxRecordPerRead",
    "maxFetchTimeInMs", "addIdleTimeBetweenReads", "idleTimeBetweenReadsInMs", "describeShardInterval",
    "numRetries", "retryIntervalMs", "maxRetryIntervalMs", "avoidEmptyBatches", "addRecordTimestamp",
    "emitConsumerLagMetrics",
))
REFUSED = {
    "awsstsrolearn": "glueball does not assume IAM roles; give boto3 the credentials (environment, profile)",
    "awsstssessionname": "glueball does not assume IAM roles",
    "awsstsendpoint": "glueball does not assume IAM roles",
    "fanoutconsumerarn": "enhanced fan-out consumers are not supported; the source polls with GetRecords",
    "fanoutconsumername": "enhanced fan-out consumers are not supported; the source polls with GetRecords",
    "includeheaders": "Kinesis records have no headers (a Kafka option)",
}
_ARN = re.compile(r"arn:aws[\w-]*:kinesis:([\w-]+):(\d+):stream/([\w.-]+)")
_AWS_HOST = re.compile(r"kinesis(?:-fips)?\.([a-z]{2}(?:-[a-z]+)+-\d)\.amazonaws")
_INTERVAL = re.compile(r"(\d+)\s*(ms|s|sec|secs|seconds?|m|min|minutes?)?")


def _as_int(opts: Mapping[str, Any], name: str, default: int, minimum: int = 0, maximum: int | None = None) -> int:
    return int_option(opts, name, default, "Kinesis option", minimum, maximum)


def _interval_ms(value: Any, default_ms: int) -> int:
    """``describeShardInterval``: ``1s``, ``500ms``, ``2m`` or plain seconds."""
    if value is None or value == "":
        return default_ms
    match = _INTERVAL.fullmatch(str(value).strip().lower())
    if match is None:
        raise GlueRuntimeError(f"Kinesis option describeShardInterval must be like 1s, 500ms or 2m, got {value!r}")
    number, unit = int(match.group(1)), match.group(2) or "s"
    return number if unit == "ms" else number * 60_000 if unit.startswith("m") else number * 1000


def parse_starting_position(value: Any) -> str:
    """``TRIM_HORIZON``, ``LATEST`` or ``AT_TIMESTAMP:<epoch ms>`` (a timestamp string)."""
    text = str(value or "latest").strip()
    upper = text.upper()
    if upper in ("TRIM_HORIZON", "EARLIEST"):
        return TRIM_HORIZON
    if upper == "LATEST":
        return "LATEST"
    try:
        moment = dt.datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise GlueRuntimeError(f"Kinesis option startingPosition must be latest, trim_horizon, earliest or a "
                               f"timestamp yyyy-mm-ddTHH:MM:SSZ (or with an offset like -04:00), got {value!r}"
                               ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.UTC)
    return f"AT_TIMESTAMP:{int(moment.timestamp() * 1000)}"


def default_region() -> str:
    import boto3

    return boto3.session.Session().region_name or "us-east-1"


@dataclass(frozen=True)
class KinesisOptions:
    """The source's options, checked (see the module docstring for their meaning)."""

    stream_name: str
    region: str
    endpoint_url: str | None = None
    starting_position: str = "LATEST"
    max_fetch_records_per_shard: int = 100_000
    max_record_per_read: int = 10_000
    max_fetch_time_ms: int = 1000
    idle_between_reads_ms: int = 0
    describe_shard_interval_ms: int = 1000
    num_retries: int = 3
    retry_interval_ms: int = 1000
    max_retry_interval_ms: int = 10_000

    @classmethod
    def parse(cls, options: Mapping[str, Any]) -> KinesisOptions:
        """Check ``options`` (any case).

        Raises:
            GlueRuntimeError: a missing, refused or malformed option, naming it and its value.
        """
        opts = lower_keys(options)
        for key, why in REFUSED.items():
            if opts.get(key) not in (None, ""):
                raise GlueRuntimeError(f"Kinesis option {key} is not supported: {why}")
        arn, name = opts.get("streamarn"), opts.get("streamname")
        if bool(arn) == bool(name):
            raise GlueRuntimeError("Kinesis options need exactly one of streamARN and streamName")
        endpoint = str(opts["endpointurl"]).strip() if opts.get("endpointurl") else None
        host_region = _AWS_HOST.search(endpoint) if endpoint else None
        if arn:
            match = _ARN.fullmatch(str(arn).strip())
            if match is None:
                raise GlueRuntimeError(f"Kinesis option streamARN is not a stream ARN "
                                       f"(arn:aws:kinesis:REGION:ACCOUNT:stream/NAME): {arn!r}")
            region, stream = match.group(1), match.group(3)
        else:
            stream = str(name).strip()
            region = host_region.group(1) if host_region else default_region()
        idle = as_bool(opts.get("addidletimebetweenreads"), False)
        as_bool(opts.get("avoidemptybatches"), False)  # checked; empty batches are never planned
        return cls(
            stream_name=stream, region=region, endpoint_url=endpoint,
            starting_position=parse_starting_position(opts.get("startingposition")),
            max_fetch_records_per_shard=_as_int(opts, "maxFetchRecordsPerShard", 100_000, minimum=1),
            max_record_per_read=_as_int(opts, "maxRecordPerRead", 10_000, minimum=1, maximum=10_000),
            max_fetch_time_ms=_as_int(opts, "maxFetchTimeInMs", 1000, minimum=1),
            idle_between_reads_ms=_as_int(opts, "idleTimeBetweenReadsInMs", 1000) if idle else 0,
            describe_shard_interval_ms=_interval_ms(opts.get("describeshardinterval"), 1000),
            num_retries=_as_int(opts, "numRetries", 3),
            retry_interval_ms=_as_int(opts, "retryIntervalMs", 1000),
            max_retry_interval_ms=_as_int(opts, "maxRetryIntervalMs", 10_000),
        )

    def client(self) -> Any:
        """A boto3 Kinesis client for these options (botocore's own retries off: ours apply)."""
        import boto3
        from botocore.config import Config

        return boto3.client("kinesis", region_name=self.region, endpoint_url=self.endpoint_url,
                            config=Config(retries={"max_attempts": 1, "mode": "standard"},
                                          connect_timeout=10, read_timeout=30))
