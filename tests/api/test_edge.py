"""The API edge: identity and scoping, protocol errors, restart durability, the CLI."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from botocore.exceptions import ClientError

from tests.api.test_tables import race_updates
from tests.helpers import ServerProcess, create_postgres_database, drop_postgres_database, error_of, table_input, unique


def test_catalog_state_is_per_region(server: ServerProcess) -> None:
    east, west = server.client(region="us-east-1"), server.client(region="eu-west-1")
    name = unique("regional")
    east.create_database(DatabaseInput={"Name": name})
    with pytest.raises(ClientError) as excinfo:
        west.get_database(Name=name)
    assert error_of(excinfo)[0] == "EntityNotFoundException"
    west.create_database(DatabaseInput={"Name": name, "Description": "west"})
    assert "Description" not in east.get_database(Name=name)["Database"]


def test_access_keys_map_to_isolated_accounts(tmp_path: Path) -> None:
    proc = ServerProcess(tmp_path, extra_args=("--access-key", "AKIDALICE=111111111111",
                                               "--access-key", "AKIDBOB=222222222222")).start()
    try:
        alice, bob, anonymous = proc.client("AKIDALICE"), proc.client("AKIDBOB"), proc.client("AKIDOTHER")
        alice.create_database(DatabaseInput={"Name": "shared_name", "Description": "alice"})
        bob.create_database(DatabaseInput={"Name": "shared_name", "Description": "bob"})
        assert alice.get_database(Name="shared_name")["Database"]["CatalogId"] == "111111111111"
        assert bob.get_database(Name="shared_name")["Database"]["Description"] == "bob"
        with pytest.raises(ClientError) as excinfo:
            anonymous.get_database(Name="shared_name")
        assert error_of(excinfo)[0] == "EntityNotFoundException"
        with pytest.raises(ClientError) as excinfo:
            alice.get_databases(CatalogId="222222222222")
        assert error_of(excinfo)[0] == "AccessDeniedException"
    finally:
        proc.stop()


def test_malformed_access_key_mapping_is_refused(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "-m", "glueball", "server", "--home", str(tmp_path),
                          "--access-key", "AKID=12"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 2
    assert "'AKID=12' is not KEY=ACCOUNT with a 12-digit account id" in out.stderr


def test_catalog_id_of_another_account_is_refused(glue: Any) -> None:
    with pytest.raises(ClientError) as excinfo:
        glue.get_databases(CatalogId="999999999999")
    code, message = error_of(excinfo)
    assert code == "AccessDeniedException"
    assert "999999999999" in message
    assert glue.get_databases(CatalogId="123456789012")["ResponseMetadata"]["HTTPStatusCode"] == 200


def test_protocol_errors_never_500(server: ServerProcess) -> None:
    status, body = server.raw("GetDatabases", b"[1, 2]")
    assert (status, body["__type"]) == (400, "SerializationException")
    status, body = server.raw("GetDatabases", {}, headers={"X-Amz-Target": "Nope.GetDatabases"})
    assert (status, body["__type"]) == (400, "UnknownOperationException")
    status, body = server.raw("GetCustomEntityType", {"Name": "x"})
    assert (status, body["__type"]) == (400, "UnknownOperationException")
    assert "not implemented by glueball" in body["message"]
    status, body = server.raw("GetDatabases", {"MaxResults": 0})
    assert (status, body["__type"]) == (400, "ValidationException")
    assert "at 'maxResults' failed to satisfy constraint: Member must have value greater than or equal to 1" \
        in body["message"]
    status, body = server.raw("GetDatabases", {"ResourceShareType": "MINE"})
    assert "Member must satisfy enum value set: [FOREIGN, ALL, FEDERATED]" in body["message"]
    status, body = server.raw("GetDatabases", {"NextToken": "%%%not-a-token"})
    assert (status, body["__type"]) == (400, "InvalidInputException")


@pytest.mark.parametrize("store", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_restart_loses_nothing(store: str, tmp_path: Path) -> None:
    store_url = create_postgres_database() if store == "postgres" else ""
    proc = ServerProcess(tmp_path, store_url).start()
    try:
        glue = proc.client()
        glue.create_database(DatabaseInput={"Name": "durable", "Parameters": {"k": "v"}})
        glue.create_table(DatabaseName="durable", TableInput=table_input("t", [("year", "string")]))
        glue.update_table(DatabaseName="durable", TableInput=table_input("t", [("year", "string")],
                                                                         Description="second"))
        before = glue.get_table(DatabaseName="durable", Name="t")["Table"]
        proc.stop()
        proc.start()
        glue = proc.client()
        assert glue.get_database(Name="durable")["Database"]["Parameters"] == {"k": "v"}
        after = glue.get_table(DatabaseName="durable", Name="t")["Table"]
        assert after == before
        versions = glue.get_table_versions(DatabaseName="durable", TableName="t")["TableVersions"]
        assert [v["VersionId"] for v in versions] == ["1", "0"]
        log = (tmp_path / "logs" / "server.log").read_text()
        assert log.count("serving on 127.0.0.1") == 2
    finally:
        proc.stop()
        if store_url:
            drop_postgres_database(store_url)


@pytest.mark.parametrize("store", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_two_worker_processes_share_one_consistent_catalog(store: str, tmp_path: Path) -> None:
    store_url = create_postgres_database() if store == "postgres" else ""
    proc = ServerProcess(tmp_path, store_url, extra_args=("--workers", "2")).start()
    workers: list[int] = []
    try:
        clients = [proc.client(), proc.client()]
        clients[0].create_database(DatabaseInput={"Name": "shared"})
        clients[0].create_table(DatabaseName="shared", TableInput=table_input("raced"))
        race_updates(clients, "shared", "raced", rounds=10)
        assert proc.proc is not None
        workers = spawned_workers(proc.proc.pid)
        assert len(workers) == 2
    finally:
        proc.stop()
        if store_url:
            drop_postgres_database(store_url)
    assert all(not Path(f"/proc/{pid}").exists() for pid in workers)


def spawned_workers(parent: int) -> list[int]:
    """The multiprocessing-spawned worker processes of ``parent`` (not its resource tracker)."""
    found = []
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(line.split(":\t", 1) for line in status.read_text().splitlines() if ":\t" in line)
            cmdline = (status.parent / "cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        if fields.get("PPid", "").strip() == str(parent) and "spawn_main" in cmdline:
            found.append(int(status.parent.name))
    return found


def test_cli_version() -> None:
    out = subprocess.run([sys.executable, "-m", "glueball", "version"], capture_output=True, text=True, check=True)
    assert out.stdout.startswith("glueball ")
    assert "AWS Glue API 2017-03-31" in out.stdout
