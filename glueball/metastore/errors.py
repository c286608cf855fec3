"""Glue's errors as the Hive metastore's exceptions.

A Hive call may raise only the exceptions its Thrift signature declares (any other reaches the client
as an internal error), so a Glue error code becomes the first of its Hive counterparts that the call
declares, read from the generated ``<call>_result`` struct: ``EntityNotFoundException`` ->
``NoSuchObjectException``, ``AlreadyExistsException`` -> ``AlreadyExistsException``,
``InvalidInputException`` -> ``InvalidObjectException`` or ``InvalidOperationException``,
``ConcurrentModificationException`` -> ``InvalidOperationException``, anything else (access denied
included) -> ``MetaException``. A read (``get_*``) of a name Glue refuses answers
``NoSuchObjectException``: no such object can exist, and the Hive client goes on to the call that
reports Glue's reason (Spark looks a table up before creating it). The message keeps Glue's code and words.
"""

from __future__ import annotations

import functools
from typing import Any

from pymetastore.hive_metastore import ThriftHiveMetastore as hms_service
from pymetastore.hive_metastore import ttypes as hms

_COUNTERPARTS: dict[str, tuple[type[Exception], ...]] = {
    "EntityNotFoundException": (hms.NoSuchObjectException, hms.UnknownDBException, hms.UnknownTableException,
                                hms.InvalidObjectException),
    "AlreadyExistsException": (hms.AlreadyExistsException, hms.InvalidObjectException),
    "InvalidInputException": (hms.InvalidObjectException, hms.InvalidOperationException),
    "ValidationException": (hms.InvalidObjectException, hms.InvalidOperationException),
    "ConcurrentModificationException": (hms.InvalidOperationException,),
}


class MetastoreError(Exception):
    """An error of the endpoint itself, with the Glue error code it stands for."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@functools.cache
def declared(call: str) -> tuple[type[Exception], ...]:
    """The exceptions Hive's Thrift signature of ``call`` declares."""
    result = getattr(hms_service, f"{call}_result", None)
    if result is None:
        return (hms.MetaException,)
    return tuple(spec[3][0] for spec in result.thrift_spec[1:]
                 if spec is not None and spec[1] == 12 and isinstance(spec[3], list)
                 and isinstance(spec[3][0], type) and issubclass(spec[3][0], Exception))


def code_and_message(error: Exception) -> tuple[str, str]:
    """Glue's error code and message of a botocore ``ClientError`` or a :class:`MetastoreError`."""
    if isinstance(error, MetastoreError):
        return error.code, error.message
    response: dict[str, Any] = getattr(error, "response", None) or {}
    details = response.get("Error") or {}
    return str(details.get("Code") or type(error).__name__), str(details.get("Message") or error)


def to_hive(call: str, error: Exception) -> Exception:
    """The Hive exception ``call`` raises for a Glue error."""
    code, message = code_and_message(error)
    allowed = declared(call)
    counterparts = _COUNTERPARTS.get(code, ())
    if call.startswith("get_") and code in ("ValidationException", "InvalidInputException"):
        counterparts = (hms.NoSuchObjectException, *counterparts)  # no object can have a name Glue refuses
    kind: Any = next((k for k in counterparts if k in allowed), None)
    if kind is None:
        kind = hms.MetaException if hms.MetaException in allowed or not allowed else allowed[0]
    return kind(message=f"{code}: {message}")
