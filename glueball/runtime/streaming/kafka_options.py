"""Glue's Kafka connection options as the options of Spark's own Kafka source (``spark-sql-kafka-0-10``).

Glue's names, any case (Spark's own names are accepted too, and passed on as they are):

- where: ``bootstrap.servers`` (or ``kafka.bootstrap.servers``), or ``connectionName``: a catalog KAFKA
  connection (``kafka_connection``), whose bootstrap servers an explicit ``bootstrap.servers`` overrides;
- what: exactly one of ``topicName`` (one topic or several, comma-separated: Spark's ``subscribe``), ``assign``
  (``{"topic": [0, 1]}``) and ``subscribePattern`` (a Java regular expression over topic names);
- from: ``startingOffsets`` (``earliest``, ``latest`` or ``{"topic": {"0": 23, "1": -2}}``, -2 earliest and
  -1 latest) or ``startingTimestamp`` (ISO-8601 or epoch milliseconds: Spark's ``startingTimestamp`` with
  the strategy ``latest`` for partitions with no record at or after it); to: ``endingOffsets`` (``latest``,
  or JSON as ``startingOffsets`` with -1 for latest), which Spark refuses in streaming queries: the frame keeps
  only records before those offsets instead (``KafkaSource.ending``);
- how much: ``maxOffsetsPerTrigger``, ``minPartitions``, ``failOnDataLoss``; ``pollTimeoutMs``,
  ``numRetries``, ``retryIntervalMs`` as Spark's ``kafkaConsumer.pollTimeoutMs``, ``fetchOffset.numRetries``
  and ``fetchOffset.retryIntervalMs``;
- what else: ``includeHeaders`` (Spark's ``headers`` column); ``addRecordTimestamp``,
  ``emitConsumerLagMetrics``, ``classification`` and the payload options belong to the decoding (``decode``);
- the Kafka client: ``security.protocol`` and ``kafka.<property>`` (``ssl.*``, ``sasl.*`` without the prefix
  too): properties of Kafka's Java client, as Spark passes ``kafka.*`` options to it.

Bad values fail here, naming the option and the value; options nobody reads are logged.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from glueball.runtime.errors import GlueRuntimeError
from glueball.runtime.streaming.kafka_connection import ClientSettings, connection_settings, needs_msk_iam
from glueball.runtime.streaming.option_values import bool_option, int_option, lower_keys

log = logging.getLogger("glueball.runtime.streaming")

EARLIEST = -2
LATEST = -1
WHAT = "Kafka option"
PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
# Glue's name -> Spark's, for the options that only change name
RENAMED = {"pollTimeoutMs": "kafkaConsumer.pollTimeoutMs", "numRetries": "fetchOffset.numRetries",
           "retryIntervalMs": "fetchOffset.retryIntervalMs"}
# Spark's own source options, passed on as given (Spark checks them)
SPARK_OPTIONS = frozenset(name.lower() for name in (
    "maxRecordsPerPartition", "minOffsetsPerTrigger", "maxTriggerDelay", "groupIdPrefix",
    "startingOffsetsByTimestamp", "startingOffsetsByTimestampStrategy", *RENAMED.values(),
))
SOURCE_OPTIONS = frozenset(name.lower() for name in (
    "bootstrap.servers", "connectionName", "topicName", "subscribe", "assign", "subscribePattern",
    "startingOffsets", "startingTimestamp", "endingOffsets", "maxOffsetsPerTrigger", "minPartitions",
    "failOnDataLoss", "includeHeaders", "security.protocol", *RENAMED,
))
# options of the payload decoding (GlueContext) or of the catalog table, not of the source
DECODE_OPTIONS = frozenset(name.lower() for name in (
    "classification", "inferSchema", "schema", "delimiter", "typeOfData", "avroSchema", "avro.schema.literal",
    "recordType", "grokPattern", "grokCustomPatterns", "schemaReference", "addRecordTimestamp",
    "emitConsumerLagMetrics",
))
_CLIENT_PREFIXES = ("ssl.", "sasl.")

Offsets = dict[str, dict[int, int]]


@dataclass(frozen=True)
class KafkaSource:
    """What ``spark.readStream.format("kafka")`` is given, and what glueball adds on top.

    Attributes:
        options: Spark's Kafka source options (``kafka.*`` for the client).
        ending: ``endingOffsets`` per topic and partition (latest left out): rows at or past them are dropped.
        system_properties: JVM system properties the client needs (Kerberos' ``java.security.krb5.conf``).
    """

    options: dict[str, str]
    ending: Offsets = field(default_factory=dict)
    system_properties: dict[str, str] = field(default_factory=dict)

    @property
    def client(self) -> dict[str, str]:
        """The Kafka client properties (the ``kafka.*`` options without the prefix)."""
        return {k[len("kafka."):]: v for k, v in self.options.items() if k.startswith("kafka.")}

    @property
    def needs_msk_iam(self) -> bool:
        """Whether the client authenticates with the MSK IAM library (glueball's ``msk-iam`` jars)."""
        return needs_msk_iam(self.client)


def parse_timestamp_ms(value: Any) -> int:
    """``startingTimestamp``: ISO-8601 (``2023-04-04T08:00:00+08:00``, ``...Z``) or epoch milliseconds."""
    text = str(value).strip()
    if re.fullmatch(r"\d+", text):
        return int(text)
    try:
        moment = dt.datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise GlueRuntimeError(f"{WHAT} startingTimestamp must be yyyy-mm-ddTHH:MM:SSZ (or an offset like "
                               f"+08:00) or epoch milliseconds, got {value!r}") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.UTC)
    return int(moment.timestamp() * 1000)


def _json_option(name: str, value: Any) -> Any:
    if isinstance(value, (dict, list)):
        return value
    try:
        return json.loads(str(value))
    except json.JSONDecodeError as e:
        raise GlueRuntimeError(f"{WHAT} {name} is not valid JSON ({e.msg}): {value!r}") from None


def _partition_offsets(name: str, value: Any) -> Offsets:
    """``{"topic": {"0": 23}}`` as ``{"topic": {0: 23}}``, checked."""
    parsed = _json_option(name, value)
    if not isinstance(parsed, dict) or not parsed:
        raise GlueRuntimeError(f'{WHAT} {name} must be earliest, latest or a JSON object {{"topic": {{"0": offset}}}}, '
                               f"got {value!r}")
    out: Offsets = {}
    for topic, partitions in parsed.items():
        if not isinstance(partitions, dict) or not partitions:
            raise GlueRuntimeError(f"{WHAT} {name}: topic {topic!r} needs an object of partition offsets, "
                                   f"got {partitions!r}")
        try:
            out[str(topic)] = {int(p): int(o) for p, o in partitions.items()}
        except (TypeError, ValueError):
            raise GlueRuntimeError(f"{WHAT} {name}: partitions and offsets of {topic!r} must be integers, "
                                   f"got {partitions!r}") from None
        bad = [o for o in out[str(topic)].values() if o < EARLIEST]
        if bad:
            raise GlueRuntimeError(f"{WHAT} {name}: offset {bad[0]} of {topic!r} is not an offset, -1 (latest) or "
                                   f"-2 (earliest)")
    return out


def _assignment(value: Any) -> dict[str, list[int]]:
    parsed = _json_option("assign", value)
    if not isinstance(parsed, dict) or not parsed:
        raise GlueRuntimeError(f'{WHAT} assign must be a JSON object {{"topic": [0, 1]}}, got {value!r}')
    out: dict[str, list[int]] = {}
    for topic, partitions in parsed.items():
        if not isinstance(partitions, list) or not partitions:
            raise GlueRuntimeError(f"{WHAT} assign: topic {topic!r} needs a list of partitions, got {partitions!r}")
        try:
            out[str(topic)] = sorted({int(p) for p in partitions})
        except (TypeError, ValueError):
            raise GlueRuntimeError(f"{WHAT} assign: partitions of {topic!r} must be integers, "
                                   f"got {partitions!r}") from None
    return out


def _to_json(offsets: Offsets) -> str:
    return json.dumps({t: {str(p): o for p, o in sorted(ps.items())} for t, ps in offsets.items()})


@dataclass
class _Builder:
    """Spark options being built from lower-cased Glue options."""

    opts: dict[str, Any]
    spark: dict[str, str] = field(default_factory=dict)
    topics: tuple[str, ...] = ()
    assigned: dict[str, list[int]] | None = None

    def subscription(self) -> None:
        chosen = [k for k in ("topicname", "subscribe", "assign", "subscribepattern") if self.opts.get(k)]
        if len(chosen) != 1:
            raise GlueRuntimeError(f"{WHAT}s need exactly one of topicName, assign and subscribePattern; got "
                                   + (", ".join(chosen) if chosen else "none"))
        key, value = chosen[0], self.opts[chosen[0]]
        if key in ("topicname", "subscribe"):
            self.topics = tuple(t.strip() for t in str(value).split(",") if t.strip())
            if not self.topics:
                raise GlueRuntimeError(f"{WHAT} topicName names no topic: {value!r}")
            self.spark["subscribe"] = ",".join(self.topics)
        elif key == "assign":
            self.assigned = _assignment(value)
            self.spark["assign"] = json.dumps(self.assigned)
        else:
            pattern = str(value).strip()
            try:
                re.compile(pattern)
            except re.error as e:
                raise GlueRuntimeError(f"{WHAT} subscribePattern is not a regular expression ({e}): {value!r}") \
                    from None
            self.spark["subscribePattern"] = pattern

    def positions(self) -> Offsets:
        """``startingOffsets``/``startingTimestamp`` into the Spark options; ``endingOffsets`` returned."""
        starting, timestamp = self.opts.get("startingoffsets"), self.opts.get("startingtimestamp")
        if timestamp not in (None, ""):
            if starting not in (None, ""):
                raise GlueRuntimeError(f"{WHAT}s startingOffsets and startingTimestamp exclude each other")
            self.spark["startingTimestamp"] = str(parse_timestamp_ms(timestamp))
            if "startingoffsetsbytimestampstrategy" not in self.opts:  # Spark's own option, given: it wins
                self.spark["startingOffsetsByTimestampStrategy"] = "latest"
        elif starting not in (None, ""):
            given = self._position("startingOffsets", starting)
            self.spark["startingOffsets"] = given if isinstance(given, str) else _to_json(given)
        ending = self.opts.get("endingoffsets")
        if ending in (None, ""):
            return {}
        end = self._position("endingOffsets", ending)
        if end == "earliest" or (isinstance(end, dict) and any(o == EARLIEST for ps in end.values()
                                                               for o in ps.values())):
            raise GlueRuntimeError(f"{WHAT} endingOffsets cannot be earliest (-2), got {ending!r}")
        if isinstance(end, str):
            return {}
        return {t: {p: o for p, o in ps.items() if o != LATEST} for t, ps in end.items()}

    def _position(self, name: str, value: Any) -> str | Offsets:
        text = "" if isinstance(value, dict) else str(value).strip()
        if text.lower() in ("earliest", "latest"):
            return text.lower()
        offsets = _partition_offsets(name, value)
        if self.assigned is not None:
            assigned = {(t, p) for t, ps in self.assigned.items() for p in ps}
            given = {(t, p) for t, ps in offsets.items() for p in ps}
            if given != assigned:
                raise GlueRuntimeError(f"{WHAT} {name} must name exactly the assigned partitions {sorted(assigned)}, "
                                       f"got {sorted(given)}")
        elif self.topics:
            unknown = sorted(set(offsets) - set(self.topics))
            if unknown:
                raise GlueRuntimeError(f"{WHAT} {name} names topics not subscribed: {', '.join(unknown)}")
        return offsets

    def limits(self) -> None:
        for name, minimum in (("maxOffsetsPerTrigger", 1), ("minPartitions", 1), ("pollTimeoutMs", 1),
                              ("numRetries", 0), ("retryIntervalMs", 0)):
            number = int_option(self.opts, name, None, WHAT, minimum)
            if number is not None:
                self.spark[RENAMED.get(name, name)] = str(number)
        for name, default in (("failOnDataLoss", True), ("includeHeaders", False)):
            if self.opts.get(name.lower()) not in (None, ""):
                self.spark[name] = "true" if bool_option(self.opts, name, default, WHAT) else "false"
        for key, value in self.opts.items():
            if key in SPARK_OPTIONS and value is not None:
                self.spark[key] = str(value)


def client_options(opts: Mapping[str, Any]) -> dict[str, str]:
    """The Kafka client properties among lower-cased ``opts``: ``kafka.*``, ``security.protocol``, ``ssl.*``,
    ``sasl.*`` (without the ``kafka.`` prefix).

    Raises:
        GlueRuntimeError: ``security.protocol`` is not one of Kafka's.
    """
    out: dict[str, str] = {}
    for key, value in opts.items():
        if value is None:
            continue
        if key.startswith("kafka."):
            out[key[len("kafka."):]] = str(value)
        elif key == "security.protocol" or key.startswith(_CLIENT_PREFIXES):
            out[key] = str(value)
    if "security.protocol" in out:
        protocol = out["security.protocol"].strip().upper()
        if protocol not in PROTOCOLS:
            raise GlueRuntimeError(f"{WHAT} security.protocol must be one of {', '.join(PROTOCOLS)}, "
                                   f"got {out['security.protocol']!r}")
        out["security.protocol"] = protocol
    return out


def kafka_source(options: Mapping[str, Any], glue_client: Any = None) -> KafkaSource:
    """Glue's Kafka connection ``options`` (any case) as Spark's Kafka source options.

    A ``connectionName`` is resolved now (GetConnection through ``glue_client``, else the runtime's client).

    Raises:
        GlueRuntimeError: a missing, conflicting or malformed option, naming it and its value; a connection that
            cannot be used (see ``kafka_connection``).
    """
    opts = lower_keys(options)
    connection = opts.get("connectionname")
    settings = connection_settings(str(connection), glue_client) if connection else ClientSettings({})
    client = {k: v for k, v in settings.properties.items() if v != ""}
    client.update(client_options(opts))
    if opts.get("bootstrap.servers"):
        client["bootstrap.servers"] = str(opts["bootstrap.servers"])
    if not client.get("bootstrap.servers"):
        raise GlueRuntimeError(f"{WHAT}s need bootstrap.servers or connectionName (a catalog KAFKA connection)")
    builder = _Builder(opts)
    builder.subscription()
    ending = builder.positions()
    builder.limits()
    unused = sorted(k for k in opts if k not in SOURCE_OPTIONS and k not in DECODE_OPTIONS and k not in SPARK_OPTIONS
                    and not k.startswith(("kafka.", *_CLIENT_PREFIXES)))
    if unused:
        log.warning("kafka connection options not used: %s", ", ".join(unused))
    spark = {**builder.spark, **{f"kafka.{k}": v for k, v in client.items()}}
    return KafkaSource(spark, ending, dict(settings.system_properties))
