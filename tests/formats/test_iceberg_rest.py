"""The Iceberg REST catalog endpoint (``/iceberg/v1``) over the Data Catalog: pyiceberg's RestCatalog creates,
commits and reads tables that are Glue ICEBERG tables, the very ones pyiceberg's GlueCatalog sees (and the other
way round); commits are checked against their requirements and swapped with Glue's VersionId."""

from __future__ import annotations

import json
import threading
from typing import Any

import pyarrow as pa
import pytest
import urllib3

from tests.formats.test_iceberg_jobs import KEY, SECRET, pyiceberg_catalog
from tests.formats.test_open_table_format import s3_client
from tests.helpers import ServerProcess, unique


def rest_catalog(server: ServerProcess) -> Any:
    from pyiceberg.catalog import load_catalog

    return load_catalog(unique("rest"), **{
        "type": "rest", "uri": f"{server.endpoint}/iceberg",
        "s3.access-key-id": KEY, "s3.secret-access-key": SECRET, "s3.region": "us-east-1",
        "py-io-impl": "pyiceberg.io.pyarrow.PyArrowFileIO"})


def rows(n: int, start: int = 0) -> pa.Table:
    return pa.table({"id": pa.array(range(start, start + n), pa.int64()),
                     "name": pa.array([f"n{i}" for i in range(start, start + n)], pa.string())})


@pytest.fixture()
def namespace(server: ServerProcess) -> str:
    bucket = unique("rest").replace("_", "-")
    s3_client(server).create_bucket(Bucket=bucket)
    name = unique("restns")
    rest_catalog(server).create_namespace(name, {"location": f"s3://{bucket}/{name}", "owner": "ann"})
    return name


def test_config_and_namespaces_are_glue_databases(server: ServerProcess, glue: Any, namespace: str) -> None:
    from pyiceberg.exceptions import NamespaceAlreadyExistsError, NamespaceNotEmptyError, NoSuchNamespaceError

    config = json.loads(urllib3.request("GET", f"{server.endpoint}/iceberg/v1/config").data)
    assert config["defaults"]["s3.endpoint"] == server.endpoint
    catalog = rest_catalog(server)
    database = glue.get_database(Name=namespace)["Database"]
    assert database["LocationUri"].endswith(f"/{namespace}") and database["Parameters"] == {"owner": "ann"}
    assert (namespace,) in catalog.list_namespaces()
    assert catalog.load_namespace_properties(namespace)["owner"] == "ann"
    catalog.update_namespace_properties(namespace, removals={"owner"}, updates={"team": "core"})
    assert glue.get_database(Name=namespace)["Database"]["Parameters"] == {"team": "core"}
    with pytest.raises(NamespaceAlreadyExistsError):
        catalog.create_namespace(namespace)
    with pytest.raises(NoSuchNamespaceError):
        catalog.load_namespace_properties("no_such_namespace_here")
    catalog.create_table(f"{namespace}.t", schema=rows(1).schema)
    with pytest.raises(NamespaceNotEmptyError):
        catalog.drop_namespace(namespace)
    nested = urllib3.request("POST", f"{server.endpoint}/iceberg/v1/namespaces",
                             body=json.dumps({"namespace": ["a", "b"]}))
    assert nested.status == 406
    assert json.loads(nested.data)["error"]["type"] == "UnsupportedOperationException"


def test_a_table_committed_through_rest_is_the_table_glue_catalog_sees(server: ServerProcess, glue: Any,
                                                                         namespace: str) -> None:
    from pyiceberg.exceptions import NoSuchTableError

    rest = rest_catalog(server)
    table = rest.create_table(f"{namespace}.people", schema=rows(1).schema)
    table.append(rows(3))
    glue_table = glue.get_table(DatabaseName=namespace, Name="people")["Table"]
    assert glue_table["Parameters"]["table_type"] == "ICEBERG"
    assert glue_table["Parameters"]["metadata_location"] == rest.load_table(f"{namespace}.people").metadata_location
    assert glue_table["Parameters"]["previous_metadata_location"].endswith(".metadata.json")

    via_glue = pyiceberg_catalog(server).load_table(f"{namespace}.people")
    assert via_glue.scan().to_arrow().num_rows == 3
    via_glue.append(rows(2, start=3))
    reread = rest.load_table(f"{namespace}.people")
    assert sorted(reread.scan().to_arrow().column("id").to_pylist()) == [0, 1, 2, 3, 4]
    assert len(reread.history()) == 2
    assert rest.list_tables(namespace) == [(namespace, "people")]

    rest.drop_table(f"{namespace}.people")
    with pytest.raises(NoSuchTableError):
        pyiceberg_catalog(server).load_table(f"{namespace}.people")


def test_a_commit_from_a_stale_base_fails_and_concurrent_writers_retrying_lose_nothing(
        server: ServerProcess, namespace: str) -> None:
    from pyiceberg.exceptions import CommitFailedException

    rest = rest_catalog(server)
    rest.create_table(f"{namespace}.events", schema=rows(1).schema)
    first, second = rest.load_table(f"{namespace}.events"), rest.load_table(f"{namespace}.events")
    first.append(rows(1))
    url = f"{server.endpoint}/iceberg/v1/namespaces/{namespace}/tables/events"
    stale = urllib3.request("POST", url, body=json.dumps({
        "requirements": [{"type": "assert-ref-snapshot-id", "ref": "main", "snapshot-id": None}],
        "updates": [{"action": "set-properties", "updates": {"stale": "yes"}}]}))
    assert stale.status == 409 and json.loads(stale.data)["error"]["type"] == "CommitFailedException"
    assert "stale" not in rest.load_table(f"{namespace}.events").properties
    second.append(rows(1, start=1))  # pyiceberg gets the 409, refreshes and commits again
    assert sorted(rest.load_table(f"{namespace}.events").scan().to_arrow().column("id").to_pylist()) == [0, 1]

    def writer(number: int) -> None:
        catalog = rest_catalog(server)
        for seq in range(5):
            while True:
                try:
                    catalog.load_table(f"{namespace}.events").append(rows(1, start=100 * number + seq))
                    break
                except CommitFailedException:
                    continue  # as Iceberg's clients do: refresh and retry

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(1, 5)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    ids = sorted(rest.load_table(f"{namespace}.events").scan().to_arrow().column("id").to_pylist())
    assert ids == sorted([0, 1] + [100 * n + s for n in range(1, 5) for s in range(5)])


def test_a_staged_create_is_committed_with_assert_create(server: ServerProcess, glue: Any, namespace: str) -> None:
    rest = rest_catalog(server)
    with rest.create_table_transaction(f"{namespace}.staged", schema=rows(1).schema) as transaction:
        transaction.append(rows(4))
    assert glue.get_table(DatabaseName=namespace, Name="staged")["Table"]["Parameters"]["table_type"] == "ICEBERG"
    assert pyiceberg_catalog(server).load_table(f"{namespace}.staged").scan().to_arrow().num_rows == 4


def test_bad_requests_get_the_spec_s_errors(server: ServerProcess, namespace: str) -> None:
    base = f"{server.endpoint}/iceberg/v1/namespaces/{namespace}/tables"
    missing = urllib3.request("GET", f"{base}/nope")
    assert missing.status == 404 and json.loads(missing.data)["error"]["type"] == "NoSuchTableException"
    malformed = urllib3.request("POST", base, body=json.dumps({"name": "x"}))
    assert malformed.status == 400 and "Malformed CreateTableRequest" in json.loads(malformed.data)["error"]["message"]
    purge = urllib3.request("DELETE", f"{base}/nope?purgeRequested=true")
    assert purge.status == 406
