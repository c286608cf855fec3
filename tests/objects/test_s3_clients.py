"""Real S3 clients other than boto3 against a real ``glueball server``: pyarrow (the AWS C++ SDK) and
pyiceberg (its Glue catalog against glueball's Glue endpoint, data files written with pyarrow through
glueball's S3), and the root element of every XML answer as S3 names it.

The C++ SDK reads an answer by its root element: a ``CompleteMultipartUploadOutput`` root (the botocore
shape's name, not S3's ``CompleteMultipartUploadResult``) made pyarrow retry the completion, get
``NoSuchUpload`` and fail every multipart write.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any
from xml.etree import ElementTree

import boto3
import botocore.config
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.fs
import pyarrow.parquet as pq
import pytest

from glueball.app import Glueball
from glueball.config import Settings
from glueball.edge.model import service_model
from tests.helpers import ServerProcess

KEY, SECRET = "AKIDCLIENTS", "secret"
S3_NAMESPACE = "http://s3.amazonaws.com/doc/2006-03-01/"
# the root element of each answer with an XML body, as the S3 API Reference's "Response Syntax" shows it
S3_ROOTS = {
    "ListBuckets": "ListAllMyBucketsResult",
    "ListObjects": "ListBucketResult",
    "ListObjectsV2": "ListBucketResult",
    "GetBucketLocation": "LocationConstraint",
    "GetBucketTagging": "Tagging",
    "GetObjectTagging": "Tagging",
    "CopyObject": "CopyObjectResult",
    "DeleteObjects": "DeleteResult",
    "CreateMultipartUpload": "InitiateMultipartUploadResult",
    "ListParts": "ListPartsResult",
    "ListMultipartUploads": "ListMultipartUploadsResult",
    "CompleteMultipartUpload": "CompleteMultipartUploadResult",
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    running = ServerProcess(tmp_path_factory.mktemp("s3-clients")).start()
    yield running
    running.stop()


@pytest.fixture(scope="module")
def s3(server: ServerProcess) -> Any:
    return boto3.client("s3", endpoint_url=server.endpoint, region_name="us-east-1", aws_access_key_id=KEY,
                        aws_secret_access_key=SECRET, config=botocore.config.Config(retries={"max_attempts": 1}))


def _lake(server: ServerProcess) -> pyarrow.fs.S3FileSystem:
    return pyarrow.fs.S3FileSystem(access_key=KEY, secret_key=SECRET, region="us-east-1", scheme="http",
                                   endpoint_override=server.endpoint.removeprefix("http://"))


def test_every_xml_answer_has_s3s_root_element(s3: Any, tmp_path: Any) -> None:
    model = service_model("s3")
    glue = Glueball(Settings(home=tmp_path))
    try:
        served = glue.edge.implemented("s3")
    finally:
        glue.close()
    with_body = set()
    for name in served:
        output = model.operation_model(name).output_shape
        if output is None:
            continue
        payload = output.serialization.get("payload")
        if payload and output.members[payload].type_name == "structure" or not payload and any(
                "location" not in member.serialization for member in output.members.values()):
            with_body.add(name)
    assert with_body == set(S3_ROOTS), "an operation with an XML answer is served: add S3's root name here"

    roots: dict[str, ElementTree.Element] = {}

    def keep(http_response: Any, model: Any, **_: Any) -> None:
        if model.name in S3_ROOTS:
            roots[model.name] = ElementTree.fromstring(http_response.content)

    s3.meta.events.register("after-call.s3", keep)
    s3.create_bucket(Bucket="roots")
    s3.put_object(Bucket="roots", Key="a", Body=b"a")
    s3.list_buckets()
    s3.list_objects(Bucket="roots")
    s3.list_objects_v2(Bucket="roots")
    s3.get_bucket_location(Bucket="roots")
    s3.put_bucket_tagging(Bucket="roots", Tagging={"TagSet": [{"Key": "k", "Value": "v"}]})
    s3.get_bucket_tagging(Bucket="roots")
    s3.put_object_tagging(Bucket="roots", Key="a", Tagging={"TagSet": [{"Key": "k", "Value": "v"}]})
    s3.get_object_tagging(Bucket="roots", Key="a")
    s3.copy_object(Bucket="roots", Key="b", CopySource="roots/a")
    s3.delete_objects(Bucket="roots", Delete={"Objects": [{"Key": "b"}]})
    upload = s3.create_multipart_upload(Bucket="roots", Key="m")["UploadId"]
    etag = s3.upload_part(Bucket="roots", Key="m", UploadId=upload, PartNumber=1, Body=b"m")["ETag"]
    s3.list_parts(Bucket="roots", Key="m", UploadId=upload)
    s3.list_multipart_uploads(Bucket="roots")
    s3.complete_multipart_upload(Bucket="roots", Key="m", UploadId=upload,
                                 MultipartUpload={"Parts": [{"PartNumber": 1, "ETag": etag}]})
    assert {name: root.tag for name, root in roots.items()} == {
        name: f"{{{S3_NAMESPACE}}}{root}" for name, root in S3_ROOTS.items()}


def test_pyarrow_writes_and_reads_a_multipart_sized_parquet_dataset(server: ServerProcess, s3: Any) -> None:
    s3.create_bucket(Bucket="arrow")
    lake = _lake(server)
    rows = 400_000  # random bytes do not compress: ~13 MB per file, over pyarrow's part size
    table = pa.table({"id": pa.array(range(rows), pa.int64()),
                      "payload": pa.array([os.urandom(64) for _ in range(rows)], pa.binary()),
                      "part": pa.array([i % 2 for i in range(rows)], pa.int32())})
    ds.write_dataset(table, "arrow/events", filesystem=lake, format="parquet", partitioning=["part"],
                     partitioning_flavor="hive")
    files = [info for info in lake.get_file_info(pyarrow.fs.FileSelector("arrow/events", recursive=True))
             if info.type == pyarrow.fs.FileType.File]
    assert len(files) == 2 and all(info.size > 12 * 1024 * 1024 for info in files), files
    listed = [item for item in s3.list_objects_v2(Bucket="arrow", Prefix="events/")["Contents"]
              if not item["Key"].endswith("/")]  # pyarrow also makes "folder" markers (events/part=0/)
    # completed multipart uploads: their ETags are the MD5 of the parts' MD5s and "-N"
    assert len(listed) == 2 and all("-" in item["ETag"] for item in listed), listed
    back = ds.dataset("arrow/events", filesystem=lake, format="parquet", partitioning="hive").to_table()
    assert back.num_rows == rows
    assert back.sort_by("id").column("payload").equals(table.column("payload"))
    with lake.open_output_stream("arrow/small.parquet") as out:  # a single PutObject
        pq.write_table(table.slice(0, 10), out)
    assert pq.read_table("arrow/small.parquet", filesystem=lake).num_rows == 10


def test_pyiceberg_glue_catalog_writes_through_glueballs_s3(server: ServerProcess, s3: Any) -> None:
    from pyiceberg.catalog import load_catalog
    from pyiceberg.expressions import GreaterThanOrEqual

    s3.create_bucket(Bucket="iceberg")
    catalog = load_catalog("glueball", **{
        "type": "glue", "glue.endpoint": server.endpoint, "glue.region": "us-east-1",
        "glue.access-key-id": KEY, "glue.secret-access-key": SECRET,
        "s3.endpoint": server.endpoint, "s3.region": "us-east-1",
        "s3.access-key-id": KEY, "s3.secret-access-key": SECRET,
        "py-io-impl": "pyiceberg.io.pyarrow.PyArrowFileIO",
    })
    catalog.create_namespace("lakehouse", {"location": "s3://iceberg/lakehouse"})
    rows = 300_000
    data = pa.table({"id": pa.array(range(rows), pa.int64()),
                     "payload": pa.array([os.urandom(24).hex() for _ in range(rows)], pa.string())})
    table = catalog.create_table("lakehouse.events", schema=data.schema)
    table.append(data)
    table.append(data.slice(0, 1000))

    loaded = catalog.load_table("lakehouse.events")
    assert len(loaded.history()) == 2
    assert loaded.scan().to_arrow().num_rows == rows + 1000
    assert loaded.scan(row_filter=GreaterThanOrEqual("id", rows - 10)).to_arrow().num_rows == 10
    glue = boto3.client("glue", endpoint_url=server.endpoint, region_name="us-east-1", aws_access_key_id=KEY,
                        aws_secret_access_key=SECRET)
    described = glue.get_table(DatabaseName="lakehouse", Name="events")["Table"]
    assert described["Parameters"]["table_type"].upper() == "ICEBERG"
    assert described["Parameters"]["metadata_location"] == loaded.metadata_location
    keys = [item["Key"] for item in s3.list_objects_v2(Bucket="iceberg", Prefix="lakehouse/")["Contents"]]
    data_files = [key for key in keys if key.endswith(".parquet")]
    assert len(data_files) == 2 and any(key.endswith(".metadata.json") for key in keys)
    sizes = [s3.head_object(Bucket="iceberg", Key=key)["ContentLength"] for key in data_files]
    assert max(sizes) > 5 * 1024 * 1024  # the big append's file went up as a multipart upload
