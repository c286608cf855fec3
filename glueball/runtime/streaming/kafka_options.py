"""The Kafka source's options, read as Glue reads its Kafka connection options.

Glue's names (case-insensitive, as Spark hands data source options over):

- where: ``bootstrap.servers``, or ``connectionName`` naming a catalog KAFKA connection
  (``KAFKA_BOOTSTRAP_SERVERS``, ``KAFKA_SSL_ENABLED``, ``KAFKA_CUSTOM_CERT``,
  ``KAFKA_SKIP_CUSTOM_CERT_VALIDATION``, the client keystore and the PLAIN/SCRAM/GSSAPI SASL settings);
- what: exactly one of ``topicName`` (one topic, or several separated by commas), ``assign``
  (``{"topic": [0, 1]}``) and ``subscribePattern`` (a regular expression over topic names);
- from/to: ``startingOffsets`` (``earliest``, ``latest`` or ``{"topic": {"0": 23, "1": -2}}`` with
  -2 earliest and -1 latest), ``startingTimestamp`` (ISO-8601 or epoch milliseconds; exclusive with
  ``startingOffsets``), ``endingOffsets`` (``latest`` or JSON as above: the source never reads past it);
- how much: ``maxOffsetsPerTrigger``, ``minPartitions``, ``pollTimeoutMs``, ``numRetries``,
  ``retryIntervalMs``, ``failOnDataLoss``;
- what else: ``includeHeaders`` (a ``headers`` column), ``addRecordTimestamp`` and
  ``emitConsumerLagMetrics`` (used when the payload is decoded, see ``decode``);
- client settings passed to confluent-kafka (librdkafka) as they are: ``security.protocol``,
  ``ssl.*``, ``sasl.*``, and any ``kafka.<property>`` with the prefix removed.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from glueball.runtime.errors import GlueRuntimeError

_D = TypeVar("_D", int, None)

log = logging.getLogger("glueball.runtime.streaming")

EARLIEST = -2
LATEST = -1

# options the source itself reads (lower-cased: Spark hands them over case-insensitively)
SOURCE_OPTIONS = frozenset(name.lower() for name in (
    "bootstrap.servers", "connectionName", "topicName", "assign", "subscribePattern", "startingOffsets",
    "startingTimestamp", "endingOffsets", "maxOffsetsPerTrigger", "minPartitions", "pollTimeoutMs", "numRetries",
    "retryIntervalMs", "failOnDataLoss", "includeHeaders", "addRecordTimestamp", "emitConsumerLagMetrics",
    "security.protocol",
))
# options that belong to the payload decoding (GlueContext) or the catalog table, not the source
DECODE_OPTIONS = frozenset(name.lower() for name in (
    "classification", "inferSchema", "schema", "delimiter", "typeOfData", "avroSchema", "recordType",
    "grokPattern", "grokCustomPatterns", "schemaReference",
))
_PASS_THROUGH_PREFIXES = ("ssl.", "sasl.")


def lower_keys(options: Mapping[str, Any]) -> dict[str, Any]:
    return {str(k).lower(): v for k, v in options.items()}


def as_bool(value: Any, default: bool = False) -> bool:
    if value is None or value == "":
        return default
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("true", "1", "yes"):
        return True
    if text in ("false", "0", "no"):
        return False
    raise GlueRuntimeError(f"expected true or false, got {value!r}")


def int_option(options: Mapping[str, Any], name: str, default: _D, what: str, minimum: int = 0,
               maximum: int | None = None) -> int | _D:
    """The integer option ``name`` of lower-cased ``options`` (``default`` when absent), within bounds.

    Raises:
        GlueRuntimeError: not an integer, or out of bounds — naming ``what`` ("Kafka option"), the option
            and its value.
    """
    value = options.get(name.lower())
    if value is None or value == "":
        return default
    try:
        number = int(str(value).strip())
    except ValueError:
        raise GlueRuntimeError(f"{what} {name} must be an integer, got {value!r}") from None
    if number < minimum or (maximum is not None and number > maximum):
        bounds = f"between {minimum} and {maximum}" if maximum is not None else f"at least {minimum}"
        raise GlueRuntimeError(f"{what} {name} must be {bounds}, got {number}")
    return number


def _as_int(options: Mapping[str, Any], name: str, default: _D, minimum: int = 0) -> int | _D:
    return int_option(options, name, default, "Kafka option", minimum)


def _json_option(name: str, value: Any) -> Any:
    if isinstance(value, (dict, list)):
        return value
    try:
        return json.loads(str(value))
    except json.JSONDecodeError as e:
        raise GlueRuntimeError(f"Kafka option {name} is not valid JSON ({e.msg}): {value!r}") from None


def _partition_offsets(name: str, value: Any) -> dict[str, dict[int, int]]:
    """``{"topic": {"0": 23}}`` as ``{"topic": {0: 23}}``, checked."""
    parsed = _json_option(name, value)
    if not isinstance(parsed, dict) or not parsed:
        raise GlueRuntimeError(f"Kafka option {name} must be earliest, latest or a JSON object "
                               f'{{"topic": {{"0": offset}}}}, got {value!r}')
    out: dict[str, dict[int, int]] = {}
    for topic, partitions in parsed.items():
        if not isinstance(partitions, dict):
            raise GlueRuntimeError(f"Kafka option {name}: topic {topic!r} needs an object of partition offsets")
        try:
            out[str(topic)] = {int(p): int(o) for p, o in partitions.items()}
        except (TypeError, ValueError):
            raise GlueRuntimeError(f"Kafka option {name}: partitions and offsets of {topic!r} must be "
                                   f"integers, got {partitions!r}") from None
        bad = [o for o in out[str(topic)].values() if o < EARLIEST]
        if bad:
            raise GlueRuntimeError(f"Kafka option {name}: offset {bad[0]} of {topic!r} is not an offset, "
                                   f"-1 (latest) or -2 (earliest)")
    return out


def _assignment(value: Any) -> dict[str, list[int]]:
    parsed = _json_option("assign", value)
    if not isinstance(parsed, dict) or not parsed:
        raise GlueRuntimeError(f'Kafka option assign must be a JSON object {{"topic": [0, 1]}}, got {value!r}')
    out: dict[str, list[int]] = {}
    for topic, partitions in parsed.items():
        if not isinstance(partitions, list) or not partitions:
            raise GlueRuntimeError(f"Kafka option assign: topic {topic!r} needs a list of partitions")
        try:
            out[str(topic)] = sorted({int(p) for p in partitions})
        except (TypeError, ValueError):
            raise GlueRuntimeError(f"Kafka option assign: partitions of {topic!r} must be integers") from None
    return out


def parse_timestamp_ms(value: Any) -> int:
    """``startingTimestamp``: ISO-8601 (``2023-04-04T08:00:00+08:00``, ``...Z``) or epoch milliseconds."""
    text = str(value).strip()
    if re.fullmatch(r"\d+", text):
        return int(text)
    try:
        moment = dt.datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise GlueRuntimeError(f"Kafka option startingTimestamp must be yyyy-mm-ddTHH:MM:SSZ (or an offset "
                               f"like +08:00) or epoch milliseconds, got {value!r}") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.UTC)
    return int(moment.timestamp() * 1000)


@dataclass(frozen=True)
class Subscription:
    """What to read: fixed topics, fixed topic-partitions, or topics matching a pattern."""

    topics: tuple[str, ...] = ()
    assign: dict[str, list[int]] | None = None
    pattern: str | None = None

    def describe(self) -> str:
        if self.assign is not None:
            return f"assign {json.dumps(self.assign)}"
        if self.pattern is not None:
            return f"subscribePattern {self.pattern!r}"
        return f"topicName {','.join(self.topics)!r}"


@dataclass(frozen=True)
class KafkaOptions:
    """The source's options, checked (see the module docstring for their meaning)."""

    client_config: dict[str, str]
    subscription: Subscription
    starting: str | dict[str, dict[int, int]] = "latest"
    starting_timestamp_ms: int | None = None
    ending: str | dict[str, dict[int, int]] = "latest"
    max_offsets_per_trigger: int | None = None
    min_partitions: int | None = None
    poll_timeout_ms: int = 512
    num_retries: int = 3
    retry_interval_ms: int = 10
    fail_on_data_loss: bool = True
    include_headers: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def parse(cls, options: Mapping[str, Any], resolve_connection: bool = True) -> KafkaOptions:
        """Check ``options`` (any case) and build the client configuration.

        Raises:
            GlueRuntimeError: a missing, conflicting or malformed option, naming it and its value.
        """
        opts = lower_keys(options)
        config: dict[str, str] = {}
        connection = opts.get("connectionname")
        if connection and resolve_connection:
            config.update(connection_config(str(connection)))
        servers = opts.get("bootstrap.servers")
        if servers:
            config["bootstrap.servers"] = str(servers)
        if not config.get("bootstrap.servers") and not (connection and not resolve_connection):
            raise GlueRuntimeError("Kafka options need bootstrap.servers or connectionName (a catalog KAFKA "
                                   "connection)")
        config.update(client_settings(opts))

        chosen = [k for k in ("topicname", "assign", "subscribepattern") if opts.get(k)]
        if len(chosen) != 1:
            raise GlueRuntimeError("Kafka options need exactly one of topicName, assign and subscribePattern; got "
                                   + (", ".join(chosen) if chosen else "none"))
        if chosen[0] == "topicname":
            topics = tuple(t.strip() for t in str(opts["topicname"]).split(",") if t.strip())
            subscription = Subscription(topics=topics)
        elif chosen[0] == "assign":
            subscription = Subscription(assign=_assignment(opts["assign"]))
        else:
            pattern = str(opts["subscribepattern"])
            try:
                re.compile(pattern)
            except re.error as e:
                raise GlueRuntimeError(f"Kafka option subscribePattern is not a regular expression ({e}): "
                                       f"{pattern!r}") from None
            subscription = Subscription(pattern=pattern)

        starting: str | dict[str, dict[int, int]] = "latest"
        starting_ts = None
        if opts.get("startingtimestamp") not in (None, ""):
            if opts.get("startingoffsets") not in (None, ""):
                raise GlueRuntimeError("Kafka options startingOffsets and startingTimestamp exclude each other")
            starting_ts = parse_timestamp_ms(opts["startingtimestamp"])
        elif opts.get("startingoffsets") not in (None, ""):
            starting = _position("startingOffsets", opts["startingoffsets"], subscription)
        ending: str | dict[str, dict[int, int]] = "latest"
        if opts.get("endingoffsets") not in (None, ""):
            ending = _position("endingOffsets", opts["endingoffsets"], subscription)
            if ending == "earliest":
                raise GlueRuntimeError("Kafka option endingOffsets cannot be earliest")
            if isinstance(ending, dict) and any(o == EARLIEST for p in ending.values() for o in p.values()):
                raise GlueRuntimeError("Kafka option endingOffsets cannot use -2 (earliest)")

        return cls(
            client_config=config, subscription=subscription, starting=starting, starting_timestamp_ms=starting_ts,
            ending=ending,
            max_offsets_per_trigger=_as_int(opts, "maxOffsetsPerTrigger", None, minimum=1),
            min_partitions=_as_int(opts, "minPartitions", None, minimum=1),
            poll_timeout_ms=_as_int(opts, "pollTimeoutMs", 512, minimum=1) or 512,
            num_retries=_as_int(opts, "numRetries", 3) or 0,
            retry_interval_ms=_as_int(opts, "retryIntervalMs", 10) or 0,
            fail_on_data_loss=as_bool(opts.get("failondataloss"), True),
            include_headers=as_bool(opts.get("includeheaders"), False),
            extra={k: v for k, v in opts.items() if k not in SOURCE_OPTIONS},
        )


def _position(name: str, value: Any, subscription: Subscription) -> str | dict[str, dict[int, int]]:
    text = str(value).strip() if not isinstance(value, dict) else ""
    if text.lower() in ("earliest", "latest"):
        return text.lower()
    offsets = _partition_offsets(name, value)
    if subscription.assign is not None:
        assigned = {(t, p) for t, ps in subscription.assign.items() for p in ps}
        given = {(t, p) for t, ps in offsets.items() for p in ps}
        if given != assigned:
            raise GlueRuntimeError(f"Kafka option {name} must name exactly the assigned partitions "
                                   f"{sorted(assigned)}, got {sorted(given)}")
    elif subscription.topics:
        unknown = sorted(set(offsets) - set(subscription.topics))
        if unknown:
            raise GlueRuntimeError(f"Kafka option {name} names topics not subscribed: {', '.join(unknown)}")
    return offsets


def client_settings(opts: Mapping[str, Any]) -> dict[str, str]:
    """The confluent-kafka settings among ``opts``: ``security.protocol``, ``ssl.*``, ``sasl.*``, ``kafka.*``."""
    out: dict[str, str] = {}
    for key, value in opts.items():
        if value is None:
            continue
        if key.startswith("kafka."):
            out[key[len("kafka."):]] = str(value)
        elif key == "security.protocol" or key.startswith(_PASS_THROUGH_PREFIXES):
            out[key] = str(value)
    protocol = out.get("security.protocol")
    if protocol is not None:
        out["security.protocol"] = protocol.upper()
    return out


def connection_config(name: str, client: Any = None) -> dict[str, str]:
    """The client settings of the catalog KAFKA connection ``name`` (GetConnection with its secrets).

    Raises:
        GlueRuntimeError: the connection is missing, not KAFKA, or uses what librdkafka cannot
            (a JKS keystore is read only as PKCS#12; AWS_MSK_IAM and Secrets Manager are not here).
    """
    from botocore.exceptions import ClientError

    if client is None:
        from glueball.runtime.client import glue_client

        client = glue_client()
    try:
        connection = client.get_connection(Name=name, HidePassword=False)["Connection"]
    except ClientError as e:
        raise GlueRuntimeError(f"connectionName {name!r}: {e.response['Error']['Message']}") from e
    if connection.get("ConnectionType") != "KAFKA":
        raise GlueRuntimeError(f"connection {name!r} is a {connection.get('ConnectionType')} connection, "
                               f"not KAFKA")
    props: dict[str, str] = {k: str(v) for k, v in (connection.get("ConnectionProperties") or {}).items()}
    return properties_config(name, props)


def properties_config(name: str, props: Mapping[str, str]) -> dict[str, str]:
    """The client settings of a KAFKA connection called ``name`` with these ConnectionProperties.

    Raises:
        GlueRuntimeError: the properties ask for what librdkafka cannot do here (AWS_MSK_IAM, Secrets Manager).
    """
    config = {"bootstrap.servers": props.get("KAFKA_BOOTSTRAP_SERVERS", "")}
    ssl = as_bool(props.get("KAFKA_SSL_ENABLED"), False)
    if props.get("KAFKA_CUSTOM_CERT"):
        from glueball.objects.locations import local_path

        config["ssl.ca.location"] = str(local_path(props["KAFKA_CUSTOM_CERT"]))
    if as_bool(props.get("KAFKA_SKIP_CUSTOM_CERT_VALIDATION"), False):
        config["enable.ssl.certificate.verification"] = "false"
    if props.get("KAFKA_CLIENT_KEYSTORE"):
        from glueball.objects.locations import local_path

        config["ssl.keystore.location"] = str(local_path(props["KAFKA_CLIENT_KEYSTORE"]))
        if props.get("KAFKA_CLIENT_KEYSTORE_PASSWORD"):
            config["ssl.keystore.password"] = props["KAFKA_CLIENT_KEYSTORE_PASSWORD"]
        if props.get("KAFKA_CLIENT_KEY_PASSWORD"):
            config["ssl.key.password"] = props["KAFKA_CLIENT_KEY_PASSWORD"]
    mechanism = props.get("KAFKA_SASL_MECHANISM")
    if mechanism:
        config.update(_sasl_config(name, mechanism, props))
        config["security.protocol"] = "SASL_SSL" if ssl else "SASL_PLAINTEXT"
    elif ssl:
        config["security.protocol"] = "SSL"
    return config


def _sasl_config(name: str, mechanism: str, props: Mapping[str, str]) -> dict[str, str]:
    if mechanism == "PLAIN":
        return {"sasl.mechanism": "PLAIN", "sasl.username": props.get("KAFKA_SASL_PLAIN_USERNAME", ""),
                "sasl.password": props.get("KAFKA_SASL_PLAIN_PASSWORD", "")}
    if mechanism == "SCRAM-SHA-512":
        if not props.get("KAFKA_SASL_SCRAM_PASSWORD"):
            raise GlueRuntimeError(f"connection {name!r} keeps its SCRAM password in Secrets Manager "
                                   f"(KAFKA_SASL_SCRAM_SECRETS_ARN), which glueball cannot read; set "
                                   f"KAFKA_SASL_SCRAM_PASSWORD")
        return {"sasl.mechanism": "SCRAM-SHA-512", "sasl.username": props.get("KAFKA_SASL_SCRAM_USERNAME", ""),
                "sasl.password": props["KAFKA_SASL_SCRAM_PASSWORD"]}
    if mechanism == "GSSAPI":
        from glueball.objects.locations import local_path

        return {"sasl.mechanism": "GSSAPI",
                "sasl.kerberos.keytab": str(local_path(props.get("KAFKA_SASL_GSSAPI_KEYTAB", ""))),
                "sasl.kerberos.principal": props.get("KAFKA_SASL_GSSAPI_PRINCIPAL", ""),
                "sasl.kerberos.service.name": props.get("KAFKA_SASL_GSSAPI_SERVICE", "kafka")}
    raise GlueRuntimeError(f"connection {name!r} uses KAFKA_SASL_MECHANISM {mechanism}, which needs AWS IAM "
                           f"signing; glueball supports PLAIN, SCRAM-SHA-512 and GSSAPI")


def spark_options(options: Mapping[str, Any]) -> dict[str, str]:
    """``options`` as Spark data source options: strings, JSON for objects."""
    out: dict[str, str] = {}
    for key, value in options.items():
        if value is None:
            continue
        if isinstance(value, bool):
            out[str(key)] = "true" if value else "false"
        elif isinstance(value, (dict, list)):
            out[str(key)] = json.dumps(value)
        else:
            out[str(key)] = str(value)
    return out
