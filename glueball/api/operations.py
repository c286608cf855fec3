"""What an area declares to be served: its operations, by service, and the handler of each.

This is the contract between the service areas and the edge. An area builds one
:class:`Operations` per service it answers (``Operations("glue")`` for ``AWSGlue.*``,
``Operations("glueball")`` for glueball's own ``Glueball.*`` operations, ``Operations("sts")``
...) and registers a handler per operation::

    OPERATIONS = Operations("glue")

    @OPERATIONS.operation("GetDatabase")
    def get_database(needs: CatalogNeeds, caller: Caller, request: Request) -> Response: ...

A handler receives what its area declared it needs (a small dataclass the composition root
builds, never the whole application), the :class:`~glueball.api.identity.Caller`, and the
request as the edge parsed and validated it against the service's model; it returns the
response members as plain values. The edge checks the names against the service's model when
the composition root mounts the operations. Nothing here knows HTTP, protocols or areas.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from glueball.api.identity import Caller

Request = dict[str, Any]
Response = dict[str, Any]
# answer members the model has no place for: the HTTP status (S3's 206 and 204), and a body written as is
# (S3's GetBucketLocation, whose document the model's shapes cannot express)
STATUS = "__status"
RAW_BODY = "__body"
Handler = Callable[[Any, Caller, Request], Response]


class Operations:
    """The handlers one area serves for one service, by operation name."""

    def __init__(self, service: str) -> None:
        self.service = service
        self.handlers: dict[str, Handler] = {}

    def operation(self, name: str) -> Callable[[Handler], Handler]:
        """Register the decorated function as the handler of ``name``.

        Raises:
            ValueError: ``name`` already has a handler in this registry.
        """

        def register(handler: Handler) -> Handler:
            if name in self.handlers:
                raise ValueError(f"{self.service}:{name} is registered twice")
            self.handlers[name] = handler
            return handler

        return register

    def __iter__(self) -> Iterator[str]:
        return iter(self.handlers)

    def __len__(self) -> int:
        return len(self.handlers)
