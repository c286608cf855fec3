"""``--datalake-formats`` parsing and the Spark settings of each format, and the crawler's reading of a Delta log
(no JVM: the log is written here as Delta lays it out)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from glueball.crawlers import lakes
from glueball.objects.access import LocalObjects
from glueball.runtime import lakeformats


def test_formats_parse_in_order_once_each_and_unknown_or_hudi_are_refused() -> None:
    assert lakeformats.parse(" Delta,iceberg ,delta,") == ("delta", "iceberg")
    assert lakeformats.parse(None) == ()
    with pytest.raises(lakeformats.DatalakeFormatError, match="'paimon' is not a data lake format"):
        lakeformats.parse("iceberg,paimon")
    with pytest.raises(lakeformats.DatalakeFormatError, match="no hudi-spark4.1-bundle_2.13"):
        lakeformats.parse("hudi")


def test_driver_settings_are_the_ones_aws_documents_per_format() -> None:
    settings = lakeformats.driver_settings({"--datalake-formats": "iceberg,delta"})
    assert settings["spark.sql.extensions"] == (
        "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions,io.delta.sql.DeltaSparkSessionExtension")
    assert settings["spark.sql.catalog.glue_catalog"] == "org.apache.iceberg.spark.SparkCatalog"
    assert settings["spark.sql.catalog.glue_catalog.catalog-impl"] == "org.apache.iceberg.aws.glue.GlueCatalog"
    assert settings["spark.sql.catalog.glue_catalog.io-impl"] == "org.apache.iceberg.aws.s3.S3FileIO"
    assert settings["spark.sql.catalog.spark_catalog"] == "org.apache.spark.sql.delta.catalog.DeltaCatalog"
    assert lakeformats.driver_settings({}) == {}


def test_delta_s_snapshot_tasks_are_a_local_driver_s_cores_and_the_user_s_setting_wins(tmp_path: Path) -> None:
    from glueball.runtime.capacity import driver_options, local_cores
    from glueball.runtime.scriptrunner import parse_run_args

    key = "spark.databricks.delta.snapshotPartitions"
    assert [local_cores(m) for m in ("local", "local[3]", "local[4,2]", "spark://h:7077", "yarn", "local[x]")] == \
        [1, 3, 4, None, None, None]
    assert lakeformats.driver_settings({"--datalake-formats": "delta"}, 3)[key] == "3"
    assert key not in lakeformats.driver_settings({"--datalake-formats": "delta"})         # a cluster: Delta's own
    assert key not in lakeformats.driver_settings({"--datalake-formats": "iceberg"}, 3)    # Delta's setting only

    def conf(options: list[str]) -> dict[str, str]:
        return dict(v.partition("=")[::2] for o, v in zip(options, options[1:], strict=False) if o == "--conf")

    delta = {"--datalake-formats": "delta"}
    local = conf(driver_options("G.1X", 2, None, "5.0", "local[*]", delta, tmp_path))
    assert local[key] == conf(driver_options("G.1X", 2, None, "5.0", "local[*]", {}, tmp_path))[
        "spark.default.parallelism"]                                                     # as many as its cores
    assert key not in conf(driver_options("G.1X", 2, None, "5.0", "spark://h:7077", delta, tmp_path))
    mine = conf(driver_options("G.1X", 2, None, "5.0", "local[*]", {**delta, "--conf": f"{key}=50"}, tmp_path))
    assert mine[key] == "50"                                                             # the user's --conf wins

    script = tmp_path / "job.py"
    script.write_text("")
    assert parse_run_args(str(script), ["--spark-master", "local[2]", "--datalake-formats", "delta"]).conf[key] == "2"
    assert parse_run_args(str(script), ["--spark-master", "local[2]", "--conf", f"{key}=7",
                                        "--datalake-formats", "delta"]).conf[key] == "7"


def test_catalog_settings_point_iceberg_clients_at_the_run_s_glueball_without_overriding_the_user(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GLUEBALL_ENDPOINT", "http://127.0.0.1:9400")
    conf = {"spark.sql.catalog.mine": "org.apache.iceberg.spark.SparkCatalog", "spark.sql.catalog.mine.type": "glue",
            "spark.sql.catalog.mine.s3.endpoint": "http://elsewhere:9000"}
    settings = lakeformats.catalog_settings(conf)
    assert settings["spark.sql.catalog.mine.glue.endpoint"] == "http://127.0.0.1:9400"
    assert "spark.sql.catalog.mine.s3.endpoint" not in settings
    assert settings["spark.sql.catalog.mine.http-client.type"] == "urlconnection"


def _commit(log: Path, version: int, *actions: dict[str, object]) -> None:
    (log / f"{version:020d}.json").write_text("\n".join(json.dumps(a) for a in actions) + "\n")


def test_a_delta_log_gives_the_schema_partitions_and_live_files(tmp_path: Path) -> None:
    log = tmp_path / "s3" / "lake" / "sales" / "_delta_log"
    log.mkdir(parents=True)
    schema = {"type": "struct", "fields": [
        {"name": "id", "type": "long", "nullable": True, "metadata": {}},
        {"name": "tags", "type": {"type": "array", "elementType": "string", "containsNull": True},
         "nullable": True, "metadata": {}},
        {"name": "day", "type": "date", "nullable": True, "metadata": {}}]}
    _commit(log, 0, {"protocol": {"minReaderVersion": 1, "minWriterVersion": 2}},
            {"metaData": {"id": "x", "schemaString": json.dumps(schema), "partitionColumns": ["day"],
                          "configuration": {}, "format": {"provider": "parquet"}}},
            {"add": {"path": "day=2024-01-01/a.parquet", "partitionValues": {"day": "2024-01-01"}}})
    _commit(log, 1, {"add": {"path": "day=2024-01-02/b.parquet", "partitionValues": {"day": "2024-01-02"}}})
    _commit(log, 2, {"remove": {"path": "day=2024-01-01/a.parquet"}},
            {"add": {"path": "day=2024-01-01/c.parquet", "partitionValues": {"day": "2024-01-01"}}})
    snapshot = lakes.delta_snapshot("s3://lake/sales", LocalObjects(tmp_path / "s3"))
    assert snapshot.version == 2
    assert sorted(snapshot.files) == ["day=2024-01-01/c.parquet", "day=2024-01-02/b.parquet"]
    native = lakes.delta_table_input("sales", "s3://lake/sales", snapshot, native=True)
    assert [(c["Name"], c["Type"]) for c in native["StorageDescriptor"]["Columns"]] == [
        ("id", "bigint"), ("tags", "array<string>"), ("day", "date")]
    symlink = lakes.delta_table_input("sales", "s3://lake/sales", snapshot, native=False)
    assert [k["Name"] for k in symlink["PartitionKeys"]] == ["day"]
    assert lakes.write_manifest("s3://lake/sales", snapshot, LocalObjects(tmp_path / "s3")) == 2
    manifest = tmp_path / "s3" / "lake" / "sales" / "_symlink_format_manifest" / "day=2024-01-01" / "manifest"
    assert manifest.read_text() == "s3://lake/sales/day=2024-01-01/c.parquet\n"
    with pytest.raises(lakes.LakeTableError, match="has no _delta_log folder"):
        lakes.delta_snapshot("s3://lake/other", LocalObjects(tmp_path / "s3"))
