"""S3's operations: requests as the edge read them from the S3 model, answers in the model's shapes."""

from __future__ import annotations

import base64
import binascii
from typing import Any
from urllib.parse import parse_qsl, quote

from glueball.api.bodies import FileRange
from glueball.api.identity import Caller
from glueball.api.operations import RAW_BODY, STATUS, Request, Response
from glueball.objects.area import S3_OPERATIONS, ObjectNeeds
from glueball.objects.errors import InvalidArgument, MalformedXML, NoSuchTagSet
from glueball.objects.models import STORED_HEADERS, ObjectInfo
from glueball.objects.service import (
    CHECKSUMS,
    Conditions,
    ObjectService,
    Written,
    check_tags,
    stored_headers,
)

_XMLNS = "http://s3.amazonaws.com/doc/2006-03-01/"


def object_service(needs: ObjectNeeds, caller: Caller) -> ObjectService:
    return ObjectService(needs.store, needs.lister, needs.uploads, caller.account_id, caller.region)


def owner_of(account: str) -> dict[str, str]:
    return {"ID": account, "DisplayName": account}


def checksums_sent(request: Request) -> dict[str, str]:
    return {name: request[f"Checksum{name}"] for name in CHECKSUMS if request.get(f"Checksum{name}")}


def _tags_header(text: str | None) -> dict[str, str]:
    """``x-amz-tagging: k1=v1&k2=v2`` (URL query form)."""
    return check_tags(dict(parse_qsl(text or "", keep_blank_values=True)), 10)


def written_of(request: Request) -> Written:
    return Written(request.get("ContentType"), dict(request.get("Metadata") or {}), stored_headers(request),
                   request.get("ContentMD5"), checksums_sent(request), _tags_header(request.get("Tagging")))


def _conditions(request: Request, prefix: str = "") -> Conditions:
    return Conditions(request.get(f"{prefix}IfMatch"), request.get(f"{prefix}IfNoneMatch"),
                      _epoch(request.get(f"{prefix}IfModifiedSince")),
                      _epoch(request.get(f"{prefix}IfUnmodifiedSince")))


def _epoch(value: Any) -> float | None:
    if value is None:
        return None
    if hasattr(value, "timestamp"):
        return float(value.timestamp())
    try:
        return float(value)
    except (TypeError, ValueError):
        return None  # a date S3 cannot read is ignored, as HTTP says


def checksum_members(checksums: dict[str, str]) -> Response:
    return {f"Checksum{name}": value for name, value in checksums.items() if name in CHECKSUMS}


def _described(info: ObjectInfo, request: Request, whole: bool) -> Response:
    """What GetObject and HeadObject answer of an object, besides its bytes (its checksums only when the
    whole object is asked for: they are the whole object's)."""
    meta = info.meta
    answer: Response = {"ETag": info.etag, "LastModified": info.last_modified, "ContentType": info.content_type,
                        "AcceptRanges": "bytes"}
    if meta is not None:
        answer["Metadata"] = meta.metadata or None
        answer.update({name: meta.headers[name] for name in STORED_HEADERS if name in meta.headers})
        if request.get("ChecksumMode") == "ENABLED" and meta.checksums and whole:
            answer.update(checksum_members(meta.checksums))
            answer["ChecksumType"] = meta.checksum_type
        answer["TagCount"] = len(meta.tags) or None
        answer["PartsCount"] = meta.parts if request.get("PartNumber") else None
    for member in ("CacheControl", "ContentDisposition", "ContentEncoding", "ContentLanguage", "ContentType",
                   "Expires"):
        override = request.get(f"Response{member}")
        if override is not None:
            answer[member] = override
    return answer


def _read(needs: ObjectNeeds, caller: Caller, request: Request, body: bool) -> Response:
    info, span = object_service(needs, caller).get(request["Bucket"], request["Key"], _conditions(request),
                                             request.get("Range"))
    answer = _described(info, request, span is None)
    first, last = span if span is not None else (0, info.size - 1)
    length = max(0, last - first + 1)
    answer["ContentLength"] = length
    if span is not None:
        answer["ContentRange"] = f"bytes {first}-{last}/{info.size}"
        answer[STATUS] = 206
    if body:
        answer["Body"] = FileRange(info.path, first, length)
    return answer


@S3_OPERATIONS.operation("GetObject")
def get_object(needs: ObjectNeeds, caller: Caller, request: Request) -> Response:
    return _read(needs, caller, request, body=True)


@S3_OPERATIONS.operation("HeadObject")
def head_object(needs: ObjectNeeds, caller: Caller, request: Request) -> Response:
    return _read(needs, caller, request, body=False)


@S3_OPERATIONS.operation("PutObject")
def put_object(needs: ObjectNeeds, caller: Caller, request: Request) -> Response:
    info = object_service(needs, caller).put(request["Bucket"], request["Key"], request.get("Body"),
                                             written_of(request), _conditions(request))
    meta = info.meta
    checksums = meta.checksums if meta is not None else {}
    return {"ETag": info.etag, **checksum_members(checksums),
            "ChecksumType": meta.checksum_type if meta is not None and checksums else None}


@S3_OPERATIONS.operation("DeleteObject")
def delete_object(needs: ObjectNeeds, caller: Caller, request: Request) -> Response:
    needs.store.delete(request["Bucket"], request["Key"])
    return {STATUS: 204}


@S3_OPERATIONS.operation("DeleteObjects")
def delete_objects(needs: ObjectNeeds, caller: Caller, request: Request) -> Response:
    delete = request.get("Delete") or {}
    keys = [str(item.get("Key")) for item in delete.get("Objects") or []]
    if not keys or len(keys) > 1000:
        raise MalformedXML("The XML you provided was not well-formed or did not validate against our published "
                           "schema: Delete names 1 to 1000 objects")
    deleted, errors = object_service(needs, caller).delete_many(request["Bucket"], keys)
    return {"Deleted": None if delete.get("Quiet") else [{"Key": key} for key in deleted] or None,
            "Errors": [{"Key": k, "Code": c, "Message": m} for k, c, m in errors] or None}


@S3_OPERATIONS.operation("CopyObject")
def copy_object(needs: ObjectNeeds, caller: Caller, request: Request) -> Response:
    replace = request.get("MetadataDirective") == "REPLACE"
    info = object_service(needs, caller).copy(request["Bucket"], request["Key"], request["CopySource"],
                                        _conditions(request, "CopySource"), replace, written_of(request),
                                        request.get("TaggingDirective") == "REPLACE")
    return {"CopyObjectResult": {"ETag": info.etag, "LastModified": info.last_modified}}


# -- listing


def _token(resume: str | None) -> str | None:
    return base64.urlsafe_b64encode(resume.encode("utf-8", "surrogatepass")).decode() if resume else None


def _resume(token: str) -> str:
    try:
        resume = base64.b64decode(token.encode(), altchars=b"-_", validate=True).decode("utf-8", "surrogatepass")
    except (binascii.Error, ValueError, UnicodeDecodeError):
        resume = ""
    if not resume:
        raise InvalidArgument("The continuation token provided is incorrect", ArgumentName="continuation-token",
                              ArgumentValue=token)
    return resume


def _listed(needs: ObjectNeeds, request: Request, after: str, owner: bool) -> tuple[Response, Any]:
    max_keys = int(request.get("MaxKeys", 1000))
    if max_keys < 0:
        raise InvalidArgument("max-keys cannot be negative", ArgumentName="max-keys", ArgumentValue=str(max_keys))
    page = needs.lister.page(request["Bucket"], request.get("Prefix") or "", request.get("Delimiter") or "", after,
                             min(max_keys, 1000))
    url = request.get("EncodingType") == "url"

    def text(value: str | None) -> str | None:
        return quote(value, safe="/") if url and value is not None else value

    contents = [{"Key": text(o.key), "LastModified": o.last_modified, "ETag": o.etag, "Size": o.size,
                 "StorageClass": "STANDARD", **({"Owner": owner_of(needs.store.owner)} if owner else {})}
                for o in page.objects]
    answer: Response = {
        "Name": request["Bucket"], "Prefix": text(request.get("Prefix") or ""), "MaxKeys": max_keys,
        "Delimiter": text(request.get("Delimiter")), "IsTruncated": page.truncated,
        "Contents": contents or None, "EncodingType": request.get("EncodingType"),
        "CommonPrefixes": [{"Prefix": text(p)} for p in page.prefixes] or None,
    }
    return answer, page


@S3_OPERATIONS.operation("ListObjectsV2")
def list_objects_v2(needs: ObjectNeeds, caller: Caller, request: Request) -> Response:
    token = request.get("ContinuationToken")
    after = _resume(token) if token else request.get("StartAfter") or ""
    answer, page = _listed(needs, request, after, bool(request.get("FetchOwner")))
    answer.update({"KeyCount": len(page.objects) + len(page.prefixes), "ContinuationToken": token,
                   "NextContinuationToken": _token(page.resume_after) if page.truncated else None,
                   "StartAfter": request.get("StartAfter")})
    return answer


@S3_OPERATIONS.operation("ListObjects")
def list_objects(needs: ObjectNeeds, caller: Caller, request: Request) -> Response:
    marker = request.get("Marker") or ""
    answer, page = _listed(needs, request, marker, owner=True)
    answer["Marker"] = marker
    if page.truncated and request.get("Delimiter"):  # S3 gives NextMarker only with a delimiter
        resume = page.resume_after or ""
        answer["NextMarker"] = resume.removesuffix("\U0010ffff")
    return answer


# -- buckets


@S3_OPERATIONS.operation("ListBuckets")
def list_buckets(needs: ObjectNeeds, caller: Caller, request: Request) -> Response:
    buckets = object_service(needs, caller).buckets()
    prefix = request.get("Prefix")
    if prefix:
        buckets = [b for b in buckets if b.name.startswith(prefix)]
    after = request.get("ContinuationToken") or ""
    buckets = [b for b in buckets if b.name > after]
    limit = int(request.get("MaxBuckets") or 10000)
    page = buckets[:limit]
    return {"Buckets": [{"Name": b.name, "CreationDate": b.created, "BucketRegion": b.region} for b in page],
            "Owner": owner_of(caller.account_id), "Prefix": prefix,
            "ContinuationToken": page[-1].name if len(buckets) > limit else None}


@S3_OPERATIONS.operation("CreateBucket")
def create_bucket(needs: ObjectNeeds, caller: Caller, request: Request) -> Response:
    configuration = request.get("CreateBucketConfiguration") or {}
    info = object_service(needs, caller).create_bucket(request["Bucket"], configuration.get("LocationConstraint"))
    return {"Location": f"/{info.name}"}


@S3_OPERATIONS.operation("DeleteBucket")
def delete_bucket(needs: ObjectNeeds, caller: Caller, request: Request) -> Response:
    needs.store.delete_bucket(request["Bucket"])
    return {STATUS: 204}


@S3_OPERATIONS.operation("HeadBucket")
def head_bucket(needs: ObjectNeeds, caller: Caller, request: Request) -> Response:
    info = needs.store.bucket(request["Bucket"])
    return {"BucketRegion": info.region}


@S3_OPERATIONS.operation("GetBucketLocation")
def get_bucket_location(needs: ObjectNeeds, caller: Caller, request: Request) -> Response:
    info = needs.store.bucket(request["Bucket"])
    region = "" if info.region == "us-east-1" else info.region  # S3 answers us-east-1 as no constraint
    return {RAW_BODY: f'<?xml version="1.0" encoding="UTF-8"?>\n<LocationConstraint xmlns="{_XMLNS}">{region}'
                      f"</LocationConstraint>".encode()}


def _tag_set(request: Request, limit: int) -> dict[str, str]:
    tags = [(t.get("Key"), t.get("Value", "")) for t in (request.get("Tagging") or {}).get("TagSet") or []]
    if len({k for k, _ in tags}) != len(tags):
        raise InvalidArgument("Cannot provide multiple Tags with the same key", ArgumentName="TagSet")
    return check_tags(dict(tags), limit)


@S3_OPERATIONS.operation("PutBucketTagging")
def put_bucket_tagging(needs: ObjectNeeds, caller: Caller, request: Request) -> Response:
    needs.store.set_bucket_tags(request["Bucket"], _tag_set(request, 50))
    return {STATUS: 204}


@S3_OPERATIONS.operation("GetBucketTagging")
def get_bucket_tagging(needs: ObjectNeeds, caller: Caller, request: Request) -> Response:
    tags = needs.store.bucket(request["Bucket"]).tags
    if not tags:
        raise NoSuchTagSet("The TagSet does not exist", BucketName=request["Bucket"])
    return {"TagSet": [{"Key": k, "Value": v} for k, v in tags.items()]}


@S3_OPERATIONS.operation("DeleteBucketTagging")
def delete_bucket_tagging(needs: ObjectNeeds, caller: Caller, request: Request) -> Response:
    needs.store.set_bucket_tags(request["Bucket"], None)
    return {STATUS: 204}


@S3_OPERATIONS.operation("PutObjectTagging")
def put_object_tagging(needs: ObjectNeeds, caller: Caller, request: Request) -> Response:
    object_service(needs, caller).set_object_tags(request["Bucket"], request["Key"], _tag_set(request, 10))
    return {}


@S3_OPERATIONS.operation("GetObjectTagging")
def get_object_tagging(needs: ObjectNeeds, caller: Caller, request: Request) -> Response:
    info = needs.store.head(request["Bucket"], request["Key"])
    tags = info.meta.tags if info.meta is not None else {}
    return {"TagSet": [{"Key": k, "Value": v} for k, v in tags.items()]}


@S3_OPERATIONS.operation("DeleteObjectTagging")
def delete_object_tagging(needs: ObjectNeeds, caller: Caller, request: Request) -> Response:
    object_service(needs, caller).set_object_tags(request["Bucket"], request["Key"], {})
    return {STATUS: 204}
