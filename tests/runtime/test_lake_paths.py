"""Glue's lake-format readers and writers refuse what they cannot do, naming why (the jobs that use them are in
tests/formats)."""

from __future__ import annotations

from typing import Any

import pytest

from glueball.runtime import lakeformats
from glueball.runtime.errors import GlueRuntimeError
from glueball.runtime.io import laketables

TABLE = {"Name": "sales", "Parameters": {"table_type": "ICEBERG"}, "StorageDescriptor": {"Location": "s3://l/s"}}


def test_a_lake_format_without_datalake_formats_is_refused_naming_the_argument(spark: Any) -> None:
    with pytest.raises(GlueRuntimeError, match="needs --datalake-formats delta"):
        laketables.read_lake_paths(spark, "delta", ["s3://lake/sales"])
    with pytest.raises(GlueRuntimeError, match="needs --datalake-formats iceberg to write it"):
        laketables.write_lake_table(spark, spark.range(1), TABLE, "db", "iceberg")


def test_one_table_path_and_an_iceberg_catalog_are_required(spark: Any) -> None:
    before = spark.conf.get(lakeformats.FORMATS_CONF, "")
    spark.conf.set(lakeformats.FORMATS_CONF, "iceberg,delta")
    try:
        with pytest.raises(GlueRuntimeError, match="reads one table: give one path in paths, not 2"):
            laketables.read_lake_paths(spark, "delta", ["s3://lake/a", "s3://lake/b"])
        with pytest.raises(GlueRuntimeError, match="written through the session's glue_catalog catalog"):
            laketables.write_lake_table(spark, spark.range(1), TABLE, "db", "iceberg")
        with pytest.raises(GlueRuntimeError, match="has no location"):
            laketables.write_lake_table(spark, spark.range(1), {"Name": "t", "Parameters": {}}, "db", "delta")
    finally:
        spark.conf.set(lakeformats.FORMATS_CONF, before)
