"""What glueContext's writers leave in the object store, as the S3 API lists it to clients.

Glue's file sinks leave their data objects (``run-...-part-r-00000``) and nothing else: no Hadoop
checksum side files (``.part-....crc``: S3 is no checksummed file system) and no ``_SUCCESS`` marker
(the output listings users post show ``run-`` objects alone; docs/fidelity.md). A plain ``df.write``
keeps Spark's ``_SUCCESS``, but no checksums either. Listed through a real ``glueball server``
over the same home.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest

from glueball.runtime.dynamicframe import DynamicFrame
from tests.helpers import ServerProcess


@pytest.fixture(scope="module")
def s3(glue_home: Path) -> Iterator[Any]:
    server = ServerProcess(glue_home).start()
    client = boto3.client("s3", endpoint_url=server.endpoint, region_name="us-east-1",
                          aws_access_key_id="AKIDSINK", aws_secret_access_key="secret")
    client.create_bucket(Bucket="sinks")
    yield client
    server.stop()


def _keys(s3: Any, prefix: str) -> list[str]:
    pages = s3.get_paginator("list_objects_v2").paginate(Bucket="sinks", Prefix=prefix)
    return [item["Key"] for page in pages for item in page.get("Contents", [])]


def test_glue_sinks_leave_only_their_data_objects(glue_context: Any, glue_home: Path, s3: Any) -> None:
    df = glue_context.spark_session.createDataFrame([(1, "a", "x"), (2, "b", "y"), (3, "c", "x")],
                                                    "id long, name string, part string")
    frame = DynamicFrame.fromDF(df, glue_context, "rows")
    sink = glue_context.getSink(connection_type="s3", path="s3://sinks/out/json/")
    sink.setFormat("json")
    sink.writeFrame(frame)
    glue_context.write_dynamic_frame.from_options(frame=frame, connection_type="s3", format="parquet",
                                                  connection_options={"path": "s3://sinks/out/parquet/",
                                                                      "partitionKeys": ["part"]})
    glue_context.write_dynamic_frame.from_options(frame=frame, connection_type="s3", format="csv",
                                                  connection_options={"path": "s3://sinks/out/csv/"},
                                                  transformation_ctx="csvsink")
    df.write.mode("append").parquet("s3://sinks/plain/")

    written = _keys(s3, "out/")
    assert written, "the sinks wrote nothing"
    assert all(key.rsplit("/", 1)[-1].startswith("run-") for key in written), written
    assert {key.split("/")[1] for key in written} == {"json", "parquet", "csv"}
    plain = _keys(s3, "plain/")
    assert "plain/_SUCCESS" in plain and not any(key.endswith(".crc") for key in plain), plain
    on_disk = [name for _, _, names in os.walk(glue_home / "s3" / "sinks") for name in names]
    assert not [name for name in on_disk if name.endswith(".crc")], on_disk  # none written, not just unlisted
