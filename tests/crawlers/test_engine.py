"""The crawl engine end to end: object-store datasets crawled into an in-process catalog."""

from __future__ import annotations

import gzip
import json
import os
import shutil
from collections.abc import Iterator

import fastavro
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from glueball.crawlers.crawl_engine import CrawlError, CrawlStopped
from tests.crawlers.helpers import Env, columns_of
from tools import services

APACHE_LINE = ('127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326 '
               '"http://www.example.com/start.html" "Mozilla/4.08 [en] (Win98; I ;Nav)"\n')


def _sales(env: Env, days: range, prefix: str = "sales") -> None:
    for day in days:
        env.json_lines(f"{prefix}/year=2026/month=06/day={day:02d}/part-0.json",
                       [{"id": i, "name": f"n{i}", "amount": i * 1.5} for i in range(day * 10)])
        env.write(f"{prefix}/year=2026/month=06/day={day:02d}/_SUCCESS", "")


def test_hive_partitions_make_one_table_with_every_partition(env: Env) -> None:
    _sales(env, range(1, 4))
    env.json_lines("sales/year=2026/month=07/day=01/part-0.json", [{"id": 1, "name": "x", "amount": 2.0}])
    outcome = env.crawl(["s3://bkt/sales/"])
    assert (outcome.tables_created, outcome.partitions_created) == (1, 4)
    table = env.table("sales")
    assert [(k["Name"], k["Type"]) for k in table["PartitionKeys"]] == [("year", "string"), ("month", "string"),
                                                                         ("day", "string")]
    assert columns_of(table) == ["id", "name", "amount"]
    sd, params = table["StorageDescriptor"], table["Parameters"]
    assert sd["Location"] == "s3://bkt/sales/" and sd["NumberOfBuckets"] == -1 and sd["Compressed"] is False
    assert table["TableType"] == "EXTERNAL_TABLE"
    files = sorted(env.bucket.glob("sales/**/part-0.json"))
    assert params["classification"] == "json" and params["UPDATED_BY_CRAWLER"] == "crawler1"
    assert params["objectCount"] == str(len(files)) == "4"          # _SUCCESS markers are skipped
    assert params["sizeKey"] == str(sum(f.stat().st_size for f in files))
    assert params["recordCount"] == str(10 + 20 + 30 + 1)
    assert params["CrawlerSchemaSerializerVersion"] == "1.0" and params["typeOfData"] == "file"
    parts = env.partitions("sales")
    assert sorted(parts) == [("2026", "06", "01"), ("2026", "06", "02"), ("2026", "06", "03"), ("2026", "07", "01")]
    assert parts[("2026", "06", "02")]["StorageDescriptor"]["Location"] == "s3://bkt/sales/year=2026/month=06/day=02/"
    assert parts[("2026", "06", "02")]["Parameters"]["recordCount"] == "20"
    assert {stage for stage, _, _ in env.progress} == {"listing", "classifying", "writing"}
    assert ("writing", 1, 1) in env.progress


def test_non_hive_layouts_get_numbered_partition_keys(env: Env) -> None:
    for day in ("01", "02"):
        env.write(f"logs/2026/06/{day}/a.csv", "id,msg\n1,a\n2,b\n")
    env.crawl(["s3://bkt/logs"], TablePrefix="raw_")
    table = env.table("raw_logs")
    assert [k["Name"] for k in table["PartitionKeys"]] == ["partition_0", "partition_1", "partition_2"]
    assert table["Parameters"]["skip.header.line.count"] == "1" and table["Parameters"]["delimiter"] == ","
    assert sorted(env.partitions("raw_logs")) == [("2026", "06", "01"), ("2026", "06", "02")]


def test_incompatible_datasets_under_one_prefix_become_two_tables(env: Env) -> None:
    for month in ("01", "02"):
        env.json_lines(f"lake/orders/month={month}/o.json", [{"order_id": 1, "amount": 2.5, "sku": "a"}])
        env.json_lines(f"lake/Customers-EU/month={month}/c.json", [{"name": "x", "email": "e", "phone": "p"}])
    outcome = env.crawl(["s3://bkt/lake/"])
    assert outcome.tables_created == 2
    tables = env.tables()
    assert sorted(tables) == ["customers_eu", "orders"]
    assert tables["orders"]["StorageDescriptor"]["Location"] == "s3://bkt/lake/orders/"
    assert [k["Name"] for k in tables["customers_eu"]["PartitionKeys"]] == ["month"]
    assert columns_of(tables["customers_eu"]) == ["name", "email", "phone"]


def test_combine_compatible_schemas(env: Env) -> None:
    # the example of "Creating a single schema for each Amazon S3 include path"
    env.json_lines("table1/year=2017/data1.json", [{"A": 1, "B": 2}])
    env.json_lines("table1/year=2018/data2.json", [{"C": 3, "D": 4}])
    env.crawl(["s3://bkt/table1/"])
    assert sorted(env.tables()) == ["year_2017", "year_2018"]
    env.glue.batch_delete_table(DatabaseName="db", TablesToDelete=["year_2017", "year_2018"])
    env.crawl(["s3://bkt/table1/"], Configuration=json.dumps({
        "Version": 1.0, "Grouping": {"TableGroupingPolicy": "CombineCompatibleSchemas"}}))
    assert sorted(env.tables()) == ["table1"]
    table = env.table("table1")
    assert [c.lower() for c in columns_of(table)] == ["a", "b", "c", "d"]
    assert [k["Name"] for k in table["PartitionKeys"]] == ["year"]


def test_table_level_configuration(env: Env) -> None:
    for year in (2025, 2026):
        for month in ("01", "02"):
            env.json_lines(f"mydataset/year={year}/month={month}/day=01/x.json", [{"id": 1, "v": "a"}])
    env.crawl(["s3://bkt/mydataset/"], Configuration=json.dumps({"Version": 1.0,
                                                                "Grouping": {"TableLevelConfiguration": 3}}))
    tables = env.tables()
    assert sorted(tables) == ["year_2025", "year_2026"]
    assert tables["year_2026"]["StorageDescriptor"]["Location"] == "s3://bkt/mydataset/year=2026/"
    assert [k["Name"] for k in tables["year_2026"]["PartitionKeys"]] == ["month", "day"]
    assert sorted(env.partitions("year_2026")) == [("01", "01"), ("02", "01")]


def test_exclusions(env: Env) -> None:
    _sales(env, range(1, 3))
    env.json_lines("sales/year=2026/month=06/day=01/_temporary/0/part-9.json", [{"zzz": 1}])
    env.json_lines("sales/year=2026/month=06/day=01/attempt/part-8.json", [{"other": 1, "x": 2}])
    env.write("sales/notes.tmp", "scratch")
    outcome = env.crawl(None, Targets={"S3Targets": [{"Path": "s3://bkt/sales/",
                                                      "Exclusions": ["**/_temporary/**", "*.tmp", "**/attempt/**"]}]})
    assert outcome.tables_created == 1
    assert not any("_temporary" in uri or uri.endswith(".tmp") or "attempt" in uri for uri in env.classified)
    assert len(env.classified) == 2
    table = env.table("sales")
    assert columns_of(table) == ["id", "name", "amount"]
    assert json.loads(table["Parameters"]["exclusions"])[0] == "s3://bkt/sales/**/_temporary/**"


def test_sample_size_bounds_files_read_per_folder(env: Env) -> None:
    for index in range(6):
        env.json_lines(f"events/d=1/part-{index}.json", [{"id": i, "kind": "k"} for i in range(5)])
    env.crawl(None, Targets={"S3Targets": [{"Path": "s3://bkt/events/", "SampleSize": 2}]})
    assert len(env.classified) == 2
    params = env.table("events")["Parameters"]
    assert params["objectCount"] == "6" and params["recordCount"] == "30"   # scaled from the sample


def test_incremental_crawl_reads_only_new_folders(env: Env) -> None:
    _sales(env, range(1, 6))
    policy = {"SchemaChangePolicy": {"UpdateBehavior": "LOG", "DeleteBehavior": "LOG"},
              "RecrawlPolicy": {"RecrawlBehavior": "CRAWL_NEW_FOLDERS_ONLY"}}
    first = env.crawl(["s3://bkt/sales/"], **policy)
    assert len(env.classified) == 5 and first.partitions_created == 5
    _sales(env, range(6, 8))
    second = env.crawl(["s3://bkt/sales/"], previous=first.state, **policy)
    assert sorted(env.classified) == [f"s3://bkt/sales/year=2026/month=06/day={d:02d}/part-0.json" for d in (6, 7)]
    assert (second.tables_created, second.partitions_created) == (0, 2)
    assert len(env.partitions("sales")) == 7
    third = env.crawl(["s3://bkt/sales/"], previous=second.state, **policy)
    assert env.classified == [] and third.partitions_created == 0
    # the state stays compact: the partition folders of each table root
    assert third.state["s3"]["s3://bkt/sales"]["tables"][""]["partitions"][-1] == "year=2026/month=06/day=07"


def test_incremental_policy_is_validated(env: Env) -> None:
    _sales(env, range(1, 2))
    with pytest.raises(CrawlError, match="must be LOG"):
        env.crawl(["s3://bkt/sales/"], RecrawlPolicy={"RecrawlBehavior": "CRAWL_NEW_FOLDERS_ONLY"})
    with pytest.raises(CrawlError, match="CRAWL_EVENT_MODE"):
        env.crawl(["s3://bkt/sales/"], RecrawlPolicy={"RecrawlBehavior": "CRAWL_EVENT_MODE"})
    with pytest.raises(CrawlError, match="not valid JSON"):
        env.crawl(["s3://bkt/sales/"], Configuration="{")
    assert env.tables() == {}


def _versions(env: Env, name: str) -> int:
    return len(env.glue.get_table_versions(DatabaseName="db", TableName=name)["TableVersions"])


@pytest.mark.parametrize("behavior", ["UPDATE_IN_DATABASE", "LOG"])
def test_schema_change_makes_a_new_table_version_or_is_logged(env: Env, behavior: str) -> None:
    env.json_lines("people/p.json", [{"id": 1, "name": "a"}])
    env.crawl(["s3://bkt/people/"])
    assert _versions(env, "people") == 1
    env.json_lines("people/p.json", [{"id": 1, "name": "a", "email": "x@y"}])
    outcome = env.crawl(["s3://bkt/people/"], SchemaChangePolicy={"UpdateBehavior": behavior})
    if behavior == "UPDATE_IN_DATABASE":
        assert outcome.tables_updated == 1 and _versions(env, "people") == 2
        assert columns_of(env.table("people")) == ["id", "name", "email"]
    else:
        assert outcome.tables_updated == 0 and _versions(env, "people") == 1
        assert columns_of(env.table("people")) == ["id", "name"]
        assert any("UpdateBehavior LOG" in m for m in outcome.messages)
    # the default policy (UPDATE_IN_DATABASE) brings the table up to date once; unchanged, no new version
    env.crawl(["s3://bkt/people/"])
    env.crawl(["s3://bkt/people/"])
    assert _versions(env, "people") == 2


def test_merge_new_columns_keeps_old_columns(env: Env) -> None:
    env.json_lines("people/p.json", [{"id": 1, "name": "a"}])
    env.crawl(["s3://bkt/people/"])
    env.json_lines("people/p.json", [{"id": 1, "email": "x@y", "name": "n"}])
    config = json.dumps({"Version": 1.0, "CrawlerOutput": {"Tables": {"AddOrUpdateBehavior": "MergeNewColumns"}}})
    env.write("people/p.json", json.dumps({"id": 2, "email": "e"}) + "\n")
    env.crawl(["s3://bkt/people/"], Configuration=config)
    assert columns_of(env.table("people")) == ["id", "name", "email"]


def test_inherit_from_table_gives_partitions_the_table_schema(env: Env) -> None:
    env.json_lines("t/d=1/a.json", [{"id": 1, "a": 1, "b": 2, "c": 3}])
    env.json_lines("t/d=2/a.json", [{"id": 1, "a": 1, "b": 2, "c": 3, "extra": 4}])
    env.crawl(["s3://bkt/t/"])
    plain = env.partitions("t")
    assert [c["Name"] for c in plain[("1",)]["StorageDescriptor"]["Columns"]] == ["id", "a", "b", "c"]
    env.glue.delete_table(DatabaseName="db", Name="t")
    config = json.dumps({"Version": 1.0, "CrawlerOutput": {"Partitions": {"AddOrUpdateBehavior": "InheritFromTable"}}})
    env.crawl(["s3://bkt/t/"], Configuration=config)
    inherited = env.partitions("t")
    assert [c["Name"] for c in inherited[("1",)]["StorageDescriptor"]["Columns"]] == ["id", "a", "b", "c", "extra"]


@pytest.mark.parametrize("behavior", ["DEPRECATE_IN_DATABASE", "DELETE_FROM_DATABASE", "LOG"])
def test_deleted_data(env: Env, behavior: str) -> None:
    _sales(env, range(1, 4), prefix="lake/sales")
    env.json_lines("lake/users/u.json", [{"user": "u", "mail": "m", "zip": 1}])
    env.json_lines("lake/items/i.json", [{"sku": "s", "weight": 1.5, "color": "c"}])
    env.crawl(["s3://bkt/lake/"])
    assert sorted(env.tables()) == ["items", "sales", "users"]
    shutil.rmtree(env.bucket / "lake/users")
    shutil.rmtree(env.bucket / "lake/sales/year=2026/month=06/day=03")
    outcome = env.crawl(["s3://bkt/lake/"], SchemaChangePolicy={"DeleteBehavior": behavior})
    tables = env.tables()
    if behavior == "DELETE_FROM_DATABASE":
        assert sorted(tables) == ["items", "sales"] and outcome.tables_deleted == 1
        assert sorted(env.partitions("sales")) == [("2026", "06", "01"), ("2026", "06", "02")]
        assert outcome.partitions_deleted == 1
    else:
        assert sorted(tables) == ["items", "sales", "users"] and outcome.tables_deleted == 0
        assert len(env.partitions("sales")) == 3 and outcome.partitions_deleted == 0
        deprecated = "DEPRECATED_BY_CRAWLER" in tables["users"]["Parameters"]
        assert deprecated is (behavior == "DEPRECATE_IN_DATABASE")
        assert "DEPRECATED_BY_CRAWLER" not in tables["sales"]["Parameters"]


def test_foreign_tables_are_not_clobbered(env: Env) -> None:
    env.glue.create_table(DatabaseName="db", TableInput={
        "Name": "sales", "StorageDescriptor": {"Columns": [{"Name": "mine", "Type": "int"}],
                                               "Location": "s3://elsewhere/"}})
    _sales(env, range(1, 2))
    outcome = env.crawl(["s3://bkt/sales/"])
    assert columns_of(env.table("sales")) == ["mine"]
    [ours] = [name for name in env.tables() if name != "sales"]
    assert ours.startswith("sales_") and env.table(ours)["Parameters"]["UPDATED_BY_CRAWLER"] == "crawler1"
    assert any("not created by this crawler" in m for m in outcome.messages)
    again = env.crawl(["s3://bkt/sales/"])              # the suffixed name is stable
    assert again.tables_created == 0 and len(env.tables()) == 2


def test_catalog_targets_update_existing_tables_only(env: Env) -> None:
    _sales(env, range(1, 3))
    env.json_lines("unrelated/x.json", [{"a": 1}])
    env.glue.create_table(DatabaseName="db", TableInput={
        "Name": "manual", "PartitionKeys": [{"Name": "y", "Type": "string"}, {"Name": "m", "Type": "string"},
                                            {"Name": "d", "Type": "string"}],
        "StorageDescriptor": {"Columns": [{"Name": "id", "Type": "bigint"}], "Location": "s3://bkt/sales/"}})
    outcome = env.crawl(None, Targets={"CatalogTargets": [{"DatabaseName": "db", "Tables": ["manual"]}]})
    assert outcome.tables_created == 0 and sorted(env.tables()) == ["manual"]
    table = env.table("manual")
    assert [k["Name"] for k in table["PartitionKeys"]] == ["y", "m", "d"]
    assert columns_of(table) == ["id", "name", "amount"]
    assert table["StorageDescriptor"]["InputFormat"] == "org.apache.hadoop.mapred.TextInputFormat"
    assert table["Parameters"]["classification"] == "json" and "UPDATED_BY_CRAWLER" not in table["Parameters"]
    assert sorted(env.partitions("manual")) == [("2026", "06", "01"), ("2026", "06", "02")]
    with pytest.raises(CrawlError, match="cannot crawl other targets"):
        env.crawl(None, Targets={"CatalogTargets": [{"DatabaseName": "db", "Tables": ["manual"]}],
                                 "S3Targets": [{"Path": "s3://bkt/unrelated/"}]})


def test_single_file_include_path_names_the_table_after_the_file(env: Env) -> None:
    env.write("drop/Prices 2026.csv", "sku,price\na,1.5\nb,2.5\n")
    env.crawl(["s3://bkt/drop/Prices 2026.csv"])
    table = env.table("prices_2026_csv")
    assert table["StorageDescriptor"]["Location"] == "s3://bkt/drop/Prices 2026.csv"
    assert table["PartitionKeys"] == []


def test_mixed_datasets_produce_the_tables_glue_would(env: Env) -> None:
    env.write("mixed/with_header/a.csv", "id,name,price\n1,apple,1.5\n2,pear,2.0\n")
    env.write("mixed/no_header/a.csv", "1,apple,1.5\n2,pear,2.0\n3,fig,3.25\n")
    row = {"id": 1, "name": "a", "kind": "k", "ts": "2026-01-01"}
    env.json_lines("mixed/evolving/part=1/a.json", [row] * 3)
    env.json_lines("mixed/evolving/part=2/a.json", [{**row, "email": "e"}] * 3)
    path = env.bucket / "mixed/columnar/a.parquet"
    path.parent.mkdir(parents=True)
    pq.write_table(pa.table({"id": [1, 2, 3], "v": ["a", "b", "c"]}), path)
    path = env.bucket / "mixed/rows/a.avro"
    path.parent.mkdir(parents=True)
    with path.open("wb") as out:
        fastavro.writer(out, fastavro.parse_schema({"type": "record", "name": "r", "fields": [
            {"name": "id", "type": "long"}, {"name": "s", "type": "string"}]}), [{"id": 1, "s": "x"}])
    env.write("mixed/zipped/a.json.gz", gzip.compress(b'{"a": 1, "b": "x"}\n{"a": 2, "b": "y"}\n'))
    env.write("mixed/weblogs/access.log", APACHE_LINE * 5)
    env.write("mixed/weblogs/corrupt.bin", os.urandom(256))
    outcome = env.crawl(["s3://bkt/mixed/"])
    tables = env.tables()
    kinds = {name: (t["Parameters"]["classification"], t["Parameters"]["compressionType"])
             for name, t in tables.items()}
    assert kinds == {"with_header": ("csv", "none"), "no_header": ("csv", "none"), "evolving": ("json", "none"),
                     "columnar": ("parquet", "none"), "rows": ("avro", "none"), "zipped": ("json", "gzip"),
                     "weblogs": ("combined_apache", "none")}
    assert columns_of(tables["with_header"]) == ["id", "name", "price"]
    assert columns_of(tables["no_header"]) == ["col0", "col1", "col2"]
    assert columns_of(tables["evolving"]) == ["id", "name", "kind", "ts", "email"]
    assert tables["zipped"]["StorageDescriptor"]["Compressed"] is True
    assert tables["weblogs"]["Parameters"]["objectCount"] == "1"
    assert any("UNKNOWN" in m and "corrupt.bin" in m for m in outcome.messages)


def test_stop_between_tables_leaves_complete_tables(env: Env) -> None:
    for name in ("a", "b", "c"):
        for day in range(1, 4):
            env.json_lines(f"lake/{name}/day={day}/x.json", [{f"{name}_{i}": i for i in range(4)}])
    with pytest.raises(CrawlStopped):
        env.crawl(["s3://bkt/lake/"], should_stop=lambda: len(env.tables()) >= 1)
    tables = env.tables()
    assert len(tables) == 1
    [name] = tables
    assert len(env.partitions(name)) == 3


def test_stop_while_classifying_writes_nothing(env: Env) -> None:
    _sales(env, range(1, 4))
    with pytest.raises(CrawlStopped):
        env.crawl(["s3://bkt/sales/"], should_stop=lambda: len(env.classified) >= 1)
    assert env.tables() == {}


def test_a_catalog_target_in_a_missing_database_fails_the_crawl(env: Env) -> None:
    _sales(env, range(1, 2))
    with pytest.raises(CrawlError, match="Database nope does not exist"):
        env.crawl(None, Targets={"CatalogTargets": [{"DatabaseName": "nope", "Tables": ["sales"]}]})
    assert "nope" not in [d["Name"] for d in env.glue.get_databases()["DatabaseList"]]


# -------------------------------------------------------------------------------------------- JDBC


@pytest.fixture()
def pg(env: Env) -> Iterator[str]:
    import psycopg

    tag = os.urandom(3).hex()
    dsn = services.postgres().url
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f"CREATE TABLE orders{tag} (id integer, total numeric(12,2), placed timestamp)")
        conn.execute(f"CREATE TABLE orders{tag}_tmp (id integer)")
        conn.execute(f"CREATE TABLE customers{tag} (id integer)")
    env.glue.create_connection(ConnectionInput={"Name": "pg", "ConnectionType": "JDBC",
                                                "ConnectionProperties": services.postgres().connection_properties()})
    yield tag
    with psycopg.connect(dsn, autocommit=True) as conn:
        for name in (f"orders{tag}", f"orders{tag}_tmp", f"customers{tag}"):
            conn.execute(f"DROP TABLE IF EXISTS {name}")


def test_jdbc_crawl_of_postgresql(env: Env, pg: str) -> None:
    db = services.postgres().database
    targets = {"JdbcTargets": [{"ConnectionName": "pg", "Path": f"{db}/public/orders{pg}%",
                                "Exclusions": ["**_tmp"]}]}
    outcome = env.crawl(None, Targets=targets)
    assert outcome.tables_created == 1
    table = env.table(f"{db}_public_orders{pg}")
    assert [(c["Name"], c["Type"]) for c in table["StorageDescriptor"]["Columns"]] == [
        ("id", "int"), ("total", "decimal(12,2)"), ("placed", "timestamp")]
    assert table["StorageDescriptor"]["Location"] == f"{db}.public.orders{pg}"
    params = table["Parameters"]
    assert (params["classification"], params["connectionName"], params["typeOfData"]) == ("postgresql", "pg", "table")
    import psycopg

    with psycopg.connect(services.postgres().url, autocommit=True) as conn:
        conn.execute(f"ALTER TABLE orders{pg} ADD COLUMN note text")
    outcome = env.crawl(None, Targets=targets)
    assert outcome.tables_updated == 1 and columns_of(env.table(f"{db}_public_orders{pg}"))[-1] == "note"


@pytest.fixture()
def maria(env: Env) -> Iterator[str]:
    tag = os.urandom(3).hex()
    conn = services.mariadb().connect()
    with conn.cursor() as cur:
        cur.execute(f"CREATE TABLE items{tag} (id BIGINT, label VARCHAR(20), price DECIMAL(8,3), at DATETIME)")
    env.glue.create_connection(ConnectionInput={"Name": "maria", "ConnectionType": "JDBC",
                                                "ConnectionProperties": services.mariadb().connection_properties()})
    yield tag
    with conn.cursor() as cur:
        cur.execute(f"DROP TABLE IF EXISTS items{tag}")
    conn.close()


def test_jdbc_crawl_of_mariadb(env: Env, maria: str) -> None:
    db = services.mariadb().database
    outcome = env.crawl(None, Targets={"JdbcTargets": [{"ConnectionName": "maria", "Path": f"{db}/%"}]})
    assert outcome.tables_created >= 1
    table = env.table(f"{db}_items{maria}")
    assert [(c["Name"], c["Type"]) for c in table["StorageDescriptor"]["Columns"]] == [
        ("id", "bigint"), ("label", "string"), ("price", "decimal(8,3)"), ("at", "timestamp")]
    assert table["StorageDescriptor"]["Location"] == f"{db}.items{maria}"
    assert table["Parameters"]["classification"] == "mysql"


def test_jdbc_crawl_with_an_unknown_connection_fails(env: Env) -> None:
    with pytest.raises(CrawlError, match="Connection"):
        env.crawl(None, Targets={"JdbcTargets": [{"ConnectionName": "nope", "Path": "test/%"}]})
