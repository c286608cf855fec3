"""Reference data that changes: a broadcast lookup table, refreshed only when its reference changes.

Glue's streaming guidance for enriching a stream with slowly changing reference data is to keep the
table on the driver and broadcast it, reloading it when it changes rather than on every micro-batch.
``ReferenceData`` does that. Call ``for_batch(batch_id)`` (or ``enrich``) at the start of each batch
function; at most once per batch id it checks whether the reference changed, and reloads only then:

- ``ReferenceData.from_catalog(glue_ctx, database, table_name)``: the change is the catalog table's
  update — ``GetTable``'s ``UpdateTime`` or ``VersionId`` differ from those of the last load (an
  UpdateTable, a crawler's schema change, an ``enableUpdateCatalog`` write). The check is one GetTable
  call per batch; the table's data is read only on a change;
- ``ReferenceData.on_change_flag(glue_ctx, load, flag_prefix)``: the change is an object appearing
  under ``flag_prefix`` (``s3://bucket/reference/_changed/`` or a local folder), put there by whatever
  updates the reference. After the reload the flag is consumed: deleted, or with
  ``consume="rename"`` moved into ``<prefix>/_consumed/``. The check is one listing per batch.

A load collects the table to the driver (it is meant to be small: at most ``max_rows`` rows) and
builds a local DataFrame from the rows, hinted for a broadcast join; the source is not read again
until the next change, however often Spark re-plans the join.

Example::

    priorities = ReferenceData.from_catalog(glueContext, "sales", "customer_priority")

    def process_batch(orders, batch_id):
        enriched = priorities.enrich(orders, batch_id, on="customer_id")
        enriched.write.mode("overwrite").parquet(f"s3://lake/orders/batch_id={batch_id}")
"""

from __future__ import annotations

import logging
import shutil
import time
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from glueball.runtime.errors import GlueRuntimeError

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

log = logging.getLogger("glueball.runtime.streaming")

__all__ = ["ReferenceData"]

DEFAULT_MAX_ROWS = 1_000_000
CONSUMED_FOLDER = "_consumed"


class ReferenceData:
    """A lookup table kept on the driver and broadcast, reloaded only when its reference changes.

    Attributes:
        loads: how many times the reference was read (1 after the first batch, +1 per change seen).
        checks: how many change checks were made (at most one per batch id).
    """

    def __init__(self, glue_ctx: Any, load: Callable[[], DataFrame], version: Callable[[], Hashable | None],
                 consume: Callable[[], None] | None = None, max_rows: int = DEFAULT_MAX_ROWS) -> None:
        """A reference read by ``load``, changed whenever ``version()`` answers something new.

        ``version`` returning None means "no change signalled" (after the first load). ``consume`` is
        called after a reload (a change flag is removed). Prefer the ``from_catalog`` and
        ``on_change_flag`` constructors.
        """
        self.glue_ctx = glue_ctx
        self._load, self._version, self._consume = load, version, consume
        self.max_rows = max_rows
        self.loads = 0
        self.checks = 0
        self._loaded_version: Hashable | None = None
        self._table: DataFrame | None = None
        self._checked_batch: int | None = None

    @classmethod
    def from_catalog(cls, glue_ctx: Any, database: str, table_name: str,
                     load: Callable[[], DataFrame] | None = None, max_rows: int = DEFAULT_MAX_ROWS) -> ReferenceData:
        """The catalog table ``database.table_name``, reloaded when its ``UpdateTime``/``VersionId`` change.

        ``load`` reads it (default: ``create_dynamic_frame.from_catalog(...).toDF()``).
        """
        def read() -> DataFrame:
            frame = glue_ctx.create_dynamic_frame.from_catalog(database=database, table_name=table_name)
            return frame.toDF()

        def version() -> Hashable:
            table = glue_ctx.glue_client.get_table(DatabaseName=database, Name=table_name)["Table"]
            return (str(table.get("UpdateTime")), str(table.get("VersionId")))

        return cls(glue_ctx, load or read, version, max_rows=max_rows)

    @classmethod
    def on_change_flag(cls, glue_ctx: Any, load: Callable[[], DataFrame], flag_prefix: str,
                       consume: str = "delete", max_rows: int = DEFAULT_MAX_ROWS) -> ReferenceData:
        """Reloaded by ``load`` whenever an object appears under ``flag_prefix``; the flag is then consumed.

        Args:
            consume: ``delete`` the flag objects, or ``rename`` them into ``<flag_prefix>/_consumed/``.
        """
        from glueball.objects.locations import local_path

        if consume not in ("delete", "rename"):
            raise GlueRuntimeError(f"ReferenceData consume must be 'delete' or 'rename', got {consume!r}")
        folder = local_path(flag_prefix)
        seen: list[Path] = []

        def flags() -> list[Path]:
            if not folder.is_dir():
                return []
            return sorted(p for p in folder.rglob("*") if p.is_file() and CONSUMED_FOLDER not in p.parts)

        def version() -> Hashable | None:
            found = flags()
            seen[:] = found
            return tuple((str(p), p.stat().st_mtime_ns) for p in found) or None

        def take() -> None:
            for flag in seen:
                if consume == "delete":
                    flag.unlink(missing_ok=True)
                else:
                    target = folder / CONSUMED_FOLDER / f"{flag.name}.{time.time_ns()}"
                    target.parent.mkdir(parents=True, exist_ok=True)
                    shutil.move(str(flag), target)
            seen.clear()

        return cls(glue_ctx, load, version, consume=take, max_rows=max_rows)

    def for_batch(self, batch_id: int | None = None) -> DataFrame:
        """The lookup table for this micro-batch: checked for a change once per ``batch_id``, reloaded on one.

        Without a ``batch_id`` every call checks.
        """
        if self._table is None or batch_id is None or batch_id != self._checked_batch:
            self.refresh()
            self._checked_batch = batch_id
        assert self._table is not None
        return self._table

    def refresh(self) -> bool:
        """Check the reference now; reload it if it changed (or was never loaded). True when reloaded."""
        self.checks += 1
        version = self._version()
        if self._table is not None and (version is None or version == self._loaded_version):
            return False
        self._reload()
        self._loaded_version = version
        if self._consume is not None and version is not None:  # a flag was there: it is used up
            self._consume()
        return True

    def _reload(self) -> None:
        from pyspark.sql import functions as F

        source = self._load()
        rows = source.limit(self.max_rows + 1).collect()
        if len(rows) > self.max_rows:
            raise GlueRuntimeError(f"reference data has more than {self.max_rows} rows; a broadcast lookup table "
                                   f"must stay small (raise max_rows if the driver can hold it)")
        spark = self.glue_ctx.spark_session
        self._table = F.broadcast(spark.createDataFrame(rows, source.schema))
        self.loads += 1
        log.info("reference data loaded (%d rows, load %d)", len(rows), self.loads)

    def enrich(self, df: DataFrame, batch_id: int | None, on: str | list[str], how: str = "left") -> DataFrame:
        """``df`` joined with this batch's lookup table (a broadcast join) on ``on``."""
        return df.join(self.for_batch(batch_id), on=on, how=how)
