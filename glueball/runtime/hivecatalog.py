"""The Data Catalog as the Spark session's metastore, as ``--enable-glue-datacatalog`` makes it in Glue.

Every Spark driver glueball configures (``glueball run``, job runs, sessions, warm drivers, the shared
session of ``spark_session()``) starts a Hive metastore Thrift endpoint in its own Python process on a
free loopback port (:class:`glueball.metastore.HiveMetastoreEndpoint`) and gives Spark
``spark.sql.catalogImplementation=hive`` with ``hive.metastore.uris`` pointing at it. Spark's built-in
Hive client then reads and writes the catalog through that endpoint, and the endpoint through the
runtime's Glue client (:func:`glueball.runtime.client.glue_client`: in-process in embedded mode, boto3
against ``GLUEBALL_ENDPOINT`` as the run's role otherwise), resolved at each call — so a warm driver
serves whichever run it takes, and the Glue API's validation, errors and IAM apply to Spark SQL's DDL.
Nothing is copied up front: a catalog of thousands of tables costs Spark nothing until a statement names
one.

A failed CTAS or ``saveAsTable`` leaves nothing behind (:mod:`glueball.runtime.tablewrites`).
``GLUEBALL_SQL_CATALOG=off`` leaves Spark its own in-memory catalog (Glue without
``--enable-glue-datacatalog``); catalog tables are then read with ``create_dynamic_frame.from_catalog``.
``GLUEBALL_WAREHOUSE`` (default ``s3://glueball-warehouse/``) is where a database without
``LocationUri`` keeps its managed tables, and Spark's ``spark.sql.warehouse.dir``.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator
from typing import Any

from glueball.metastore import FOREIGN_SERDES
from glueball.objects.locations import to_spark_path

SWITCH_ENV = "GLUEBALL_SQL_CATALOG"
WAREHOUSE_ENV = "GLUEBALL_WAREHOUSE"
DEFAULT_WAREHOUSE = "s3://glueball-warehouse/"

_lock = threading.Lock()
_endpoint: Any = None


def enabled() -> bool:
    """Whether Spark sessions made now get the Data Catalog as their metastore."""
    return os.environ.get(SWITCH_ENV, "on").strip().lower() not in ("off", "0", "false")


def warehouse() -> str:
    return os.environ.get(WAREHOUSE_ENV) or DEFAULT_WAREHOUSE


class HadoopFiles:
    """Table data deleted and moved through Spark's Hadoop file systems (the ones Spark wrote it with)."""

    def _fs_path(self, location: str) -> tuple[Any, Any]:
        from pyspark import SparkContext

        context = SparkContext._active_spark_context
        if context is None or context._jvm is None or context._jsc is None:
            raise RuntimeError(f"no Spark context to reach {location} with")
        path = context._jvm.org.apache.hadoop.fs.Path(to_spark_path(location))
        return path.getFileSystem(context._jsc.hadoopConfiguration()), path

    def remove(self, location: str) -> None:
        fs, path = self._fs_path(location)
        if fs.exists(path):
            fs.delete(path, True)

    def make_folder(self, location: str) -> None:
        fs, path = self._fs_path(location)
        if not fs.exists(path):
            fs.mkdirs(path)

    def move(self, source: str, target: str) -> None:
        fs, path = self._fs_path(source)
        _, destination = self._fs_path(target)
        if not fs.exists(path):
            return
        parent = destination.getParent()
        if parent is not None:
            fs.mkdirs(parent)
        if not fs.rename(path, destination):
            raise RuntimeError(f"could not move {source} to {target}")


def endpoint() -> Any:
    """The process's Hive metastore endpoint over the runtime's Glue client, started on first use."""
    global _endpoint
    with _lock:
        if _endpoint is None:
            from glueball.metastore import HiveMetastoreEndpoint, Metastore
            from glueball.runtime.client import glue_client

            _endpoint = HiveMetastoreEndpoint(Metastore(client=glue_client, warehouse=warehouse(),
                                                        files=HadoopFiles()))
        return _endpoint


@contextlib.contextmanager
def remembering() -> Iterator[None]:
    """The process's metastore answers a database or table it read in the block from memory
    (:meth:`glueball.metastore.Metastore.remembering`): for one Athena query, whose analysis asks for the same
    table several times. Nothing when this process serves no metastore."""
    if _endpoint is None:
        yield
        return
    with _endpoint.metastore.remembering():
        yield


@contextlib.contextmanager
def as_stored(wanted: bool = True) -> Iterator[None]:
    """With ``wanted``, the process's metastore answers Spark the catalog's tables as they are stored in the block
    (:meth:`glueball.metastore.Metastore.as_stored`). Nothing when this process serves no metastore."""
    if not wanted or _endpoint is None:
        yield
        return
    with _endpoint.metastore.as_stored():
        yield


class _NoCatalog:
    """The Glue client Spark's Hive client is started against before there is a run (:func:`start_catalog_client`):
    a catalog with no database, which keeps nothing it is given. What Spark's start asks of it is whether
    ``default`` and ``global_temp`` exist, and to make ``default``."""

    def get_database(self, Name: str, **_: Any) -> dict[str, Any]:  # noqa: N803 - the Glue client's keyword
        from botocore.exceptions import ClientError

        raise ClientError({"Error": {"Code": "EntityNotFoundException",
                                     "Message": f"Database {Name} not found."}}, "GetDatabase")

    def create_database(self, **_: Any) -> dict[str, Any]:
        return {}


def start_catalog_client(session: Any) -> None:
    """Start Spark's catalog of a session made before it has a run (a warm driver's), so that the run does not
    wait for it: Spark makes its Hive client and connects it to the metastore on the first statement that needs
    the catalog, 1-2 s of the JVM's work (its first start of a session from a warm driver, or its first query
    of an Athena engine, waited for it). Spark's start asks the metastore whether ``default`` and
    ``global_temp`` exist and makes ``default``: here, before any run, a catalog with nothing in it answers
    (:class:`_NoCatalog`), so no catalog is read or written; the run's own ``default`` is made when it is taken
    (:func:`have_default_database`). Spark keeps no database or table it read (its relation cache is off),
    and the metastore endpoint asks the run's Glue client from then on. Nothing when the session's metastore
    is not glueball's."""
    if session.conf.get("spark.sql.catalogImplementation", "in-memory") != "hive" or _endpoint is None:
        return
    if session.conf.get("spark.hadoop.hive.metastore.uris", "") != _endpoint.uri:
        return
    metastore = _endpoint.metastore
    client, nothing = metastore.client, _NoCatalog()
    metastore.client = lambda: nothing
    try:
        session._jsparkSession.sharedState().externalCatalog()
    finally:
        metastore.client = client


def have_default_database(session: Any) -> None:
    """Make the ``default`` database in the catalog a running session now serves, as Spark makes it at start in
    the one it started with (its current database; ``USE default``, unqualified names): for a session that
    switched catalogs, a warm driver's that took a run of another home. Nothing when the session's metastore is
    not glueball's; a catalog that refuses the creation (the run's role may not create databases) is left as it
    is, as Spark's start leaves it."""
    if session.conf.get("spark.sql.catalogImplementation", "in-memory") != "hive" or _endpoint is None:
        return
    if session.conf.get("spark.hadoop.hive.metastore.uris", "") != _endpoint.uri:
        return
    import logging

    try:
        session.sql("CREATE DATABASE IF NOT EXISTS default COMMENT 'default database'")
    except Exception as failed:  # noqa: BLE001 - Spark's own start only warns either
        logging.getLogger(__name__).warning("the catalog's default database could not be made: %s", failed)


def spark_settings(s3_filesystem: bool = True) -> dict[str, str]:
    """Spark's settings for the Data Catalog as its metastore (empty when :func:`enabled` is false).

    Args:
        s3_filesystem: Spark reaches ``s3://`` itself (glueball's Hadoop FileSystem): the warehouse is given as
            an ``s3://`` URI, so the locations Spark derives from it (databases, managed tables) are stored as
            such; otherwise as the object store's local folder.
    """
    if not enabled():
        return {}
    root = warehouse() if s3_filesystem else to_spark_path(warehouse())
    from glueball.runtime import tablewrites

    tablewrites.install()
    return {
        "spark.sql.catalogImplementation": "hive",
        "spark.hadoop.hive.metastore.uris": endpoint().uri,
        "spark.sql.warehouse.dir": root,
        "spark.hadoop.hive.metastore.warehouse.dir": root,
        # Glue's filter language differs from Hive's: a filter it refuses is answered with every partition
        "spark.sql.hive.metastorePartitionPruningFallbackOnException": "true",
        # the catalog changes outside this session (boto3, crawlers, other runs): plans are not cached by name
        "spark.sql.filesourceTableRelationCacheSize": "0",
        # an external table dropped (its files kept) and made again at its location by a CTAS overwrites them,
        # as on Glue: what dbt-glue's table models do on every run after the first
        "spark.sql.legacy.allowNonEmptyLocationInCTAS": "true",
        # the columns of a table in a SerDe Spark's class path lacks are the catalog's: Hive's client otherwise asks
        # the SerDe for them, cannot load it, and finds none (DESCRIBE shows no columns, ALTER TABLE refuses it)
        "spark.hadoop.hive.serdes.using.metastore.for.schema": ",".join(METASTORE_SCHEMA_SERDES),
    }


# Hive 2.3's own list (its default for hive.serdes.using.metastore.for.schema), then the SerDes of Glue's crawlers
# and Athena's DDL that are not on Spark's class path (shapes.FOREIGN_SERDES), and Hive's OpenCSVSerde, whose own
# schema is every column a string: the catalog keeps the types the table was declared with, which Athena reads
METASTORE_SCHEMA_SERDES = (
    "org.apache.hadoop.hive.ql.io.orc.OrcSerde", "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe",
    "org.apache.hadoop.hive.serde2.columnar.ColumnarSerDe", "org.apache.hadoop.hive.serde2.dynamic_type.DynamicSerDe",
    "org.apache.hadoop.hive.serde2.MetadataTypedColumnsetSerDe",
    "org.apache.hadoop.hive.serde2.columnar.LazyBinaryColumnarSerDe",
    "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe",
    "org.apache.hadoop.hive.serde2.lazybinary.LazyBinarySerDe",
    "org.apache.hadoop.hive.serde2.OpenCSVSerde",
    *sorted(FOREIGN_SERDES),
)
