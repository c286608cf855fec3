"""The AWS CLI (awscli from PyPI) works unchanged with --endpoint-url."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.helpers import ServerProcess, unique


def aws(server: ServerProcess, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    executable = shutil.which("aws", path=str(Path(sys.executable).parent)) or "aws"
    env = dict(os.environ, AWS_ACCESS_KEY_ID="AKIDCLI", AWS_SECRET_ACCESS_KEY="secret",
               AWS_DEFAULT_REGION="us-east-1", AWS_CONFIG_FILE=os.devnull, AWS_SHARED_CREDENTIALS_FILE=os.devnull)
    return subprocess.run([executable, "glue", *args, "--endpoint-url", server.endpoint, "--output", "json"],
                          capture_output=True, text=True, env=env, check=check, timeout=60)


def aws_json(server: ServerProcess, *args: str) -> Any:
    out = aws(server, *args).stdout
    return json.loads(out) if out.strip() else {}


def test_cli_databases_tables_and_partition_expressions(server: ServerProcess) -> None:
    db = unique("raw_data")
    aws(server, "create-database", "--database-input", json.dumps({"Name": db}))
    names = [d["Name"] for d in aws_json(server, "get-databases")["DatabaseList"]]
    assert db in names
    table = {"Name": "events", "PartitionKeys": [{"Name": "year", "Type": "string"}],
             "StorageDescriptor": {"Columns": [{"Name": "id", "Type": "bigint"}], "Location": "s3://lake/events/"}}
    aws(server, "create-table", "--database-name", db, "--table-input", json.dumps(table))
    for year in ("2025", "2026"):
        aws(server, "create-partition", "--database-name", db, "--table-name", "events", "--partition-input",
            json.dumps({"Values": [year], "StorageDescriptor": {"Location": f"s3://lake/events/year={year}/"}}))
    found = aws_json(server, "get-partitions", "--database-name", db, "--table-name", "events",
                     "--expression", "year='2026'")["Partitions"]
    assert [p["Values"] for p in found] == [["2026"]]
    got = aws_json(server, "get-table", "--database-name", db, "--name", "events")["Table"]
    assert got["StorageDescriptor"]["Location"] == "s3://lake/events/"


def test_cli_reports_glue_error_codes(server: ServerProcess) -> None:
    result = aws(server, "get-database", "--name", "does_not_exist_cli", check=False)
    assert result.returncode != 0
    assert "EntityNotFoundException" in result.stderr
    assert "Database does_not_exist_cli not found." in result.stderr
