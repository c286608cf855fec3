"""The in-process client answers exactly like boto3 against a server."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path

import pytest
from botocore.exceptions import ClientError

from glueball.api.client import GlueClient
from glueball.app import Glueball
from glueball.config import Settings
from tests.helpers import table_input


@pytest.fixture()
def embedded(tmp_path: Path) -> Iterator[GlueClient]:
    glue = Glueball(Settings(home=tmp_path))
    yield GlueClient(glue)
    glue.close()


def test_embedded_client_returns_boto3_shapes(embedded: GlueClient, tmp_path: Path) -> None:
    embedded.create_database(DatabaseInput={"Name": "emb"})
    embedded.call("CreateTable", {"DatabaseName": "emb", "TableInput": table_input("t")})
    table = embedded.get_table(DatabaseName="emb", Name="t")["Table"]
    assert isinstance(table["CreateTime"], dt.datetime)
    assert table["VersionId"] == "0"
    assert (tmp_path / "glueball.db").exists()
    assert (tmp_path / "s3").is_dir()


def test_embedded_client_raises_client_error_with_glue_code(embedded: GlueClient) -> None:
    with pytest.raises(ClientError) as excinfo:
        embedded.get_database(Name="missing")
    assert excinfo.value.response["Error"]["Code"] == "EntityNotFoundException"
    assert excinfo.value.response["Error"]["Message"] == "Database missing not found."
    with pytest.raises(AttributeError):
        embedded.fly_to_the_moon()  # type: ignore[attr-defined]
