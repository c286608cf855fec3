"""A catalog ``KAFKA`` connection as the properties of Kafka's Java client, as Glue's Kafka sources use it.

The properties (``ConnectionProperties``) and what they become:

- ``KAFKA_BOOTSTRAP_SERVERS`` -> ``bootstrap.servers``;
- ``KAFKA_SSL_ENABLED`` ``true`` -> ``security.protocol`` ``SSL`` (``SASL_SSL`` with a SASL mechanism);
- ``KAFKA_CUSTOM_CERT``: the CA certificate(s) to trust, a PEM file (``s3://`` paths are read from the object
  store) -> ``ssl.truststore.type`` ``PEM`` with the certificates themselves in ``ssl.truststore.certificates``,
  so every executor has them. Unless ``KAFKA_SKIP_CUSTOM_CERT_VALIDATION`` is ``true``, the file is checked as
  Glue checks it: PEM certificates signed with SHA256withRSA, SHA384withRSA or SHA512withRSA;
- ``KAFKA_CLIENT_KEYSTORE`` (JKS or PKCS#12; ``s3://`` from the object store), ``KAFKA_CLIENT_KEYSTORE_PASSWORD``,
  ``KAFKA_CLIENT_KEY_PASSWORD`` -> ``ssl.keystore.location``, ``ssl.keystore.password``, ``ssl.key.password``;
- ``KAFKA_SASL_MECHANISM``: ``PLAIN`` and ``SCRAM-SHA-512`` (``..._USERNAME``/``..._PASSWORD``) -> Kafka's
  login modules in ``sasl.jaas.config``; ``GSSAPI`` -> Krb5LoginModule with ``KAFKA_SASL_GSSAPI_KEYTAB`` and
  ``_PRINCIPAL``, ``sasl.kerberos.service.name`` ``KAFKA_SASL_GSSAPI_SERVICE``, and ``KAFKA_SASL_GSSAPI_KRB5_CONF``
  as the JVM's ``java.security.krb5.conf``; ``AWS_MSK_IAM`` -> ``SASL_SSL`` with the MSK IAM library's login
  module and callback handler (``MSK_IAM``), as Glue configures MSK IAM connections.

Refused, with the reason: SCRAM passwords kept only in Secrets Manager (``KAFKA_SASL_SCRAM_SECRETS_ARN``) and
passwords kept only encrypted (``ENCRYPTED_...``: glueball has neither Secrets Manager nor KMS).
"""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from glueball.runtime.errors import GlueRuntimeError
from glueball.runtime.streaming.option_values import as_bool

MSK_IAM_LOGIN_MODULE = "software.amazon.msk.auth.iam.IAMLoginModule"
MSK_IAM_CALLBACK_HANDLER = "software.amazon.msk.auth.iam.IAMClientCallbackHandler"
# what Glue sets for an MSK connection with IAM authentication (the aws-msk-iam-auth library's mechanism)
MSK_IAM = {"security.protocol": "SASL_SSL", "sasl.mechanism": "AWS_MSK_IAM",
           "sasl.jaas.config": f"{MSK_IAM_LOGIN_MODULE} required;",
           "sasl.client.callback.handler.class": MSK_IAM_CALLBACK_HANDLER}
KRB5_CONF = "java.security.krb5.conf"
# the signature algorithms Glue accepts for a custom CA certificate: sha{256,384,512}WithRSAEncryption
_ACCEPTED_SIGNATURES = {"1.2.840.113549.1.1.11": "SHA256withRSA", "1.2.840.113549.1.1.12": "SHA384withRSA",
                        "1.2.840.113549.1.1.13": "SHA512withRSA"}
_PEM_CERTIFICATE = re.compile(r"-----BEGIN CERTIFICATE-----\s*(.*?)\s*-----END CERTIFICATE-----", re.S)


@dataclass(frozen=True)
class ClientSettings:
    """Kafka client properties, and the JVM system properties they need (Kerberos' krb5.conf)."""

    properties: dict[str, str]
    system_properties: dict[str, str] = field(default_factory=dict)


def connection_settings(name: str, client: Any = None) -> ClientSettings:
    """The client settings of the catalog KAFKA connection ``name`` (GetConnection, passwords included).

    Raises:
        GlueRuntimeError: the connection is missing or not KAFKA, or its properties are refused (see the module).
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
    props = {k: str(v) for k, v in (connection.get("ConnectionProperties") or {}).items()}
    return client_settings(f"connection {name!r}", props)


def client_settings(name: str, props: Mapping[str, str]) -> ClientSettings:
    """The client settings of KAFKA connection properties; ``name`` is how messages call them.

    Raises:
        GlueRuntimeError: a property names what glueball cannot use (see the module), or a file that cannot be
            read or is not what it should be.
    """
    config = {"bootstrap.servers": props.get("KAFKA_BOOTSTRAP_SERVERS", "")}
    system: dict[str, str] = {}
    ssl = _flag(name, props, "KAFKA_SSL_ENABLED")
    if props.get("KAFKA_CUSTOM_CERT"):
        certificates = _read_text(name, "KAFKA_CUSTOM_CERT", props["KAFKA_CUSTOM_CERT"])
        if not _flag(name, props, "KAFKA_SKIP_CUSTOM_CERT_VALIDATION"):
            check_ca_certificates(name, props["KAFKA_CUSTOM_CERT"], certificates)
        config.update({"ssl.truststore.type": "PEM", "ssl.truststore.certificates": certificates})
    if props.get("KAFKA_CLIENT_KEYSTORE"):
        keystore = _local_file(name, "KAFKA_CLIENT_KEYSTORE", props["KAFKA_CLIENT_KEYSTORE"])
        config["ssl.keystore.location"] = str(keystore)
        for prop, setting in (("KAFKA_CLIENT_KEYSTORE_PASSWORD", "ssl.keystore.password"),
                              ("KAFKA_CLIENT_KEY_PASSWORD", "ssl.key.password")):
            value = _secret(name, props, prop)
            if value:
                config[setting] = value
    mechanism = props.get("KAFKA_SASL_MECHANISM")
    if mechanism == "AWS_MSK_IAM":
        config.update(MSK_IAM)
    elif mechanism:
        config.update(_sasl(name, mechanism, props, system))
        config["security.protocol"] = "SASL_SSL" if ssl else "SASL_PLAINTEXT"
    elif ssl:
        config["security.protocol"] = "SSL"
    return ClientSettings(config, system)


def needs_msk_iam(properties: Mapping[str, Any]) -> bool:
    """Whether Kafka client ``properties`` use the MSK IAM library (its mechanism, login module or handler)."""
    values = " ".join(str(properties.get(k) or "") for k in ("sasl.mechanism", "sasl.jaas.config",
                                                              "sasl.client.callback.handler.class",
                                                              "sasl.login.callback.handler.class"))
    return "AWS_MSK_IAM" in values or "software.amazon.msk.auth.iam." in values


def jaas_quoted(value: str) -> str:
    """``value`` as a quoted string of a JAAS configuration (``sasl.jaas.config``)."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _flag(name: str, props: Mapping[str, str], prop: str) -> bool:
    try:
        return as_bool(props.get(prop), False)
    except GlueRuntimeError:
        raise GlueRuntimeError(f"{name}: {prop} must be true or false, got {props.get(prop)!r}") from None


def _secret(name: str, props: Mapping[str, str], prop: str) -> str:
    """A password property; one kept only encrypted (``ENCRYPTED_<prop>``) is refused."""
    value = props.get(prop, "")
    if not value and props.get(f"ENCRYPTED_{prop}"):
        raise GlueRuntimeError(f"{name} keeps {prop} only encrypted (ENCRYPTED_{prop}), which glueball cannot "
                               f"decrypt (it has no KMS); set {prop}")
    return value


def _local_file(name: str, prop: str, location: str) -> Any:
    from glueball.objects.locations import LocationError, local_path

    try:
        path = local_path(location)
    except LocationError as e:
        raise GlueRuntimeError(f"{name}: {prop} {location!r}: {e}") from None
    if not path.is_file():
        raise GlueRuntimeError(f"{name}: {prop} {location!r} does not exist")
    return path


def _read_text(name: str, prop: str, location: str) -> str:
    try:
        return str(_local_file(name, prop, location).read_text())
    except (OSError, UnicodeDecodeError) as e:
        raise GlueRuntimeError(f"{name}: {prop} {location!r} cannot be read as a PEM file: {e}") from None


def check_ca_certificates(name: str, location: str, text: str) -> None:
    """Glue's check of a custom CA file: PEM certificates, each signed with SHA-256/384/512 and RSA.

    Raises:
        GlueRuntimeError: no certificate in the file, one that does not parse, or another signature algorithm.
    """
    blocks = _PEM_CERTIFICATE.findall(text)
    if not blocks:
        raise GlueRuntimeError(f"{name}: KAFKA_CUSTOM_CERT {location!r} holds no PEM certificate "
                               f"(-----BEGIN CERTIFICATE-----)")
    for block in blocks:
        try:
            algorithm = _signature_algorithm(base64.b64decode(block))
        except (ValueError, IndexError):
            raise GlueRuntimeError(f"{name}: KAFKA_CUSTOM_CERT {location!r} holds a certificate that does not "
                                   f"parse") from None
        if algorithm not in _ACCEPTED_SIGNATURES:
            raise GlueRuntimeError(
                f"{name}: KAFKA_CUSTOM_CERT {location!r} holds a certificate signed with algorithm {algorithm}; "
                f"Glue accepts {', '.join(_ACCEPTED_SIGNATURES.values())} (KAFKA_SKIP_CUSTOM_CERT_VALIDATION "
                f"true skips this check)")


def _der(data: bytes, at: int) -> tuple[int, int, int]:
    """The DER element at ``at``: (tag, start of its content, end of its content)."""
    tag, length = data[at], data[at + 1]
    at += 2
    if length & 0x80:
        size = length & 0x7F
        if not 0 < size <= 4:
            raise ValueError("unsupported DER length")
        length = int.from_bytes(data[at:at + size], "big")
        at += size
    if at + length > len(data):
        raise ValueError("truncated DER")
    return tag, at, at + length


def _signature_algorithm(der: bytes) -> str:
    """The dotted OID of an X.509 certificate's ``signatureAlgorithm`` (after the TBSCertificate)."""
    tag, start, _ = _der(der, 0)
    if tag != 0x30:
        raise ValueError("not a certificate")
    _, _, tbs_end = _der(der, start)
    tag, algorithm, _ = _der(der, tbs_end)
    oid_tag, oid_start, oid_end = _der(der, algorithm)
    if tag != 0x30 or oid_tag != 0x06:
        raise ValueError("no signature algorithm")
    raw = der[oid_start:oid_end]
    parts, value = [raw[0] // 40, raw[0] % 40], 0
    for byte in raw[1:]:
        value = value << 7 | byte & 0x7F
        if not byte & 0x80:
            parts.append(value)
            value = 0
    return ".".join(str(p) for p in parts)


def _sasl(name: str, mechanism: str, props: Mapping[str, str], system: dict[str, str]) -> dict[str, str]:
    if mechanism == "PLAIN":
        return {"sasl.mechanism": "PLAIN", "sasl.jaas.config": _login(
            "org.apache.kafka.common.security.plain.PlainLoginModule",
            username=props.get("KAFKA_SASL_PLAIN_USERNAME", ""),
            password=_secret(name, props, "KAFKA_SASL_PLAIN_PASSWORD"))}
    if mechanism == "SCRAM-SHA-512":
        password = _secret(name, props, "KAFKA_SASL_SCRAM_PASSWORD")
        if not password:
            raise GlueRuntimeError(f"{name} keeps its SCRAM password in Secrets Manager "
                                   f"(KAFKA_SASL_SCRAM_SECRETS_ARN), which glueball cannot read; set "
                                   f"KAFKA_SASL_SCRAM_PASSWORD")
        return {"sasl.mechanism": "SCRAM-SHA-512", "sasl.jaas.config": _login(
            "org.apache.kafka.common.security.scram.ScramLoginModule",
            username=props.get("KAFKA_SASL_SCRAM_USERNAME", ""), password=password)}
    if mechanism == "GSSAPI":
        keytab = _local_file(name, "KAFKA_SASL_GSSAPI_KEYTAB", props.get("KAFKA_SASL_GSSAPI_KEYTAB", ""))
        if props.get("KAFKA_SASL_GSSAPI_KRB5_CONF"):
            krb5 = _local_file(name, "KAFKA_SASL_GSSAPI_KRB5_CONF", props["KAFKA_SASL_GSSAPI_KRB5_CONF"])
            system[KRB5_CONF] = str(krb5)
        return {"sasl.mechanism": "GSSAPI",
                "sasl.kerberos.service.name": props.get("KAFKA_SASL_GSSAPI_SERVICE") or "kafka",
                "sasl.jaas.config": "com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true "
                                    f"storeKey=true keyTab={jaas_quoted(str(keytab))} "
                                    f"principal={jaas_quoted(props.get('KAFKA_SASL_GSSAPI_PRINCIPAL', ''))};"}
    raise GlueRuntimeError(f"{name}: KAFKA_SASL_MECHANISM {mechanism!r} is not one of PLAIN, SCRAM-SHA-512, GSSAPI, "
                           f"AWS_MSK_IAM")


def _login(module: str, **values: str) -> str:
    return f"{module} required " + " ".join(f"{k}={jaas_quoted(v)}" for k, v in values.items()) + ";"
