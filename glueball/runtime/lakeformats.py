"""Glue's open table formats in a Spark driver: ``--datalake-formats iceberg,delta`` (job and session parameter).

On AWS Glue the job parameter ``--datalake-formats`` puts a format's libraries on the driver, and the Spark
settings AWS documents for it (in the job's ``--conf`` or the script's ``SparkConf``) turn it on. glueball does
both from the parameter alone, the user's own ``--conf`` winning key by key:

- ``iceberg``: the jars of glueball's ``iceberg`` JVM feature (Iceberg's Spark runtime, and the AWS SDK modules
  its GlueCatalog and S3FileIO load), ``spark.sql.extensions`` Iceberg's, and the catalog ``glue_catalog``:
  Iceberg's ``SparkCatalog`` over ``org.apache.iceberg.aws.glue.GlueCatalog`` with ``S3FileIO``, warehouse
  ``GLUEBALL_WAREHOUSE``.
- ``delta``: the ``delta`` feature's jars, Delta's SQL extension and ``spark_catalog`` as Delta's
  ``DeltaCatalog`` (over the Hive metastore endpoint glueball gives every session, so Delta tables land in the
  Data Catalog with ``spark.sql.sources.provider=delta``). Delta's log store for ``s3://`` stays its default,
  ``S3SingleDriverLogStore``, the one AWS documents for Glue. On a local master, Delta rebuilds a table's state
  from its log in as many tasks as the driver has cores (``spark.databricks.delta.snapshotPartitions``): Delta's
  own 50, sized for a cluster, made every snapshot of a small table 50 tasks of mostly overhead on two cores.
- ``hudi``: refused, naming why (:data:`HUDI_UNAVAILABLE`): no Hudi bundle is built for Spark 4.1.

Which formats a driver has is the Spark setting :data:`FORMATS_CONF` (a ``--conf`` of the driver, so warm
drivers of a format are warm JVMs of their own shape: a format's jars are on the JVM's class path from its start).

Every Iceberg catalog of a session that reaches the Glue API or S3 through Iceberg's AWS clients (GlueCatalog,
S3FileIO, the REST catalog's file IO) gets the properties that point those clients at the run's glueball
(:func:`catalog_settings`): ``glue.endpoint`` and ``s3.endpoint`` the run's server (an embedded run's own loopback
endpoint, :mod:`glueball.runtime.lakeendpoint`), path-style S3 addressing, the run's region, and Iceberg's
URL-connection HTTP client (the SDK release of glueball's pinned list predates the ``apache5-client`` that Iceberg
1.12's default "apache" client type is built on). The run's credentials reach Iceberg's clients through the JVM's
system properties (``aws.accessKeyId``...: first in the AWS SDK's default chain), set per run
(:func:`share_run_identity`), so a warm JVM's clients act as the run that took it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from glueball.supervise import driverenv

__all__ = ["ARGUMENT", "FORMATS", "FORMATS_CONF", "HUDI_UNAVAILABLE", "DatalakeFormatError", "catalog_settings",
           "driver_settings", "formats_of", "iceberg_catalogs", "parse", "serve_run", "share_run_identity"]

ARGUMENT = "--datalake-formats"
FORMATS_CONF = "spark.glueball.datalakeFormats"
FORMATS = ("iceberg", "delta", "hudi")
DEFAULT_ICEBERG_CATALOG = "glue_catalog"

ICEBERG_EXTENSIONS = "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions"
DELTA_EXTENSIONS = "io.delta.sql.DeltaSparkSessionExtension"
ICEBERG_CATALOGS = ("org.apache.iceberg.spark.SparkCatalog", "org.apache.iceberg.spark.SparkSessionCatalog")
GLUE_CATALOG_IMPL = "org.apache.iceberg.aws.glue.GlueCatalog"
S3_FILE_IO = "org.apache.iceberg.aws.s3.S3FileIO"
DELTA_CATALOG = "org.apache.spark.sql.delta.catalog.DeltaCatalog"
# the tasks Delta rebuilds a table's state in (its log's actions, deduplicated): 50 unless set
DELTA_SNAPSHOT_PARTITIONS = "spark.databricks.delta.snapshotPartitions"

HUDI_UNAVAILABLE = (
    "--datalake-formats hudi: glueball runs PySpark 4.1.1 and Apache Hudi's Spark bundles are built per Spark minor "
    "line; its Spark 4 modules target Spark 4.0 (hudi-spark4.0.x, Hudi 1.1/1.2), and no hudi-spark4.1-bundle_2.13 "
    "could be resolved from Maven Central (1.2.0 tried). Read Hudi tables with an engine of their Spark line, or "
    "write the table as Iceberg or Delta (see docs/table_formats.md)")


class DatalakeFormatError(ValueError):
    """``--datalake-formats`` names a format glueball cannot give a driver; the message says which and why."""


def parse(value: str | None) -> tuple[str, ...]:
    """The formats of a ``--datalake-formats`` value (comma separated, any case), in order, once each.

    Raises:
        DatalakeFormatError: an unknown format, or ``hudi`` (:data:`HUDI_UNAVAILABLE`).
    """
    found: list[str] = []
    for part in (value or "").split(","):
        name = part.strip().lower()
        if not name:
            continue
        if name not in FORMATS:
            raise DatalakeFormatError(f"{ARGUMENT}: {part.strip()!r} is not a data lake format; AWS Glue's are "
                                      f"{', '.join(FORMATS)}")
        if name == "hudi":
            raise DatalakeFormatError(HUDI_UNAVAILABLE)
        if name not in found:
            found.append(name)
    return tuple(found)


def formats_of(conf: Mapping[str, str]) -> tuple[str, ...]:
    """The formats a driver's Spark settings give it (:data:`FORMATS_CONF`)."""
    try:
        return parse(conf.get(FORMATS_CONF))
    except DatalakeFormatError:
        return ()


def _extensions(formats: tuple[str, ...]) -> str:
    names = {"iceberg": ICEBERG_EXTENSIONS, "delta": DELTA_EXTENSIONS}
    return ",".join(names[f] for f in formats if f in names)


def driver_settings(arguments: Mapping[str, str], local_cores: int | None = None) -> dict[str, str]:
    """The Spark settings of a driver whose run or session has ``--datalake-formats`` in ``arguments``: the
    formats (:data:`FORMATS_CONF`) and the settings AWS documents for each; empty without the parameter.
    ``local_cores``: the driver's cores when its master is local (None on a cluster), for Delta's snapshot tasks.

    Raises:
        DatalakeFormatError: as :func:`parse`.
    """
    formats = parse(arguments.get(ARGUMENT))
    if not formats:
        return {}
    from glueball.runtime.hivecatalog import warehouse

    settings = {FORMATS_CONF: ",".join(formats), "spark.sql.extensions": _extensions(formats)}
    if "iceberg" in formats:
        prefix = f"spark.sql.catalog.{DEFAULT_ICEBERG_CATALOG}"
        settings.update({prefix: ICEBERG_CATALOGS[0], f"{prefix}.catalog-impl": GLUE_CATALOG_IMPL,
                         f"{prefix}.io-impl": S3_FILE_IO, f"{prefix}.warehouse": warehouse()})
    if "delta" in formats:
        settings["spark.sql.catalog.spark_catalog"] = DELTA_CATALOG
        if local_cores:
            settings[DELTA_SNAPSHOT_PARTITIONS] = str(local_cores)
    return settings


def iceberg_catalogs(conf: Mapping[str, str]) -> dict[str, dict[str, str]]:
    """The Iceberg catalogs of Spark settings (``spark.sql.catalog.NAME`` = Iceberg's SparkCatalog or
    SparkSessionCatalog), each with its own properties (``spark.sql.catalog.NAME.*`` without the prefix)."""
    found: dict[str, dict[str, str]] = {}
    for key, value in conf.items():
        parts = key.split(".")
        if len(parts) == 4 and key.startswith("spark.sql.catalog.") and value.strip() in ICEBERG_CATALOGS:
            found[parts[3]] = {}
    for key, value in conf.items():
        for name, properties in found.items():
            prefix = f"spark.sql.catalog.{name}."
            if key.startswith(prefix):
                properties[key[len(prefix):]] = value
    return found


def _uses_glue(properties: Mapping[str, str]) -> bool:
    return properties.get("catalog-impl") == GLUE_CATALOG_IMPL or properties.get("type") == "glue"


def run_endpoint() -> str:
    """Where this run's Glue and S3 APIs answer: its server, or (embedded) this process's loopback endpoint; empty
    against AWS itself."""
    current = driverenv.current()
    if current.on_aws:
        return ""
    if current.endpoint:
        return current.endpoint.rstrip("/")
    from glueball.runtime import lakeendpoint

    return lakeendpoint.url()


def run_region() -> str:
    return os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or "us-east-1"


def catalog_settings(conf: Mapping[str, str]) -> dict[str, str]:
    """The Spark settings that point the Iceberg catalogs of ``conf`` at this run's glueball, for the properties
    ``conf`` does not set itself (empty against AWS, or without Iceberg catalogs)."""
    catalogs = iceberg_catalogs(conf)
    if not catalogs:
        return {}
    endpoint = run_endpoint()
    if not endpoint:
        return {}
    settings: dict[str, str] = {}
    for name, properties in catalogs.items():
        wanted = {"s3.endpoint": endpoint, "s3.path-style-access": "true", "http-client.type": "urlconnection",
                  "client.region": run_region()}
        if _uses_glue(properties):
            wanted["glue.endpoint"] = endpoint
        for key, value in wanted.items():
            if key not in properties:
                settings[f"spark.sql.catalog.{name}.{key}"] = value
    return settings


# the AWS SDK's system properties of credentials and region (SystemPropertyCredentialsProvider, first in the
# default chain; the region provider chain reads aws.region first too), from the run's environment
_IDENTITY_PROPERTIES = {"aws.accessKeyId": "AWS_ACCESS_KEY_ID", "aws.secretAccessKey": "AWS_SECRET_ACCESS_KEY",
                        "aws.sessionToken": "AWS_SESSION_TOKEN", "aws.region": "AWS_REGION"}


def share_run_identity(jvm: Any, environ: Mapping[str, str] | None = None) -> None:
    """Give the JVM's AWS clients (the AWS SDK's default chain reads system properties before the environment: the
    MSK IAM login, S3A, Iceberg) this run's credentials and region, as system properties; those the run has not are
    cleared (a warm JVM may hold the previous run's)."""
    env = os.environ if environ is None else environ
    system = jvm.java.lang.System
    for prop, variable in _IDENTITY_PROPERTIES.items():
        value = env.get(variable) or (env.get("AWS_DEFAULT_REGION") if prop == "aws.region" else None)
        if value:
            system.setProperty(prop, value)
        else:
            system.clearProperty(prop)


def serve_run(session: Any) -> None:
    """Point a running session's Iceberg catalogs at this run's glueball (their properties not set already, while
    no statement has loaded them) and give the JVM the run's identity: for a warm driver that takes a run, and for a
    script whose own ``SparkConf`` names catalogs. Nothing for a session without Iceberg catalogs."""
    conf = {str(key): str(value) for key, value in session.conf.getAll.items()}
    if not iceberg_catalogs(conf):
        return
    env = dict(os.environ)
    if not driverenv.current().endpoint and not env.get("AWS_ACCESS_KEY_ID"):
        # embedded: the loopback endpoint checks no signature, but the SDK signs with something
        env["AWS_ACCESS_KEY_ID"] = env["AWS_SECRET_ACCESS_KEY"] = "glueball"
    share_run_identity(session.sparkContext._jvm, env)
    for key, value in catalog_settings(conf).items():
        session.conf.set(key, value)
    _make_default_warehouse(session, iceberg_catalogs(conf))


def _make_default_warehouse(session: Any, catalogs: Mapping[str, Mapping[str, str]]) -> None:
    """glueball's own warehouse bucket exists for the catalogs that write there (as Spark's Hive catalog makes it
    for its tables): S3FileIO writes objects through the S3 API, which answers NoSuchBucket for a bucket never
    made. A warehouse of the user's own is the user's to make, as on AWS."""
    from glueball.runtime.hivecatalog import DEFAULT_WAREHOUSE, warehouse

    if not any(p.get("warehouse") in (warehouse(), DEFAULT_WAREHOUSE) for p in catalogs.values()):
        return
    from glueball.objects.locations import to_spark_path

    jvm, jsc = session.sparkContext._jvm, session.sparkContext._jsc
    path = jvm.org.apache.hadoop.fs.Path(to_spark_path(warehouse()))
    fs = path.getFileSystem(jsc.hadoopConfiguration())
    if not fs.exists(path):
        fs.mkdirs(path)
