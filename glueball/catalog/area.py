"""The Data Catalog area: the Glue operations it serves and what it needs to serve them.

Handlers live in ``handlers`` (databases, tables), ``partition_handlers``, ``statistics_handlers``,
``encryption_handlers`` and ``function_handlers``; all register on :data:`OPERATIONS`. Column statistics
task runs (``statistics_task_handlers``) register on :data:`STATISTICS_TASK_OPERATIONS`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from glueball.api.operations import Operations
from glueball.config import Settings
from glueball.store.engine import Store
from glueball.store.scoped import Scope

OPERATIONS = Operations("glue")
# column statistics task runs: Spark drivers, so they need more than the store
STATISTICS_TASK_OPERATIONS = Operations("glue")
# the Columns of a StorageDescriptor.SchemaReference (a schema registry version), in a scope
ReferencedColumns = Callable[[Scope, dict[str, Any]], list[dict[str, str]]]
# (table name, IcebergInput, TableInput) -> the TableInput of a new Iceberg table whose first metadata file it wrote
IcebergTableFiles = Callable[[str, dict[str, Any], dict[str, Any]], dict[str, Any]]


@dataclass(frozen=True, eq=False)
class CatalogNeeds:
    """What catalog handlers are given: the store, how a schema reference becomes columns (the
    schema registry's, wired by the composition root; None: references are kept but not resolved), and how an
    Iceberg table's first metadata file is written (``CreateTable`` with ``OpenTableFormatInput``; None: refused)."""

    store: Store
    referenced_columns: ReferencedColumns | None = None
    iceberg_table_files: IcebergTableFiles | None = None


@dataclass(frozen=True, eq=False)
class StatisticsTaskNeeds:
    """What column statistics task run handlers are given.

    Attributes:
        store: the store.
        settings: the installation (run folders under its logs, the endpoint drivers report to).
        serves_runs: whether this process serves runs (and settles those a stopped process left).
        run_identity: with ``--auth iam``, (scope, role, run id, seconds) -> the temporary credentials a driver acts
            with (raises the launcher's LaunchError when it cannot act as its role).
    """

    store: Store
    settings: Settings
    serves_runs: Callable[[], bool]
    run_identity: Callable[[Any, str, str, float], tuple[str, str, str]] | None = None
