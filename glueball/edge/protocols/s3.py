"""S3's REST-XML as S3 itself speaks it, beyond what the model says.

- **Addressing.** Path style (``/bucket/key``) and virtual-host style (``Host:
  bucket.<domain>``, with ``/key`` as the path): a host that is ``<bucket>.`` followed by one of
  the server's S3 domains (``localhost`` and those given with ``--s3-domain``) names the bucket.
  Routes are matched against ``/bucket`` + the path; the signature is checked against the path as
  sent.
- **Answers.** ``204`` for deletions and ``206`` for ranges (statuses the model has no member for),
  ``304 Not Modified`` without a body, and ``HEAD`` answers whose errors are their status alone.
- **Root elements.** An answer's XML root is named as S3 names it, in S3's namespace
  (``<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">``), not after botocore's output
  shape (``ListObjectsV2Output``): botocore's parser ignores the root, but the AWS C++ SDK (pyarrow) and
  others read an answer by it. The model does not carry these names (its output shapes have no
  ``locationName``); they are the S3 API Reference's ("Response Syntax" of each operation).
"""

from __future__ import annotations

import ipaddress
import re
from typing import Any

import botocore.model
from botocore.model import Shape

from glueball.api.operations import RAW_BODY, STATUS
from glueball.edge.protocols.rest import RestProtocol
from glueball.edge.wire import WireRequest, WireResponse
from glueball.errors import ServiceError

_AWS_VIRTUAL_HOST = re.compile(r"(.+?)\.s3(?:[.-][a-z0-9-]+)*\.amazonaws\.com")
NAMESPACE = "http://s3.amazonaws.com/doc/2006-03-01/"
# the root element of the operations whose answer's body is their output shape (not a payload member,
# which the model names: CopyObjectResult), from the S3 API Reference
ROOTS = {
    "ListBuckets": "ListAllMyBucketsResult",
    "ListObjects": "ListBucketResult",
    "ListObjectsV2": "ListBucketResult",
    "ListObjectVersions": "ListVersionsResult",
    "ListMultipartUploads": "ListMultipartUploadsResult",
    "ListParts": "ListPartsResult",
    "CreateMultipartUpload": "InitiateMultipartUploadResult",
    "CompleteMultipartUpload": "CompleteMultipartUploadResult",
    "DeleteObjects": "DeleteResult",
    "GetBucketTagging": "Tagging",
    "GetObjectTagging": "Tagging",
    "GetBucketLocation": "LocationConstraint",
    "GetBucketVersioning": "VersioningConfiguration",
    "GetBucketAcl": "AccessControlPolicy",
    "GetObjectAcl": "AccessControlPolicy",
    "GetBucketCors": "CORSConfiguration",
    "GetBucketLifecycleConfiguration": "LifecycleConfiguration",
}


class S3Protocol(RestProtocol):
    """REST-XML for S3, with S3's addressing.

    Args:
        domains: host names whose subdomains are buckets (``bucket.localhost``).
    """

    def __init__(self, model: botocore.model.ServiceModel, domains: tuple[str, ...] = ("localhost",)) -> None:
        super().__init__(model)
        self.domains = tuple(d.lower().strip(".") for d in domains if d)

    def bucket_of_host(self, request: WireRequest) -> str | None:
        """The bucket a virtual-host-style request names in its ``Host``, or None (path style)."""
        host = (request.header("host") or "").strip()
        if host.startswith("["):  # an IPv6 literal
            return None
        name = host.rsplit(":", 1)[0].lower() if host.count(":") == 1 else host.lower()
        try:
            ipaddress.ip_address(name)
            return None
        except ValueError:
            pass
        for domain in self.domains:
            if name.endswith("." + domain):
                bucket = name[:-len(domain) - 1]
                return bucket or None
        aws = _AWS_VIRTUAL_HOST.fullmatch(name)  # what an SDK without an endpoint URL addresses (in-process)
        return aws.group(1) if aws else None

    def path_of(self, request: WireRequest) -> str:
        bucket = self.bucket_of_host(request)
        if bucket is None:
            return request.path
        return f"/{bucket}{request.path}" if request.path != "/" else f"/{bucket}"

    def body_root(self, operation: str, shape: Shape, payload: bool) -> tuple[str, str]:
        name, _ = super().body_root(operation, shape, payload)
        return (name if payload else ROOTS.get(operation, name)), NAMESPACE

    def answer(self, operation: str, result: dict[str, Any], request_id: str) -> WireResponse:
        raw = result.get(RAW_BODY)
        if raw is not None:
            return WireResponse(int(result.get(STATUS, 200)), raw, request_id, "application/xml")
        response = super().answer(operation, result, request_id)
        if STATUS in result:
            response.status = int(result[STATUS])
            if response.status == 204:
                response.body = b""
        return response

    def error(self, error: ServiceError, request_id: str) -> WireResponse:
        response = super().error(error, request_id)
        if error.status == 304:
            response.body = b""
        return response
