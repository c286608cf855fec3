"""Files of one folder are grouped by schema as Glue's crawler groups them; the target database is created."""

from __future__ import annotations

import json

from tests.crawlers.helpers import LEGISLATORS, Env, columns_of


def write_legislators(env: Env, folder: str) -> None:
    for name, rows in LEGISLATORS.items():
        env.json_lines(f"{folder}/{name}", rows * 3)


def test_six_files_of_six_shapes_in_one_folder_become_six_tables_named_after_the_files(env: Env) -> None:
    write_legislators(env, "us-legislators/all")
    outcome = env.crawl(["s3://bkt/us-legislators/all"])
    tables = env.tables()
    assert sorted(tables) == ["areas_json", "countries_json", "events_json", "memberships_json",
                              "organizations_json", "persons_json"]
    assert outcome.tables_created == 6
    persons = tables["persons_json"]
    assert persons["StorageDescriptor"]["Location"] == "s3://bkt/us-legislators/all/persons.json"
    assert columns_of(persons) == list(LEGISLATORS["persons.json"][0])
    assert persons["Parameters"]["objectCount"] == "1" and persons["Parameters"]["recordCount"] == "3"
    assert columns_of(tables["areas_json"]) == ["id", "name", "type"]
    assert persons["PartitionKeys"] == []


def test_the_same_folder_under_combine_compatible_schemas_is_one_table(env: Env) -> None:
    write_legislators(env, "us-legislators/all")
    env.crawl(["s3://bkt/us-legislators/all"], Configuration=json.dumps({
        "Version": 1.0, "Grouping": {"TableGroupingPolicy": "CombineCompatibleSchemas"}}))
    tables = env.tables()
    assert sorted(tables) == ["all"]
    assert tables["all"]["StorageDescriptor"]["Location"] == "s3://bkt/us-legislators/all/"
    assert {"seats", "person_id", "country_code", "family_name"} <= set(columns_of(tables["all"]))


def test_files_mostly_alike_stay_one_table_and_files_alike_among_themselves_share_one(env: Env) -> None:
    row = {"id": 1, "name": "a", "kind": "k", "ts": "2026-01-01"}
    env.json_lines("alike/a.json", [row])
    env.json_lines("alike/b.json", [row])
    env.json_lines("alike/c.json", [{"other": 1, "thing": 2}])      # the majority is alike: one table
    env.json_lines("split/x1.json", [{"a": 1, "b": 2, "c": 3}])
    env.json_lines("split/x2.json", [{"a": 1, "b": 2, "c": 3}])
    env.json_lines("split/y1.json", [{"p": 1, "q": 2}])
    env.json_lines("split/y2.json", [{"p": 1, "q": 2}])
    env.crawl(["s3://bkt/alike/", "s3://bkt/split/"])
    tables = env.tables()
    assert sorted(tables) == ["alike", "x1_json", "y1_json"]
    assert columns_of(tables["alike"]) == ["id", "name", "kind", "ts", "other", "thing"]
    assert tables["x1_json"]["StorageDescriptor"]["Location"] == "s3://bkt/split/"
    assert tables["x1_json"]["Parameters"]["objectCount"] == "2"


def test_a_crawler_creates_its_missing_database(env: Env) -> None:
    env.json_lines("sales/year=2026/a.json", [{"id": 1, "name": "x"}])
    outcome = env.crawl(["s3://bkt/sales/"], DatabaseName="created_by_crawler")
    database = env.glue.get_database(Name="created_by_crawler")["Database"]
    assert database["Name"] == "created_by_crawler"
    assert env.glue.get_table(DatabaseName="created_by_crawler", Name="sales")["Table"]["PartitionKeys"]
    assert any("Created database created_by_crawler" in m for m in outcome.messages)


def test_catalog_target_crawls_fill_the_storage_descriptor_parameters(env: Env) -> None:
    env.json_lines("manual/year=2026/a.json", [{"id": 1, "name": "x"}] * 4)
    env.glue.create_table(DatabaseName="db", TableInput={
        "Name": "manual", "PartitionKeys": [{"Name": "year", "Type": "string"}],
        "StorageDescriptor": {"Columns": [{"Name": "id", "Type": "bigint"}], "Location": "s3://bkt/manual/",
                              "Parameters": {"owner_note": "kept"}}})
    env.crawl(None, Targets={"CatalogTargets": [{"DatabaseName": "db", "Tables": ["manual"]}]})
    parameters = env.table("manual")["StorageDescriptor"]["Parameters"]
    assert parameters["owner_note"] == "kept"
    assert parameters["classification"] == "json" and parameters["recordCount"] == "4"
    assert parameters["objectCount"] == "1" and "UPDATED_BY_CRAWLER" not in parameters
