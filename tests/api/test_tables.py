from __future__ import annotations

import threading
from typing import Any

import pytest
from botocore.exceptions import ClientError

from tests.helpers import ServerProcess, error_of, table_input, unique


@pytest.fixture()
def db(glue: Any) -> str:
    name = unique("tdb")
    glue.create_database(DatabaseInput={"Name": name})
    return name


def test_create_get_table_round_trips_and_folds_name(glue: Any, db: str) -> None:
    spec = table_input("Orders", [("year", "string")], Description="orders landed daily",
                       LastAccessTime=1767225600)
    glue.create_table(DatabaseName=db.upper(), TableInput=spec)
    table = glue.get_table(DatabaseName=db, Name="ORDERS")["Table"]
    assert table["Name"] == "orders"
    assert table["DatabaseName"] == db
    assert table["StorageDescriptor"]["Columns"] == spec["StorageDescriptor"]["Columns"]
    assert table["StorageDescriptor"]["SerdeInfo"] == spec["StorageDescriptor"]["SerdeInfo"]
    assert table["PartitionKeys"] == [{"Name": "year", "Type": "string"}]
    assert table["Parameters"] == {"classification": "parquet"}
    assert table["Description"] == "orders landed daily"
    assert table["LastAccessTime"].timestamp() == 1767225600
    assert table["VersionId"] == "0"
    assert table["CatalogId"] == "123456789012"
    assert table["IsRegisteredWithLakeFormation"] is False
    assert table["CreateTime"] == table["UpdateTime"]


def test_table_errors_name_what_is_missing_or_duplicate(glue: Any, db: str) -> None:
    glue.create_table(DatabaseName=db, TableInput=table_input("t1"))
    with pytest.raises(ClientError) as excinfo:
        glue.create_table(DatabaseName=db, TableInput=table_input("T1"))
    assert error_of(excinfo) == ("AlreadyExistsException", f"Table t1 already exists in database {db}.")
    with pytest.raises(ClientError) as excinfo:
        glue.get_table(DatabaseName=db, Name="nope")
    assert error_of(excinfo) == ("EntityNotFoundException", "Table nope not found.")  # AWS's text
    with pytest.raises(ClientError) as excinfo:
        glue.get_table(DatabaseName="no_db_here", Name="t1")
    assert error_of(excinfo) == ("EntityNotFoundException", "Database no_db_here not found.")
    with pytest.raises(ClientError) as excinfo:
        glue.create_table(DatabaseName="no_db_here", TableInput=table_input("t1"))
    assert error_of(excinfo)[0] == "EntityNotFoundException"
    with pytest.raises(ClientError) as excinfo:
        glue.create_table(DatabaseName=db, TableInput=table_input("t2"), TransactionId="tx1")
    assert error_of(excinfo) == ("InvalidInputException", "TransactionId is not supported by glueball")


def test_get_tables_expression_attributes_and_pagination(glue: Any, db: str) -> None:
    for name in ("sales_2024", "sales_2025", "customers", "sales_archive", "returns"):
        glue.create_table(DatabaseName=db, TableInput=table_input(name))
    names = [t["Name"] for t in glue.get_tables(DatabaseName=db, Expression="sales*")["TableList"]]
    assert names == ["sales_2024", "sales_2025", "sales_archive"]
    regex = glue.get_tables(DatabaseName=db, Expression="sales_20[0-9]+|returns")["TableList"]
    assert [t["Name"] for t in regex] == ["returns", "sales_2024", "sales_2025"]
    pages = list(glue.get_paginator("get_tables").paginate(DatabaseName=db, PaginationConfig={"PageSize": 2}))
    assert [len(p["TableList"]) for p in pages] == [2, 2, 1]
    assert [t["Name"] for p in pages for t in p["TableList"]] == \
        ["customers", "returns", "sales_2024", "sales_2025", "sales_archive"]
    slim = glue.get_tables(DatabaseName=db, AttributesToGet=["NAME", "TABLE_TYPE"])["TableList"]
    assert all(set(t) == {"Name", "DatabaseName", "CatalogId", "TableType"} for t in slim)
    with pytest.raises(ClientError) as excinfo:
        glue.get_tables(DatabaseName=db, Expression="sales(")
    assert error_of(excinfo)[0] == "InvalidInputException"
    assert "sales(" in error_of(excinfo)[1]
    with pytest.raises(ClientError) as excinfo:
        glue.get_tables(DatabaseName="no_db_here")
    assert error_of(excinfo)[0] == "EntityNotFoundException"


def test_update_archives_versions_unless_skip_archive(glue: Any, db: str) -> None:
    glue.create_table(DatabaseName=db, TableInput=table_input("evolving", Description="v0"))
    glue.update_table(DatabaseName=db, TableInput=table_input("evolving", Description="v1"))
    glue.update_table(DatabaseName=db, TableInput=table_input("evolving", Description="v2"), SkipArchive=True)
    current = glue.get_table(DatabaseName=db, Name="evolving")["Table"]
    assert (current["VersionId"], current["Description"]) == ("2", "v2")
    versions = glue.get_table_versions(DatabaseName=db, TableName="evolving")["TableVersions"]
    assert [(v["VersionId"], v["Table"]["Description"]) for v in versions] == [("2", "v2"), ("0", "v0")]
    old = glue.get_table_version(DatabaseName=db, TableName="evolving", VersionId="0")["TableVersion"]
    assert old["Table"]["Description"] == "v0"
    latest = glue.get_table_version(DatabaseName=db, TableName="evolving")["TableVersion"]
    assert latest["VersionId"] == "2"
    with pytest.raises(ClientError) as excinfo:
        glue.get_table_version(DatabaseName=db, TableName="evolving", VersionId="1")
    assert error_of(excinfo) == ("EntityNotFoundException", "Version 1 of table evolving not found.")


def test_update_with_stale_version_is_concurrent_modification(glue: Any, db: str) -> None:
    glue.create_table(DatabaseName=db, TableInput=table_input("cas"))
    glue.update_table(DatabaseName=db, TableInput=table_input("cas", Description="a"), VersionId="0")
    with pytest.raises(ClientError) as excinfo:
        glue.update_table(DatabaseName=db, TableInput=table_input("cas", Description="b"), VersionId="0")
    code, message = error_of(excinfo)
    assert code == "ConcurrentModificationException"
    assert "version 1, not at VersionId 0" in message
    assert glue.get_table(DatabaseName=db, Name="cas")["Table"]["Description"] == "a"
    with pytest.raises(ClientError) as excinfo:
        glue.update_table(DatabaseName=db, TableInput=table_input("cas"), VersionId="one")
    assert error_of(excinfo)[0] == "InvalidInputException"


def race_updates(clients: list[Any], db: str, table: str, rounds: int) -> None:
    """Two clients update ``table`` at the same VersionId at once, ``rounds`` times: one must win each time."""
    setup = clients[0]
    for round_ in range(rounds):
        version = setup.get_table(DatabaseName=db, Name=table)["Table"]["VersionId"]
        barrier = threading.Barrier(2)
        outcomes: list[str] = []

        def race(index: int, version: str = version, barrier: threading.Barrier = barrier,
                 outcomes: list[str] = outcomes, round_: int = round_) -> None:
            barrier.wait()
            try:
                clients[index].update_table(
                    DatabaseName=db, VersionId=version,
                    TableInput=table_input(table, Description=f"round {round_} by {index}"))
                outcomes.append("won")
            except ClientError as err:
                outcomes.append(err.response["Error"]["Code"])

        threads = [threading.Thread(target=race, args=(i,)) for i in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert sorted(outcomes) == ["ConcurrentModificationException", "won"]
        current = setup.get_table(DatabaseName=db, Name=table)["Table"]
        assert current["VersionId"] == str(int(version) + 1)
        assert current["Description"].startswith(f"round {round_} by ")


def test_racing_updates_with_same_version_exactly_one_wins(server: ServerProcess, db: str) -> None:
    server.client().create_table(DatabaseName=db, TableInput=table_input("raced"))
    race_updates([server.client(), server.client()], db, "raced", rounds=8)


def test_rename_and_missing_table_input_are_refused(glue: Any, db: str) -> None:
    glue.create_table(DatabaseName=db, TableInput=table_input("stay"))
    with pytest.raises(ClientError) as excinfo:
        glue.update_table(DatabaseName=db, Name="stay", TableInput=table_input("moved"))
    assert error_of(excinfo)[0] == "InvalidInputException"
    assert "Renaming a table is not supported" in error_of(excinfo)[1]
    with pytest.raises(ClientError) as excinfo:
        glue.update_table(DatabaseName=db, Name="stay")
    assert error_of(excinfo)[0] == "InvalidInputException"
    with pytest.raises(ClientError) as excinfo:
        glue.update_table(DatabaseName=db, TableInput=table_input("never_created"))
    assert error_of(excinfo)[0] == "EntityNotFoundException"


def test_delete_table_version_rules(glue: Any, db: str) -> None:
    glue.create_table(DatabaseName=db, TableInput=table_input("vers"))
    for i in range(3):
        glue.update_table(DatabaseName=db, TableInput=table_input("vers", Description=str(i)))
    glue.delete_table_version(DatabaseName=db, TableName="vers", VersionId="1")
    with pytest.raises(ClientError) as excinfo:
        glue.delete_table_version(DatabaseName=db, TableName="vers", VersionId="3")
    assert error_of(excinfo)[0] == "InvalidInputException"
    assert "current version" in error_of(excinfo)[1]
    result = glue.batch_delete_table_version(DatabaseName=db, TableName="vers", VersionIds=["0", "1", "3"])
    assert [(e["VersionId"], e["ErrorDetail"]["ErrorCode"]) for e in result["Errors"]] == \
        [("1", "EntityNotFoundException"), ("3", "InvalidInputException")]
    remaining = glue.get_table_versions(DatabaseName=db, TableName="vers")["TableVersions"]
    assert [v["VersionId"] for v in remaining] == ["3", "2"]
    pages = list(glue.get_paginator("get_table_versions").paginate(
        DatabaseName=db, TableName="vers", PaginationConfig={"PageSize": 1}))
    assert [v["VersionId"] for p in pages for v in p["TableVersions"]] == ["3", "2"]


def test_delete_and_batch_delete_tables(glue: Any, db: str) -> None:
    for name in ("a", "b", "c"):
        glue.create_table(DatabaseName=db, TableInput=table_input(name))
    glue.delete_table(DatabaseName=db, Name="a")
    with pytest.raises(ClientError) as excinfo:
        glue.delete_table(DatabaseName=db, Name="a")
    assert error_of(excinfo) == ("EntityNotFoundException", "Table a not found.")
    result = glue.batch_delete_table(DatabaseName=db, TablesToDelete=["b", "zz", "c"])
    # AWS's texts: DeleteTable ends with a period, a BatchDeleteTable entry does not
    assert [(e["TableName"], e["ErrorDetail"]["ErrorCode"], e["ErrorDetail"]["ErrorMessage"])
            for e in result["Errors"]] == [("zz", "EntityNotFoundException", "Table zz not found")]
    assert glue.get_tables(DatabaseName=db)["TableList"] == []
    glue.create_table(DatabaseName=db, TableInput=table_input("b"))
    assert glue.get_table(DatabaseName=db, Name="b")["Table"]["VersionId"] == "0"


def test_deleting_database_deletes_its_tables(glue: Any) -> None:
    name = unique("cascade")
    glue.create_database(DatabaseInput={"Name": name})
    glue.create_table(DatabaseName=name, TableInput=table_input("t"))
    glue.delete_database(Name=name)
    glue.create_database(DatabaseInput={"Name": name})
    assert glue.get_tables(DatabaseName=name)["TableList"] == []


def test_search_tables_text_filters_sort_and_pages(glue: Any) -> None:
    tag = unique("srch").replace("_", "")
    db1, db2 = f"{tag}_one", f"{tag}_two"
    for db in (db1, db2):
        glue.create_database(DatabaseInput={"Name": db})
    glue.create_table(DatabaseName=db1, TableInput=table_input(
        f"{tag}_customer_link", Description="links customers", Parameters={"classification": "csv"}))
    glue.create_table(DatabaseName=db1,
                      TableInput=table_input(f"{tag}_xxlinkyy", Parameters={"classification": "json"}))
    glue.create_table(DatabaseName=db2, TableInput=table_input(f"{tag}_orders", Parameters={"classification": "csv"}))
    found = glue.search_tables(SearchText=tag)["TableList"]
    assert sorted(t["Name"] for t in found) == sorted([f"{tag}_customer_link", f"{tag}_xxlinkyy", f"{tag}_orders"])
    link = glue.search_tables(SearchText=tag, Filters=[{"Key": "Name", "Value": "link"}])["TableList"]
    assert [t["Name"] for t in link] == [f"{tag}_customer_link"]
    csv = glue.search_tables(SearchText=tag, Filters=[{"Key": "classification", "Value": "csv"}],
                             SortCriteria=[{"FieldName": "Name", "Sort": "DESC"}])["TableList"]
    assert [t["Name"] for t in csv] == [f"{tag}_orders", f"{tag}_customer_link"]
    in_db2 = glue.search_tables(Filters=[{"Key": "DatabaseName", "Value": db2}])["TableList"]
    assert [t["Name"] for t in in_db2] == [f"{tag}_orders"]
    by_description = glue.search_tables(SearchText='"links customers"')["TableList"]
    assert [t["Name"] for t in by_description] == [f"{tag}_customer_link"]
    created = glue.get_table(DatabaseName=db2, Name=f"{tag}_orders")["Table"]["CreateTime"].timestamp()
    later = glue.search_tables(SearchText=tag, Filters=[
        {"Key": "CreateTime", "Value": str(int(created) + 3600), "Comparator": "GREATER_THAN"}])["TableList"]
    assert later == []
    first = glue.search_tables(SearchText=tag, MaxResults=2)
    second = glue.search_tables(SearchText=tag, MaxResults=2, NextToken=first["NextToken"])
    assert (len(first["TableList"]), len(second["TableList"]), "NextToken" in second) == (2, 1, False)
    assert {t["Name"] for t in first["TableList"] + second["TableList"]} == {t["Name"] for t in found}
    with pytest.raises(ClientError) as excinfo:
        glue.search_tables(SortCriteria=[{"FieldName": "Colour", "Sort": "ASC"}])
    assert error_of(excinfo)[0] == "InvalidInputException"
