"""The S3 API over another S3-compatible store (``glueball server --object-store s3://KEY:SECRET@host:port``).

glueball stays the endpoint its users' clients know — one port for Glue, IAM, STS and S3, its
signatures and policies — and forwards each S3 operation it serves, as read and validated from
the S3 model, to the store with boto3 and the store's own keys; the store's answer goes back in
S3's shapes, its errors with their codes and statuses. Uploads go on from the spool file they
arrived in; downloads come back through a spool file, streamed and then removed.

The URL: ``s3://[KEY:SECRET@]host[:port][?scheme=http&region=us-east-1]`` — HTTPS unless
``scheme=http``; without keys, boto3's usual chain (environment, profile) finds them.
"""

from __future__ import annotations

import re
import shutil
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote

from botocore.exceptions import ClientError

from glueball.api.bodies import FileRange, SpooledBody
from glueball.api.identity import Caller
from glueball.api.operations import RAW_BODY, STATUS, Handler, Operations, Request, Response
from glueball.objects.area import S3_OPERATIONS
from glueball.objects.errors import S3Error
from glueball.objects.reach import RemoteStore

_NO_CONTENT = {"DeleteObject", "DeleteBucket", "DeleteBucketTagging", "AbortMultipartUpload", "PutBucketTagging",
               "DeleteObjectTagging"}
__all__ = ["RemoteError", "RemoteNeeds", "RemoteStore", "forwarding_operations"]


@dataclass(frozen=True, eq=False)
class RemoteNeeds:
    client: Any
    spool: Path


class RemoteError(S3Error):
    """An error the store answered, passed on with its code and status."""

    def __init__(self, code: str, message: str, status: int) -> None:
        super().__init__(message)
        self.code = code
        self.status = status


def forwarding_operations() -> Operations:
    """Every S3 operation glueball serves locally, forwarded to the store instead."""
    operations = Operations("s3")
    for name in S3_OPERATIONS.handlers:
        operations.operation(name)(_forwarder(name))
    return operations


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _as_decoded(params: dict[str, Any], body: SpooledBody) -> None:
    """An upload's parameters for the body as it was decoded (aws-chunked framing is the client's wire format, not
    the object's): its length, not the framed one the request declared (the store would wait for the missing
    bytes); its Content-Encoding without ``aws-chunked``; the checksums its trailer carried as parameters."""
    params["ContentLength"] = body.size
    encodings = [e.strip() for e in str(params.get("ContentEncoding") or "").split(",")
                 if e.strip() and e.strip().lower() != "aws-chunked"]
    if encodings:
        params["ContentEncoding"] = ",".join(encodings)
    else:
        params.pop("ContentEncoding", None)
    for name, value in body.trailers:
        if name.lower().startswith("x-amz-checksum-"):
            params.setdefault("Checksum" + name[len("x-amz-checksum-"):].upper(), value)


def _copy_source(header: str) -> dict[str, str]:
    """``x-amz-copy-source`` as it arrived (URL-encoded ``bucket/key[?versionId=V]``) as boto3's CopySource: boto3
    encodes a string again (``day%3D1`` would name ``day%253D1``), not the parts of a dict."""
    path, _, query = header.partition("?")
    bucket, _, key = unquote(path).lstrip("/").partition("/")
    source = {"Bucket": bucket, "Key": key}
    version = parse_qs(query).get("versionId")
    if version:
        source["VersionId"] = version[0]
    return source


def _forwarder(operation: str) -> Handler:
    method = _snake(operation)

    def forward(needs: RemoteNeeds, caller: Caller, request: Request) -> Response:
        params = {k: v for k, v in request.items() if v is not None}
        opened = None
        body = params.get("Body")
        if isinstance(body, SpooledBody):
            opened = params["Body"] = body.path.open("rb")
            if operation in ("PutObject", "UploadPart"):
                _as_decoded(params, body)
        if isinstance(params.get("CopySource"), str):
            params["CopySource"] = _copy_source(params["CopySource"])
        try:
            answer = dict(getattr(needs.client, method)(**params))
        except ClientError as err:
            error = err.response.get("Error", {})
            status = int(err.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 500))
            raise RemoteError(str(error.get("Code") or status), str(error.get("Message") or "The store refused the "
                              "request"), status) from None
        finally:
            if opened is not None:
                opened.close()
        answer.pop("ResponseMetadata", None)
        if operation == "GetBucketLocation":
            region = answer.get("LocationConstraint") or ""
            return {RAW_BODY: (f'<?xml version="1.0" encoding="UTF-8"?>\n<LocationConstraint xmlns='
                               f'"http://s3.amazonaws.com/doc/2006-03-01/">{region}</LocationConstraint>').encode()}
        if operation == "GetObject":
            stream = answer.pop("Body")
            target = needs.spool / f"remote-{uuid.uuid4().hex}"
            with target.open("wb") as out:
                shutil.copyfileobj(stream, out, 1024 * 1024)
            answer["Body"] = FileRange(target, 0, target.stat().st_size, remove_after=True)
        if answer.get("ContentRange") and operation in ("GetObject", "HeadObject"):
            answer[STATUS] = 206
        if operation in _NO_CONTENT:
            answer[STATUS] = 204
        return answer

    forward.__name__ = method
    return forward
