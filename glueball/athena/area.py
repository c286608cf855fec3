"""The athena area: Athena's API (``AmazonAthena.*``) and glueball's own operations for its engines."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from glueball.api.identity import Caller
from glueball.api.operations import Operations
from glueball.store.engine import Store
from glueball.store.scoped import Scope

OPERATIONS = Operations("athena")
INTERNAL_OPERATIONS = Operations("glueball")


@dataclass(frozen=True, eq=False)
class AthenaNeeds:
    """What Athena's handlers are given.

    Attributes:
        store: the store.
        home: ``GLUEBALL_HOME`` (queries' outcome records live under ``athena/queries``).
        queued: called when a query waits for an engine (the engine runner starts one if none runs).
        open_object: a readable binary file of an object (``s3://bucket/key``); raises FileNotFoundError.
        glue: a Glue client acting as the caller (the catalog operations: ListDatabases, GetTableMetadata ...).
        credentials: the access key, secret and session token an engine acts with for a query started with
            the given access key (None: the key is no longer valid).
        catalog_table: a catalog table as Glue stores it (its ``TableInput`` shape) in a scope; raises when there is
            no such table. Its columns' types decide some translations (``a / b`` of integers), its header lines how
            it is read.
        iceberg: whether an engine started now has Iceberg (this installation has Iceberg's jars): statements of
            Iceberg tables run then, and are refused naming the jars otherwise.
    """

    store: Store
    home: Path
    queued: Callable[[], None]
    open_object: Callable[[str], IO[bytes]]
    glue: Callable[[Caller], Any]
    credentials: Callable[[str | None], tuple[str, str, str | None] | None]
    catalog_table: Callable[[Scope, str, str], dict[str, Any]]
    iceberg: Callable[[], bool] = lambda: False
