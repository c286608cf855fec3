"""Operation registry and dispatch: ``AWSGlue.<Operation>`` -> handler.

Handlers are plain functions ``handler(app, caller, request) -> response``
registered with :func:`operation`; they parse wire dicts into typed models,
call a service and serialize its answer. Nothing here knows HTTP.

glueball's own operations, which job drivers call on the server that launched
them (``X-Amz-Target: Glueball.<Operation>``, e.g. ``Glueball.GetJobBookmarkState``),
are registered with :func:`internal_operation` and served by :func:`dispatch_internal`.
They are not in the Glue model: their handlers validate their input themselves.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from glueball.api.identity import Caller
from glueball.api.model import operation_names, service_model
from glueball.api.validation import validate
from glueball.errors import (
    AccessDeniedException,
    GlueError,
    InternalServiceException,
    SerializationException,
    UnknownOperationException,
)

if TYPE_CHECKING:
    from glueball.app import Glueball

Request = dict[str, Any]
Response = dict[str, Any]
Handler = Callable[["Glueball", Caller, Request], Response]

HANDLERS: dict[str, Handler] = {}
INTERNAL_PREFIX = "Glueball"
INTERNAL_HANDLERS: dict[str, Handler] = {}
log = logging.getLogger("glueball.api")


def operation(name: str) -> Callable[[Handler], Handler]:
    """Register a handler for the Glue operation ``name`` (checked against the model)."""
    if name not in operation_names():
        raise ValueError(f"{name} is not an operation of the Glue service model")

    def register(handler: Handler) -> Handler:
        if name in HANDLERS:
            raise ValueError(f"{name} is registered twice")
        HANDLERS[name] = handler
        return handler

    return register


def internal_operation(name: str) -> Callable[[Handler], Handler]:
    """Register a handler for glueball's own operation ``Glueball.<name>`` (not a Glue operation)."""

    def register(handler: Handler) -> Handler:
        if name in INTERNAL_HANDLERS:
            raise ValueError(f"{INTERNAL_PREFIX}.{name} is registered twice")
        INTERNAL_HANDLERS[name] = handler
        return handler

    return register


def load_handlers() -> dict[str, Handler]:
    """Import every area's handlers module so that their operations register."""
    import glueball.catalog.handlers  # noqa: F401
    import glueball.connections.handlers  # noqa: F401
    import glueball.crawlers.handlers  # noqa: F401
    import glueball.dataquality.handlers  # noqa: F401
    import glueball.jobs.bookmark_handlers  # noqa: F401
    import glueball.jobs.handlers  # noqa: F401
    import glueball.tagging.handlers  # noqa: F401
    import glueball.workflows.handlers  # noqa: F401

    return HANDLERS


def dispatch(app: Glueball, caller: Caller, operation_name: str, request: Any) -> Response:
    """Validate ``request`` against the model and run the operation's handler.

    Raises:
        GlueError: the client's mistake or a Glue-level failure, with its code.
    """
    handlers = load_handlers()
    if operation_name not in operation_names():
        raise UnknownOperationException(f"Unknown operation AWSGlue.{operation_name}")
    handler = handlers.get(operation_name)
    if handler is None:
        raise UnknownOperationException(
            f"AWSGlue.{operation_name} is not implemented by glueball; "
            "see docs/IMPLEMENTATION_COVERAGE.md"
        )
    op_model = service_model().operation_model(operation_name)
    if request is None:
        request = {}
    validate(op_model.input_shape, request)
    catalog_id = request.get("CatalogId")
    if catalog_id is not None and catalog_id != caller.account_id:
        raise AccessDeniedException(
            f"Cross-account access to catalog {catalog_id} is not allowed for account {caller.account_id}"
        )
    try:
        return handler(app, caller, request)
    except GlueError:
        raise
    except Exception as exc:
        log.exception("AWSGlue.%s failed", operation_name)
        raise InternalServiceException(f"Internal error in AWSGlue.{operation_name}: {type(exc).__name__}") from exc


def dispatch_internal(app: Glueball, caller: Caller, operation_name: str, request: Any) -> Response:
    """Run glueball's own operation ``Glueball.<operation_name>`` (its handler validates ``request``).

    Raises:
        GlueError: ``UnknownOperationException`` for an operation glueball does not have, or the handler's error.
    """
    load_handlers()
    handler = INTERNAL_HANDLERS.get(operation_name)
    if handler is None:
        raise UnknownOperationException(f"Unknown operation {INTERNAL_PREFIX}.{operation_name}")
    if request is None:
        request = {}
    if not isinstance(request, dict):
        raise SerializationException(f"{INTERNAL_PREFIX}.{operation_name} expects a JSON object")
    try:
        return handler(app, caller, request)
    except GlueError:
        raise
    except Exception as exc:
        log.exception("%s.%s failed", INTERNAL_PREFIX, operation_name)
        raise InternalServiceException(
            f"Internal error in {INTERNAL_PREFIX}.{operation_name}: {type(exc).__name__}") from exc
