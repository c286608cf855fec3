"""The REST protocols of the edge, driven by real boto3 clients (S3 over REST-XML, DataBrew over REST-JSON).

The handlers here are small test services (an in-memory object map, a recipe list): what is
tested is the edge — routing by method and URI template, reading members from the path, query,
headers, header maps and payload, writing them back, and each protocol's error form — as boto3
itself serializes requests and parses answers. The services glueball really serves over these
protocols (S3, DataBrew recipes, the registry's REST surface) mount the same way.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from typing import Any

import boto3
import botocore.config
import pytest
from botocore.exceptions import ClientError

from glueball.api.operations import Operations
from glueball.edge.inprocess import answer_in_process
from glueball.edge.router import Edge
from glueball.edge.sigv4 import AccountDirectory
from glueball.edge.wire import WireRequest
from glueball.errors import ServiceError
from tests.helpers import error_of


class NoSuchKey(ServiceError):
    code = "NoSuchKey"
    status = 404


class ResourceNotFound(ServiceError):
    code = "ResourceNotFoundException"
    status = 404


def s3_operations(objects: dict[tuple[str, str], dict[str, Any]]) -> Operations:
    operations = Operations("s3")

    @operations.operation("PutObject")
    def put_object(needs: Any, caller: Any, request: dict[str, Any]) -> dict[str, Any]:
        body = request.get("Body", b"")
        objects[(request["Bucket"], request["Key"])] = {
            "Body": body, "ContentType": request.get("ContentType"), "Metadata": request.get("Metadata", {})}
        return {"ETag": '"' + hashlib.md5(body).hexdigest() + '"'}  # noqa: S324 - S3's ETag is an MD5

    @operations.operation("GetObject")
    def get_object(needs: Any, caller: Any, request: dict[str, Any]) -> dict[str, Any]:
        found = objects.get((request["Bucket"], request["Key"]))
        if found is None:
            raise NoSuchKey("The specified key does not exist.")
        body = found["Body"]
        if "Range" in request:
            start, _, end = request["Range"].removeprefix("bytes=").partition("-")
            body = body[int(start):int(end) + 1]
        return {"Body": body, "ContentType": found["ContentType"], "Metadata": found["Metadata"],
                "ContentLength": len(body), "LastModified": 1_900_000_000}

    @operations.operation("ListObjectsV2")
    def list_objects_v2(needs: Any, caller: Any, request: dict[str, Any]) -> dict[str, Any]:
        prefix = request.get("Prefix", "")
        keys = sorted(k for b, k in objects if b == request["Bucket"] and k.startswith(prefix))
        return {"Name": request["Bucket"], "Prefix": prefix, "KeyCount": len(keys), "IsTruncated": False,
                "Contents": [{"Key": k, "Size": len(objects[(request["Bucket"], k)]["Body"]),
                              "LastModified": 1_900_000_000} for k in keys]}

    @operations.operation("PutBucketTagging")
    def put_bucket_tagging(needs: Any, caller: Any, request: dict[str, Any]) -> dict[str, Any]:
        objects[(request["Bucket"], "?tagging")] = {"Body": b"", "Tags": request["Tagging"]["TagSet"]}
        return {}

    return operations


def databrew_operations(recipes: dict[str, dict[str, Any]]) -> Operations:
    operations = Operations("databrew")

    @operations.operation("CreateRecipe")
    def create_recipe(needs: Any, caller: Any, request: dict[str, Any]) -> dict[str, Any]:
        recipes[request["Name"]] = request
        return {"Name": request["Name"]}

    @operations.operation("DescribeRecipe")
    def describe_recipe(needs: Any, caller: Any, request: dict[str, Any]) -> dict[str, Any]:
        found = recipes.get(request["Name"])
        if found is None:
            raise ResourceNotFound(f"Recipe {request['Name']} not found")
        return {"Name": found["Name"], "Steps": found["Steps"], "RecipeVersion": request.get("RecipeVersion", "1.0"),
                "CreateDate": 1_900_000_000}

    @operations.operation("ListRecipes")
    def list_recipes(needs: Any, caller: Any, request: dict[str, Any]) -> dict[str, Any]:
        names = sorted(recipes)[: request.get("MaxResults", 100)]
        return {"Recipes": [{"Name": n, "Steps": recipes[n]["Steps"]} for n in names]}

    return operations


@pytest.fixture()
def edge() -> Iterator[Edge]:
    edge = Edge(AccountDirectory(), "us-east-1")
    edge.add_rest_service("s3")
    edge.add_rest_service("databrew")
    edge.objects = {}  # type: ignore[attr-defined]
    edge.recipes = {}  # type: ignore[attr-defined]
    edge.mount(s3_operations(edge.objects), None)  # type: ignore[attr-defined]
    edge.mount(databrew_operations(edge.recipes), None)  # type: ignore[attr-defined]
    yield edge


def client(edge: Edge, service: str) -> Any:
    made = boto3.session.Session().client(
        service, region_name="us-east-1", endpoint_url="http://127.0.0.1:1", aws_access_key_id="AKID",
        aws_secret_access_key="secret", config=botocore.config.Config(retries={"max_attempts": 1},
                                                                      s3={"addressing_style": "path"}))
    answer_in_process(made, edge.handle)
    return made


def test_s3_objects_round_trip_with_headers_metadata_and_ranges(edge: Edge) -> None:
    s3 = client(edge, "s3")
    put = s3.put_object(Bucket="lake", Key="raw/day=1/a b.csv", Body=b"id,amount\n1,2\n", ContentType="text/csv",
                        Metadata={"team": "analytics"})
    assert put["ETag"] == '"' + hashlib.md5(b"id,amount\n1,2\n").hexdigest() + '"'  # noqa: S324
    got = s3.get_object(Bucket="lake", Key="raw/day=1/a b.csv")
    assert got["Body"].read() == b"id,amount\n1,2\n"
    assert (got["ContentType"], got["Metadata"], got["ContentLength"]) == ("text/csv", {"team": "analytics"}, 14)
    assert got["LastModified"].timestamp() == 1_900_000_000
    assert s3.get_object(Bucket="lake", Key="raw/day=1/a b.csv", Range="bytes=0-1")["Body"].read() == b"id"


def test_s3_listing_is_routed_by_its_query_key_and_answered_in_xml(edge: Edge) -> None:
    s3 = client(edge, "s3")
    for key in ("raw/a.csv", "raw/b.csv", "curated/c.parquet"):
        s3.put_object(Bucket="lake", Key=key, Body=b"x")
    listed = s3.list_objects_v2(Bucket="lake", Prefix="raw/")
    assert [o["Key"] for o in listed["Contents"]] == ["raw/a.csv", "raw/b.csv"]
    assert (listed["KeyCount"], listed["IsTruncated"]) == (2, False)
    s3.put_bucket_tagging(Bucket="lake", Tagging={"TagSet": [{"Key": "team", "Value": "analytics"}]})
    assert edge.objects[("lake", "?tagging")]["Tags"] == [{"Key": "team", "Value": "analytics"}]  # type: ignore


def test_s3_errors_are_s3s_xml_with_the_right_status(edge: Edge) -> None:
    s3 = client(edge, "s3")
    with pytest.raises(ClientError) as missing:
        s3.get_object(Bucket="lake", Key="nope")
    assert error_of(missing) == ("NoSuchKey", "The specified key does not exist.")
    assert missing.value.response["ResponseMetadata"]["HTTPStatusCode"] == 404
    with pytest.raises(ClientError) as unimplemented:
        s3.delete_object(Bucket="lake", Key="nope")
    assert error_of(unimplemented)[0] == "NotImplemented"
    assert unimplemented.value.response["ResponseMetadata"]["HTTPStatusCode"] == 501
    wire = edge.handle(WireRequest("PUT", "/lake", "tagging", {"authorization": _signed("s3")}, b"<Tagging><TagSet>"))
    assert wire.status == 400 and b"<Code>MalformedXML</Code>" in wire.body


def test_databrew_rest_json_reads_path_query_and_body(edge: Edge) -> None:
    brew = client(edge, "databrew")
    steps = [{"Action": {"Operation": "REMOVE_MISSING", "Parameters": {"sourceColumn": "amount"}}}]
    assert brew.create_recipe(Name="clean", Steps=steps)["Name"] == "clean"
    described = brew.describe_recipe(Name="clean", RecipeVersion="LATEST_WORKING")
    assert (described["Steps"], described["RecipeVersion"]) == (steps, "LATEST_WORKING")
    assert described["CreateDate"].timestamp() == 1_900_000_000
    brew.create_recipe(Name="another", Steps=steps)
    assert [r["Name"] for r in brew.list_recipes(MaxResults=1)["Recipes"]] == ["another"]


def test_databrew_errors_and_validation_in_rest_json_form(edge: Edge) -> None:
    brew = client(edge, "databrew")
    with pytest.raises(ClientError) as missing:
        brew.describe_recipe(Name="none")
    assert error_of(missing) == ("ResourceNotFoundException", "Recipe none not found")
    wire = edge.handle(WireRequest("POST", "/recipes", "", {"authorization": _signed("databrew"),
                                                            "content-type": "application/json"},
                                   b'{"Name": "x", "Steps": [], "Colour": "red"}'))
    assert (wire.status, dict(wire.headers)["x-amzn-ErrorType"]) == (400, "ValidationException")
    assert b"Colour" in wire.body
    wire = edge.handle(WireRequest("POST", "/recipes", "", {"authorization": _signed("databrew")}, b"{"))
    assert (wire.status, dict(wire.headers)["x-amzn-ErrorType"]) == (400, "SerializationException")
    wire = edge.handle(WireRequest("DELETE", "/nowhere", "", {"authorization": _signed("databrew")}, b""))
    assert (wire.status, dict(wire.headers)["x-amzn-ErrorType"]) == (404, "UnknownOperationException")


def _signed(service: str) -> str:
    return (f"AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1/{service}/aws4_request, "
            "SignedHeaders=host, Signature=00")
