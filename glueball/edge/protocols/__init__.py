"""The wire protocols of the services glueball serves, one module each.

A protocol turns a :class:`~glueball.edge.wire.WireRequest` into an operation name and its
parameters (:meth:`Protocol.parse`), and an answer or a :class:`~glueball.errors.ServiceError`
into a :class:`~glueball.edge.wire.WireResponse`. Shapes come from the service's botocore model.
"""

from __future__ import annotations

from glueball.edge.protocols.base import Protocol
from glueball.edge.protocols.json import JsonProtocol
from glueball.edge.protocols.query import QueryProtocol
from glueball.edge.protocols.rest import RestProtocol

__all__ = ["JsonProtocol", "Protocol", "QueryProtocol", "RestProtocol"]
