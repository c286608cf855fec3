"""Glue connections: JDBC, KAFKA and NETWORK, per account and region.

Connection names are case-sensitive and kept as given. Properties are checked
the way Glue checks them on CreateConnection and UpdateConnection; a password
is stored as given and left out of every answer asked with ``HidePassword``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from glueball.api.pagination import decode_token, encode_token
from glueball.clock import now
from glueball.connections.models import (
    CONNECTION_SCHEMA_VERSION,
    Connection,
    ConnectionType,
)
from glueball.errors import AlreadyExistsException, EntityNotFoundException, GlueError, InvalidInputException
from glueball.store.engine import Store
from glueball.store.schema import ConnectionRow
from glueball.store.scoped import Scope
from glueball.tagging.service import delete_tags, move_tags, register_resource_type, write_tags

_JDBC_URL = re.compile(r"jdbc:[A-Za-z][A-Za-z0-9+.\-]*:\S+")
_HOST = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9.\-]*[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\]")
_BOOLEAN_PROPERTIES = ("JDBC_ENFORCE_SSL", "SKIP_CUSTOM_JDBC_CERT_VALIDATION", "KAFKA_SSL_ENABLED",
                       "KAFKA_SKIP_CUSTOM_CERT_VALIDATION")
KAFKA_SASL_MECHANISMS = ("SCRAM-SHA-512", "GSSAPI", "AWS_MSK_IAM", "PLAIN")


def _valid_port(text: str) -> bool:
    return text.isdigit() and 0 < int(text) < 65536


def _check_booleans(properties: dict[str, str]) -> None:
    for key in _BOOLEAN_PROPERTIES:
        value = properties.get(key)
        if value is not None and value.lower() not in ("true", "false"):
            raise InvalidInputException(f"Connection property {key} must be 'true' or 'false', got {value!r}")


def _check_jdbc(connection: Connection) -> None:
    url = connection.properties.get("JDBC_CONNECTION_URL")
    if url is None:
        raise InvalidInputException("JDBC connections require the connection property JDBC_CONNECTION_URL")
    if _JDBC_URL.fullmatch(url) is None:
        raise InvalidInputException(
            f"Connection property JDBC_CONNECTION_URL must be a JDBC URL (jdbc:<subprotocol>:<location>), got {url!r}"
        )


def _check_kafka(connection: Connection) -> None:
    servers = connection.properties.get("KAFKA_BOOTSTRAP_SERVERS")
    if servers is None:
        raise InvalidInputException("KAFKA connections require the connection property KAFKA_BOOTSTRAP_SERVERS")
    for server in servers.split(","):
        host, colon, port = server.strip().rpartition(":")
        if not colon or _HOST.fullmatch(host) is None or not _valid_port(port):
            raise InvalidInputException(
                "Connection property KAFKA_BOOTSTRAP_SERVERS must be a comma-separated list of host:port, "
                f"got {server.strip()!r}"
            )
    mechanism = connection.properties.get("KAFKA_SASL_MECHANISM")
    if mechanism is None:
        return
    if mechanism not in KAFKA_SASL_MECHANISMS:
        raise InvalidInputException(
            f"Connection property KAFKA_SASL_MECHANISM must be one of {', '.join(KAFKA_SASL_MECHANISMS)}, "
            f"got {mechanism!r}"
        )
    needed = {
        "PLAIN": ("KAFKA_SASL_PLAIN_USERNAME", "KAFKA_SASL_PLAIN_PASSWORD"),
        "SCRAM-SHA-512": ("KAFKA_SASL_SCRAM_USERNAME",),
        "GSSAPI": ("KAFKA_SASL_GSSAPI_KEYTAB", "KAFKA_SASL_GSSAPI_KRB5_CONF", "KAFKA_SASL_GSSAPI_SERVICE",
                   "KAFKA_SASL_GSSAPI_PRINCIPAL"),
    }.get(mechanism, ())
    for key in needed:
        if key not in connection.properties:
            raise InvalidInputException(f"KAFKA_SASL_MECHANISM {mechanism} requires the connection property {key}")
    if mechanism == "SCRAM-SHA-512" and not ({"KAFKA_SASL_SCRAM_PASSWORD", "KAFKA_SASL_SCRAM_SECRETS_ARN"}
                                             & connection.properties.keys()):
        raise InvalidInputException(
            "KAFKA_SASL_MECHANISM SCRAM-SHA-512 requires the connection property KAFKA_SASL_SCRAM_PASSWORD "
            "or KAFKA_SASL_SCRAM_SECRETS_ARN"
        )


def _check_network(connection: Connection) -> None:
    physical = connection.physical
    if physical is None:
        raise InvalidInputException("NETWORK connections require PhysicalConnectionRequirements")
    if not physical.subnet_id:
        raise InvalidInputException("NETWORK connections require PhysicalConnectionRequirements.SubnetId")
    if not physical.security_group_ids:
        raise InvalidInputException(
            "NETWORK connections require at least one security group in "
            "PhysicalConnectionRequirements.SecurityGroupIdList"
        )


def validate_connection(connection: Connection) -> None:
    """Check a connection's properties the way Glue does for its type.

    Raises:
        InvalidInputException: naming the missing or malformed property.
    """
    properties = connection.properties
    _check_booleans(properties)
    port = properties.get("PORT")
    if port is not None and not _valid_port(port):
        raise InvalidInputException(f"Connection property PORT must be a port number, got {port!r}")
    if connection.connection_type is ConnectionType.JDBC:
        _check_jdbc(connection)
    elif connection.connection_type is ConnectionType.KAFKA:
        _check_kafka(connection)
    else:
        _check_network(connection)


@dataclass
class ConnectionFilter:
    """GetConnections' Filter: every given criterion must hold."""

    match_criteria: list[str] = field(default_factory=list)
    connection_type: str | None = None
    schema_version: int | None = None

    def accepts(self, connection: Connection) -> bool:
        if self.connection_type is not None and connection.connection_type.value != self.connection_type:
            return False
        if self.schema_version is not None and self.schema_version != CONNECTION_SCHEMA_VERSION:
            return False
        return set(self.match_criteria) <= set(connection.match_criteria)


def _to_model(row: ConnectionRow) -> Connection:
    return Connection.from_spec(row.name, row.spec, row.create_time, row.update_time)


def _connection_row(session: Session, scope: Scope, name: str, for_update: bool = False) -> ConnectionRow:
    query = select(ConnectionRow).where(
        ConnectionRow.account_id == scope.account_id,
        ConnectionRow.region == scope.region,
        ConnectionRow.name == name,
    )
    if for_update:
        query = query.with_for_update()
    row = session.scalars(query).one_or_none()
    if row is None:
        raise EntityNotFoundException(f"Connection {name} not found.")
    return row


def _connection_exists(session: Session, scope: Scope, name: str) -> bool:
    query = select(ConnectionRow.id).where(
        ConnectionRow.account_id == scope.account_id,
        ConnectionRow.region == scope.region,
        ConnectionRow.name == name,
    )
    return session.scalar(query) is not None


register_resource_type("connection", _connection_exists)


class ConnectionService:
    """Create, read, update and delete Glue connections (per account and region)."""

    def __init__(self, store: Store, scope: Scope) -> None:
        self.store = store
        self.scope = scope

    def arn(self, name: str) -> str:
        return self.scope.arn(f"connection/{name}")

    def create(self, connection: Connection, tags: dict[str, str] | None = None) -> None:
        """Mirror CreateConnection: properties are validated; duplicates are AlreadyExists.

        Raises:
            InvalidInputException: a required property is missing or malformed, or a tag is invalid.
            AlreadyExistsException: a connection of this name exists.
        """
        validate_connection(connection)
        stamp = now()
        try:
            with self.store.write() as session:
                session.add(ConnectionRow(account_id=self.scope.account_id, region=self.scope.region,
                                          name=connection.name, spec=connection.to_spec(),
                                          create_time=stamp, update_time=stamp))
                session.flush()
                write_tags(session, self.arn(connection.name), tags)
        except IntegrityError as exc:
            raise AlreadyExistsException(f"Connection {connection.name} already exists.") from exc

    def get(self, name: str, hide_password: bool = False) -> Connection:
        """Mirror GetConnection; with ``hide_password`` no password property is returned.

        Raises:
            EntityNotFoundException: no connection of this name.
        """
        with self.store.read() as session:
            connection = _to_model(_connection_row(session, self.scope, name))
        return connection.without_secrets() if hide_password else connection

    def page(self, connection_filter: ConnectionFilter, max_results: int, token: str | None,
             hide_password: bool = False) -> tuple[list[Connection], str | None]:
        """Mirror GetConnections: connections in name order that pass the filter, one page at a time."""
        after = decode_token(token, str)
        query = (
            select(ConnectionRow)
            .where(ConnectionRow.account_id == self.scope.account_id, ConnectionRow.region == self.scope.region)
            .order_by(ConnectionRow.name)
        )
        if after is not None:
            query = query.where(ConnectionRow.name > str(after))
        found: list[Connection] = []
        more = False
        with self.store.read() as session:
            # the filter reads the stored structure; scan in name order until the page is full
            for row in session.scalars(query.execution_options(yield_per=200)):
                connection = _to_model(row)
                if not connection_filter.accepts(connection):
                    continue
                if len(found) == max_results:
                    more = True
                    break
                found.append(connection)
        if hide_password:
            found = [c.without_secrets() for c in found]
        return found, encode_token(found[-1].name) if more else None

    def update(self, name: str, connection: Connection) -> None:
        """Mirror UpdateConnection: the new definition replaces the old one; a new Name renames it.

        Raises:
            EntityNotFoundException: no connection called ``name``.
            AlreadyExistsException: renaming onto an existing connection.
            InvalidInputException: a required property is missing or malformed.
        """
        validate_connection(connection)
        try:
            with self.store.write() as session:
                row = _connection_row(session, self.scope, name, for_update=True)
                if connection.name != row.name:
                    if _connection_exists(session, self.scope, connection.name):
                        raise AlreadyExistsException(f"Connection {connection.name} already exists.")
                    move_tags(session, self.arn(row.name), self.arn(connection.name))
                    row.name = connection.name
                row.spec = connection.to_spec()
                row.update_time = now()
        except IntegrityError as exc:
            raise AlreadyExistsException(f"Connection {connection.name} already exists.") from exc

    def delete(self, name: str) -> None:
        """Mirror DeleteConnection: its tags go with it.

        Raises:
            EntityNotFoundException: no connection of this name.
        """
        with self.store.write() as session:
            row = _connection_row(session, self.scope, name, for_update=True)
            delete_tags(session, self.arn(row.name))
            session.delete(row)

    def delete_many(self, names: Iterable[str]) -> tuple[list[str], dict[str, GlueError]]:
        """Mirror BatchDeleteConnection: each name is deleted on its own; failures are reported per name."""
        succeeded: list[str] = []
        errors: dict[str, GlueError] = {}
        for name in dict.fromkeys(names):  # a name listed twice is deleted once
            try:
                self.delete(name)
            except GlueError as err:
                errors[name] = err
            else:
                succeeded.append(name)
        return succeeded, errors
