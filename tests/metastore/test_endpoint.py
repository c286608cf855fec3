"""The Hive metastore endpoint, called as any Hive metastore client calls it (Thrift, binary protocol), over an
embedded installation's Glue API: every Glue refusal arrives as the Hive exception the call declares."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from botocore.exceptions import ClientError
from pymetastore.hive_metastore import ThriftHiveMetastore
from pymetastore.hive_metastore import ttypes as hms
from thrift.protocol import TBinaryProtocol
from thrift.Thrift import TApplicationException
from thrift.transport import TSocket, TTransport

from glueball.app import Glueball
from glueball.config import Settings
from glueball.metastore import HiveMetastoreEndpoint, Metastore, ObjectStoreFiles
from glueball.metastore.errors import to_hive
from glueball.metastore.shapes import escape_path_name, partition_name, partition_values
from glueball.objects.access import LocalObjects


@pytest.fixture(scope="module")
def installation(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Glueball]:
    glueball = Glueball(Settings(home=tmp_path_factory.mktemp("hms-home")))
    yield glueball
    glueball.close()


@pytest.fixture(scope="module")
def endpoint(installation: Glueball) -> Iterator[HiveMetastoreEndpoint]:
    glue = installation.client("glue")
    running = HiveMetastoreEndpoint(Metastore(client=lambda: glue, warehouse="s3://warehouse/",
                                              files=ObjectStoreFiles(LocalObjects(installation.settings.home / "s3"))))
    yield running
    running.stop()


@pytest.fixture()
def hive(endpoint: HiveMetastoreEndpoint) -> Iterator[Any]:
    transport = TTransport.TBufferedTransport(TSocket.TSocket(endpoint.host, endpoint.port))
    transport.open()
    yield ThriftHiveMetastore.Client(TBinaryProtocol.TBinaryProtocol(transport))
    transport.close()


def _table(db: str, name: str, location: str, keys: tuple[str, ...] = ("day",),
           kind: str = "EXTERNAL_TABLE") -> hms.Table:
    return hms.Table(
        tableName=name, dbName=db, owner="me", tableType=kind, parameters={"classification": "parquet"},
        partitionKeys=[hms.FieldSchema(name=k, type="string") for k in keys],
        sd=hms.StorageDescriptor(
            cols=[hms.FieldSchema(name="v", type="bigint", comment="value")], location=location,
            inputFormat="org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat",
            outputFormat="org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat",
            serdeInfo=hms.SerDeInfo(serializationLib="org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe",
                                    parameters={"serialization.format": "1"}),
            bucketCols=[], sortCols=[], parameters={}, numBuckets=-1))


def _partition(db: str, table: str, day: str, location: str) -> hms.Partition:
    return hms.Partition(values=[day], dbName=db, tableName=table, parameters={},
                         sd=hms.StorageDescriptor(cols=[], location=location, parameters={},
                                                  serdeInfo=hms.SerDeInfo(parameters={})))


def test_databases_round_trip_and_missing_ones_are_no_such_object(hive: Any, installation: Glueball) -> None:
    glue = installation.client("glue")
    glue.create_database(DatabaseInput={"Name": "from_glue"})
    hive.create_database(hms.Database(name="from_hive", description="d", locationUri="s3://lake/from_hive",
                                      parameters={"k": "v"}))
    assert {"from_glue", "from_hive"} <= set(hive.get_all_databases())
    assert hive.get_databases("from_h*") == ["from_hive"]
    assert hive.get_database("from_glue").locationUri == "s3://warehouse/from_glue.db"   # Hive's default
    stored = glue.get_database(Name="from_hive")["Database"]
    assert (stored["LocationUri"], stored["Parameters"]) == ("s3://lake/from_hive", {"k": "v"})
    with pytest.raises(hms.NoSuchObjectException, match="EntityNotFoundException"):
        hive.get_database("nowhere")
    with pytest.raises(hms.AlreadyExistsException):
        hive.create_database(hms.Database(name="from_glue", locationUri="s3://x/", parameters={}))


def test_tables_partitions_and_their_errors(hive: Any, installation: Glueball) -> None:
    glue = installation.client("glue")
    glue.create_database(DatabaseInput={"Name": "parts"})
    hive.create_table(_table("parts", "events", "s3://lake/parts/events"))
    stored = glue.get_table(DatabaseName="parts", Name="events")["Table"]
    assert stored["StorageDescriptor"]["Columns"] == [{"Name": "v", "Type": "bigint", "Comment": "value"}]
    assert stored["PartitionKeys"] == [{"Name": "day", "Type": "string"}]
    assert (installation.settings.home / "s3" / "lake" / "parts" / "events").is_dir()  # made, as Hive's does
    with pytest.raises(hms.AlreadyExistsException, match="AlreadyExistsException"):
        hive.create_table(_table("parts", "events", "s3://lake/parts/events"))
    with pytest.raises(hms.InvalidObjectException, match="ValidationException"):
        hive.create_table(_table("parts", "x" * 300, "s3://lake/parts/long"))
    with pytest.raises(hms.NoSuchObjectException):
        hive.get_table("parts", "x" * 300)                         # no table can have that name

    added = hive.add_partitions([_partition("parts", "events", d, f"s3://lake/parts/events/day={d}")
                                 for d in ("2026-01-01", "a/b")])
    assert added == 2
    assert sorted(hive.get_partition_names("parts", "events", -1)) == ["day=2026-01-01", "day=a%2Fb"]
    assert hive.get_partition_by_name("parts", "events", "day=a%2Fb").values == ["a/b"]
    with pytest.raises(hms.AlreadyExistsException):                # all or nothing: day=new is not added
        hive.add_partitions([_partition("parts", "events", d, f"s3://lake/parts/events/day={d}")
                             for d in ("new", "2026-01-01")])
    assert len(glue.get_partitions(DatabaseName="parts", TableName="events")["Partitions"]) == 2
    request = hms.AddPartitionsRequest(dbName="parts", tblName="events", ifNotExists=True, needResult=True, parts=[
        _partition("parts", "events", d, f"s3://lake/parts/events/day={d}") for d in ("new", "2026-01-01")])
    assert [p.values for p in hive.add_partitions_req(request).partitions] == [["new"]]
    assert [p.values for p in hive.get_partitions_by_filter("parts", "events", 'day = "new"', -1)] == [["new"]]
    everything = hive.get_partitions_by_filter("parts", "events", "day LIKE_REGEX 'x'", -1)   # Glue refuses it
    assert len(everything) == 3                                     # answered whole: Spark prunes again
    partition = hive.get_partition("parts", "events", ["new"])
    assert partition.sd.serdeInfo.serializationLib.endswith("ParquetHiveSerDe")   # the table's, as Hive answers
    with pytest.raises(hms.NoSuchObjectException):
        hive.get_partition("parts", "events", ["missing"])
    assert hive.drop_partition("parts", "events", ["new"], True)
    with pytest.raises(hms.NoSuchObjectException):
        hive.drop_partition("parts", "events", ["new"], True)
    with pytest.raises(hms.InvalidOperationException, match="not empty"):
        hive.drop_database("parts", True, False)
    with pytest.raises(hms.MetaException, match="get_role_names"):
        hive.get_role_names()
    with pytest.raises(TApplicationException, match="open_txns"):
        hive.open_txns(hms.OpenTxnRequest(num_txns=1, user="u", hostname="h"))


class _Asked:
    """A Glue client that notes the reads asked of it."""

    def __init__(self, glue: Any, asked: list[str]) -> None:
        self.glue, self.asked = glue, asked

    def __getattr__(self, name: str) -> Any:
        if name.startswith("get_"):
            self.asked.append(name)
        return getattr(self.glue, name)


def test_within_remembering_a_read_is_asked_of_the_catalog_once_until_a_write(
        hive: Any, endpoint: HiveMetastoreEndpoint, installation: Glueball, monkeypatch: pytest.MonkeyPatch) -> None:
    glue = installation.client("glue")
    glue.create_database(DatabaseInput={"Name": "memo"})
    hive.create_table(_table("memo", "events", "s3://lake/memo/events"))
    asked: list[str] = []
    monkeypatch.setattr(endpoint.metastore, "client", lambda: _Asked(glue, asked))
    with endpoint.metastore.remembering():
        first = hive.get_table("memo", "events")
        assert hive.get_table("memo", "EVENTS") == first and hive.get_database("memo") == hive.get_database("memo")
        assert asked == ["get_table", "get_database"]
        glue.update_table(DatabaseName="memo", TableInput={"Name": "events", "Parameters": {"by": "glue"}})
        assert hive.get_table("memo", "events").parameters == first.parameters  # another writer: not seen here
        changed = hive.get_table("memo", "events")
        changed.parameters = {**changed.parameters, "by": "hive"}
        hive.alter_table("memo", "events", changed)                     # a write through it forgets
        assert hive.get_table("memo", "events").parameters["by"] == "hive"
        hive.drop_table("memo", "events", False)
        with pytest.raises(hms.NoSuchObjectException):
            hive.get_table("memo", "events")
    asked.clear()
    hive.get_database("memo")
    hive.get_database("memo")
    assert asked == ["get_database", "get_database"]                    # outside the block, every read asks


def test_managed_tables_move_on_rename_and_their_data_goes_on_drop(hive: Any, installation: Glueball) -> None:
    glue = installation.client("glue")
    home = installation.settings.home / "s3"
    glue.create_database(DatabaseInput={"Name": "managed", "LocationUri": "s3://lake/managed"})
    hive.create_table(_table("managed", "t", "s3://lake/managed/t", kind="MANAGED_TABLE"))
    hive.add_partitions([_partition("managed", "t", "1", "s3://lake/managed/t/day=1")])
    (home / "lake" / "managed" / "t" / "day=1" / "part-0").write_text("data")
    renamed = _table("managed", "u", "s3://lake/managed/t", kind="MANAGED_TABLE")
    hive.alter_table("managed", "t", renamed)
    assert [t["Name"] for t in glue.get_tables(DatabaseName="managed")["TableList"]] == ["u"]
    moved = glue.get_partition(DatabaseName="managed", TableName="u", PartitionValues=["1"])["Partition"]
    assert moved["StorageDescriptor"]["Location"] == "s3://lake/managed/u/day=1"
    assert (home / "lake" / "managed" / "u" / "day=1" / "part-0").read_text() == "data"
    assert not (home / "lake" / "managed" / "t").exists()
    hive.drop_table("managed", "u", True)
    assert not (home / "lake" / "managed" / "u").exists()
    hive.create_table(_table("managed", "ext", "s3://lake/managed/ext"))
    (home / "lake" / "managed" / "ext" / "f").write_text("kept")
    hive.drop_table("managed", "ext", True)
    assert (home / "lake" / "managed" / "ext" / "f").read_text() == "kept"


def test_a_crawler_csv_table_is_answered_as_a_spark_data_source_and_written_back_unchanged(
        hive: Any, installation: Glueball) -> None:
    glue = installation.client("glue")
    glue.create_database(DatabaseInput={"Name": "crawled"})
    glue.create_table(DatabaseName="crawled", TableInput={
        "Name": "people", "Parameters": {"classification": "csv", "skip.header.line.count": "1"},
        "StorageDescriptor": {"Location": "s3://lake/crawled/people/", "Columns": [{"Name": "id", "Type": "bigint"}],
                              "SerdeInfo": {"SerializationLibrary":
                                            "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe",
                                            "Parameters": {"field.delim": ";"}}}})
    table = hive.get_table("crawled", "people")
    assert table.parameters["spark.sql.sources.provider"] == "csv"
    assert table.sd.serdeInfo.parameters["sep"] == ";" and table.sd.serdeInfo.parameters["header"] == "true"
    table.parameters["comment"] = "people we know"
    hive.alter_table("crawled", "people", table)
    stored = glue.get_table(DatabaseName="crawled", Name="people")["Table"]
    assert "spark.sql.sources.provider" not in stored["Parameters"]
    assert stored["Parameters"]["comment"] == "people we know" and stored["Description"] == "people we know"
    assert stored["StorageDescriptor"]["SerdeInfo"]["Parameters"] == {"field.delim": ";"}


OPENX = "org.openx.data.jsonserde.JsonSerDe"
LAZY = "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe"


def test_a_json_table_is_answered_with_a_serde_spark_can_load_and_keeps_its_own(
        hive: Any, installation: Glueball) -> None:
    # Hive's client loads a table's SerDe before it alters the table: OpenX's is not on Spark's class path
    glue = installation.client("glue")
    glue.create_database(DatabaseInput={"Name": "jsons"})
    descriptor = {"Location": "s3://lake/jsons/events/", "Columns": [{"Name": "id", "Type": "int"}],
                  "SerdeInfo": {"SerializationLibrary": OPENX, "Parameters": {"paths": "id"}}}
    glue.create_table(DatabaseName="jsons", TableInput={
        "Name": "events", "Parameters": {"classification": "json"}, "StorageDescriptor": descriptor,
        "PartitionKeys": [{"Name": "dt", "Type": "string"}]})
    table = hive.get_table("jsons", "events")
    assert table.parameters["spark.sql.sources.provider"] == "json" and table.sd.serdeInfo.serializationLib == LAZY
    table.parameters["comment"] = "events"
    hive.alter_table("jsons", "events", table)
    stored = glue.get_table(DatabaseName="jsons", Name="events")["Table"]
    assert stored["StorageDescriptor"]["SerdeInfo"] == {"SerializationLibrary": OPENX, "Parameters": {"paths": "id"}}
    # a partition Spark adds with the table's SerDe as it was answered is stored with the table's own
    added = _partition("jsons", "events", "2024-01-01", "s3://lake/jsons/events/dt=2024-01-01")
    added.sd.serdeInfo = hms.SerDeInfo(serializationLib=LAZY, parameters={})
    hive.add_partition(added)
    hive.alter_partition("jsons", "events", added)
    partition = glue.get_partition(DatabaseName="jsons", TableName="events", PartitionValues=["2024-01-01"])
    assert partition["Partition"]["StorageDescriptor"]["SerdeInfo"]["SerializationLibrary"] == OPENX
    # a table Spark reads through Hive (no location: no data source) is answered as it is stored
    glue.create_table(DatabaseName="jsons", TableInput={"Name": "nowhere", "StorageDescriptor": {
        "Columns": [{"Name": "id", "Type": "int"}], "SerdeInfo": {"SerializationLibrary": OPENX}}})
    assert hive.get_table("jsons", "nowhere").sd.serdeInfo.serializationLib == OPENX


def test_a_spark_data_source_table_is_stored_at_its_path_not_sparks_placeholder(
        hive: Any, installation: Glueball) -> None:
    # Spark's Hive client gives an external data source table a placeholder location; its path is the SerDe's
    table = _table("jsons_made", "events", "s3://warehouse/jsons_made.db/events-__PLACEHOLDER__", keys=())
    table.parameters = {"spark.sql.sources.provider": "json", "spark.sql.sources.schema":
                        '{"type":"struct","fields":[{"name":"id","type":"integer","nullable":true,"metadata":{}}]}'}
    table.sd.cols = [hms.FieldSchema(name="col", type="array<string>")]
    table.sd.serdeInfo = hms.SerDeInfo(serializationLib=LAZY, parameters={"path": "s3://lake/made/events"})
    hive.create_database(hms.Database(name="jsons_made", parameters={}))
    hive.create_table(table)
    stored = installation.client("glue").get_table(DatabaseName="jsons_made", Name="events")["Table"]
    assert stored["StorageDescriptor"]["Location"] == "s3://lake/made/events"
    assert [c["Name"] for c in stored["StorageDescriptor"]["Columns"]] == ["id"]
    assert stored["StorageDescriptor"]["SerdeInfo"]["SerializationLibrary"] == OPENX


def test_glue_codes_map_to_the_exceptions_each_call_declares() -> None:
    denied = ClientError({"Error": {"Code": "AccessDeniedException", "Message": "no glue:CreateTable"}}, "CreateTable")
    error = to_hive("create_table", denied)
    assert isinstance(error, hms.MetaException) and "AccessDeniedException: no glue:CreateTable" in error.message
    conflict = ClientError({"Error": {"Code": "ConcurrentModificationException", "Message": "v"}}, "UpdateTable")
    assert isinstance(to_hive("alter_table_with_environment_context", conflict), hms.InvalidOperationException)
    missing = ClientError({"Error": {"Code": "EntityNotFoundException", "Message": "gone"}}, "DeleteTable")
    assert isinstance(to_hive("drop_table_with_environment_context", missing), hms.NoSuchObjectException)


def test_partition_names_escape_as_hive_does() -> None:
    assert escape_path_name("a/b=c:d%") == "a%2Fb%3Dc%3Ad%25"
    assert partition_name(["y", "m"], ["2026", "01 02"]) == "y=2026/m=01 02"
    assert partition_values("y=2026/m=a%2Fb") == ["2026", "a/b"]
    assert escape_path_name("") == "__HIVE_DEFAULT_PARTITION__"


def test_the_endpoint_listens_on_loopback_only_by_default(endpoint: HiveMetastoreEndpoint) -> None:
    assert endpoint.host == "127.0.0.1" and endpoint.uri == f"thrift://127.0.0.1:{endpoint.port}"
    assert Path(__file__).name  # the module's endpoint serves every test above over that one port


def test_the_server_serves_the_catalog_as_a_hive_metastore_for_other_engines(tmp_path: Path) -> None:
    from tests.helpers import ServerProcess, free_port

    port = free_port()
    (tmp_path / "home").mkdir()
    server = ServerProcess(tmp_path / "home", extra_args=("--hms-port", str(port))).start()
    try:
        glue = server.client()
        glue.create_database(DatabaseInput={"Name": "shared"})
        transport = TTransport.TBufferedTransport(TSocket.TSocket("127.0.0.1", port))
        transport.open()
        try:
            hive = ThriftHiveMetastore.Client(TBinaryProtocol.TBinaryProtocol(transport))
            assert "shared" in hive.get_all_databases()
            hive.create_table(_table("shared", "events", "s3://lake/shared/events"))
        finally:
            transport.close()
        assert glue.get_table(DatabaseName="shared", Name="events")["Table"]["PartitionKeys"] == \
            [{"Name": "day", "Type": "string"}]
        assert (tmp_path / "home" / "s3" / "lake" / "shared" / "events").is_dir()
    finally:
        server.stop()


def test_the_server_refuses_a_hive_metastore_under_iam(tmp_path: Path) -> None:
    import subprocess
    import sys

    refused = subprocess.run([sys.executable, "-m", "glueball", "server", "--home", str(tmp_path), "--auth", "iam",
                              "--hms-port", "9083"], capture_output=True, text=True, timeout=120)
    assert refused.returncode != 0 and "--hms-port needs --auth off" in refused.stderr
