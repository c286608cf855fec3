"""The real Glue Jupyter kernel (``aws-glue-sessions``' ``glue_pyspark``), unchanged, driven headless with
``nbclient`` against ``glueball server``: it is configured only by an AWS config whose profile's
``endpoint_url`` is the server (``glue_profile`` puts the kernel in its profile mode, where every
client it makes — Glue, STS, IAM, S3 — resolves endpoints as botocore does)."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient

from tests.helpers import ServerProcess

AWS = str(Path(sys.executable).with_name("aws"))
ACCOUNT = "123456789012"
ROLE = f"arn:aws:iam::{ACCOUNT}:role/GlueInteractiveRole"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    running = ServerProcess(tmp_path_factory.mktemp("kernel-home")).start()
    yield running
    running.stop()


def kernel_env(server: ServerProcess, root: Path, key: str = "AKIDKERNEL", secret: str = "x") -> dict[str, str]:
    """A kernelspec of glue_pyspark and an AWS config that point the kernel at ``server`` and nowhere else."""
    spec = root / "jupyter" / "kernels" / "glue_pyspark"
    spec.mkdir(parents=True, exist_ok=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "aws_glue_interactive_sessions_kernel.glue_pyspark.GlueKernel", "-f",
                 "{connection_file}"], "display_name": "Glue PySpark", "language": "python"}))
    config = root / "aws-config"
    config.write_text(f"[default]\nregion = us-east-1\naws_access_key_id = {key}\naws_secret_access_key = {secret}\n"
                      f"glue_profile = default\nglue_role_arn = {ROLE}\nendpoint_url = {server.endpoint}\n")
    (root / "aws-credentials").write_text("")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "GLUEBALL_", "glue_"))}
    env.update({"JUPYTER_PATH": str(root / "jupyter"), "AWS_CONFIG_FILE": str(config),
                "AWS_SHARED_CREDENTIALS_FILE": str(root / "aws-credentials"), "HOME": str(root),
                # the kernel's version check asks pypi.org: refused at once, it prints its installed version
                "HTTPS_PROXY": "http://127.0.0.1:9", "NO_PROXY": "127.0.0.1,localhost"})
    return env


def notebook(*cells: str) -> Any:
    return nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in cells])


def text_of(cell: Any) -> str:
    parts = []
    for output in cell.outputs:
        if output.output_type == "stream":
            parts.append(output.text)
        elif output.output_type in ("display_data", "execute_result"):
            parts.append(str(output.data.get("text/plain", "")))
        elif output.output_type == "error":
            parts.append(f"{output.ename}: {output.evalue}")
    return "".join(parts)


def run_notebook(nb: Any, env: dict[str, str], allow_errors: bool = True) -> Any:
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)  # the kernel inherits the environment of the process that starts it
    try:
        NotebookClient(nb, kernel_name="glue_pyspark", timeout=180, allow_errors=allow_errors,
                       startup_timeout=60).execute()
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return nb


def test_a_notebook_runs_end_to_end_on_the_real_kernel(server: ServerProcess, tmp_path: Path) -> None:
    glue = server.client()
    glue.create_connection(ConnectionInput={
        "Name": "session_vpc", "ConnectionType": "NETWORK", "ConnectionProperties": {},
        "PhysicalConnectionRequirements": {"SubnetId": "subnet-0aa", "SecurityGroupIdList": ["sg-1"],
                                           "AvailabilityZone": "us-east-1a"}})
    glue.create_database(DatabaseInput={"Name": "sales"})
    lake = server.home / "s3" / "lake" / "orders"
    lake.mkdir(parents=True)
    (lake / "part-0.csv").write_text("id,amount\n1,10.5\n2,20.0\n3,7.25\n")
    glue.create_table(DatabaseName="sales", TableInput={
        "Name": "orders", "StorageDescriptor": {
            "Columns": [{"Name": "id", "Type": "int"}, {"Name": "amount", "Type": "double"}],
            "Location": "s3://lake/orders/", "InputFormat": "org.apache.hadoop.mapred.TextInputFormat",
            "SerdeInfo": {"SerializationLibrary": "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe",
                          "Parameters": {"field.delim": ","}}},
        "Parameters": {"classification": "csv", "skip.header.line.count": "1"}})

    nb = notebook(
        "%idle_timeout 60\n%glue_version 4.0\n%worker_type G.1X\n%number_of_workers 2\n%connections session_vpc",
        "%%tags\n{'team': 'analytics', 'billing': 'bi'}",
        "from awsglue.context import GlueContext\nglueContext = GlueContext(sc)\nspark.range(5).count()",
        "orders = glueContext.create_dynamic_frame.from_catalog(database='sales', table_name='orders')\n"
        "orders.count()",
        "%%sql\nSELECT count(*) AS n, round(sum(amount), 2) AS total FROM sales.orders",
        "1 / 0",
        "%status",
        "import matplotlib\nmatplotlib.use('Agg')\nimport matplotlib.pyplot as plt\nplt.plot([1, 3, 2])\n"
        "print('plotted')\n%matplot plt",
        "%stop_session",
    )
    started = time.monotonic()
    run_notebook(nb, kernel_env(server, tmp_path))
    cells = nb.cells
    assert "Session ID:" in text_of(cells[2]) and text_of(cells[2]).rstrip().endswith("5"), text_of(cells[2])
    assert text_of(cells[3]).strip() == "3"
    assert "|  3|37.75|" in text_of(cells[4]), text_of(cells[4])
    assert text_of(cells[5]).strip() == "ZeroDivisionError: division by zero"
    status = text_of(cells[6])
    assert "analytics" in status and "Status: READY" in status and "G.1X" in status, status
    images = [o for o in cells[7].outputs if o.output_type == "display_data" and "image/png" in o.data]
    assert len(images) == 1 and base64.b64decode(images[0].data["image/png"]).startswith(b"\x89PNG")
    assert "plotted" in text_of(cells[7])
    assert "Stopped session." in text_of(cells[8])
    assert time.monotonic() - started < 150

    session_id = next(line.split("Session ID:")[1].strip() for line in text_of(cells[2]).splitlines()
                      if "Session ID:" in line)
    env = {**os.environ, "AWS_ACCESS_KEY_ID": "AKIDKERNEL", "AWS_SECRET_ACCESS_KEY": "x",
           "AWS_DEFAULT_REGION": "us-east-1"}
    listed = json.loads(subprocess.run([AWS, "--endpoint-url", server.endpoint, "glue", "list-sessions", "--tags",
                                        "team=analytics"], capture_output=True, text=True, env=env,
                                       check=True).stdout)
    assert listed["Ids"] == [session_id]
    tags = json.loads(subprocess.run([AWS, "--endpoint-url", server.endpoint, "glue", "get-tags", "--resource-arn",
                                      f"arn:aws:glue:us-east-1:{ACCOUNT}:session/{session_id}"],
                                     capture_output=True, text=True, env=env, check=True).stdout)["Tags"]
    assert tags["team"] == "analytics" and tags["billing"] == "bi" and "owner" in tags
    session = glue.get_session(Id=session_id)["Session"]
    assert session["Connections"] == {"Connections": ["session_vpc"]} and session["NumberOfWorkers"] == 2
    deadline = time.monotonic() + 30
    while glue.get_session(Id=session_id)["Session"]["Status"] != "STOPPED" and time.monotonic() < deadline:
        time.sleep(0.2)
    assert glue.get_session(Id=session_id)["Session"]["Status"] == "STOPPED"


def test_a_statement_error_fails_the_cell(server: ServerProcess, tmp_path: Path) -> None:
    """The kernel turns a statement that raised into the cell's error (nbclient raises), as on Glue."""
    from nbclient.exceptions import CellExecutionError

    nb = notebook("%idle_timeout 5", "spark.sql('SELECT * FROM no_such_table')", "%stop_session")
    with pytest.raises(CellExecutionError) as failed:
        run_notebook(nb, kernel_env(server, tmp_path), allow_errors=False)
    assert failed.value.ename == "AnalysisException" and "no_such_table" in failed.value.evalue


def test_configuration_magics_shape_the_session(server: ServerProcess, tmp_path: Path) -> None:
    """%region, %iam_role, %session_id_prefix, %streaming, %spark_conf, %extra_py_files, %%configure and
    %list_sessions: what they set reaches CreateSession, and the session runs with it."""
    library = server.home / "s3" / "lib"
    library.mkdir(parents=True, exist_ok=True)
    (library / "helpers.py").write_text("def shout(text):\n    return text.upper() + '!'\n")
    nb = notebook(
        "%region us-east-1\n%iam_role arn:aws:iam::123456789012:role/OtherNotebookRole\n"
        "%session_id_prefix nb\n%streaming\n%spark_conf spark.sql.shuffle.partitions=3\n"
        "%extra_py_files s3://lib/helpers.py",
        "%%configure\n{'--enable-glue-datacatalog': 'true', 'idle_timeout': 20, 'number_of_workers': 3, "
        "'worker_type': 'G.1X'}",
        "import helpers\nprint(helpers.shout('ok'), spark.conf.get('spark.sql.shuffle.partitions'))",
        "%list_sessions",
        "%stop_session",
    )
    run_notebook(nb, kernel_env(server, tmp_path))
    assert text_of(nb.cells[2]).rstrip().endswith("OK! 3"), text_of(nb.cells[2])
    session_id = next(line.split("Session ID:")[1].strip() for line in text_of(nb.cells[2]).splitlines()
                      if "Session ID:" in line)
    assert session_id.startswith("nb-")
    assert session_id in text_of(nb.cells[3])
    session = server.client().get_session(Id=session_id)["Session"]
    assert session["Command"]["Name"] == "gluestreaming"
    assert session["Role"] == "arn:aws:iam::123456789012:role/OtherNotebookRole"
    assert (session["IdleTimeout"], session["WorkerType"], session["NumberOfWorkers"]) == (20, "G.1X", 3)
    assert session["DefaultArguments"]["--extra-py-files"] == "s3://lib/helpers.py"
    assert session["DefaultArguments"]["--conf"] == "spark.sql.shuffle.partitions=3"
