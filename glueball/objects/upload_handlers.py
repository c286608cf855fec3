"""S3's multipart upload operations."""

from __future__ import annotations

from glueball.api.identity import Caller
from glueball.api.operations import STATUS, Request, Response
from glueball.objects.area import S3_OPERATIONS, ObjectNeeds
from glueball.objects.errors import InvalidArgument
from glueball.objects.handlers import checksum_members, checksums_sent, object_service, owner_of, written_of


@S3_OPERATIONS.operation("CreateMultipartUpload")
def create_multipart_upload(needs: ObjectNeeds, caller: Caller, request: Request) -> Response:
    algorithm = request.get("ChecksumAlgorithm")
    upload = object_service(needs, caller).start_upload(request["Bucket"], request["Key"], written_of(request),
                                                        algorithm, request.get("ChecksumType"))
    return {"Bucket": upload.bucket, "Key": upload.key, "UploadId": upload.upload_id,
            "ChecksumAlgorithm": algorithm, "ChecksumType": request.get("ChecksumType")}


@S3_OPERATIONS.operation("UploadPart")
def upload_part(needs: ObjectNeeds, caller: Caller, request: Request) -> Response:
    etag, checksums = object_service(needs, caller).upload_part(
        request["Bucket"], request["Key"], request["UploadId"], int(request["PartNumber"]), request.get("Body"),
        request.get("ContentMD5"), checksums_sent(request))
    return {"ETag": f'"{etag}"', **checksum_members(checksums)}


@S3_OPERATIONS.operation("CompleteMultipartUpload")
def complete_multipart_upload(needs: ObjectNeeds, caller: Caller, request: Request) -> Response:
    parts = [(int(p.get("PartNumber", 0)), str(p.get("ETag", "")))
             for p in (request.get("MultipartUpload") or {}).get("Parts") or []]
    info = object_service(needs, caller).complete_upload(request["Bucket"], request["Key"], request["UploadId"], parts)
    checksums = info.meta.checksums if info.meta is not None else {}
    return {"Location": f"/{info.bucket}/{info.key}", "Bucket": info.bucket, "Key": info.key, "ETag": info.etag,
            **checksum_members(checksums),
            "ChecksumType": info.meta.checksum_type if info.meta is not None and checksums else None}


@S3_OPERATIONS.operation("AbortMultipartUpload")
def abort_multipart_upload(needs: ObjectNeeds, caller: Caller, request: Request) -> Response:
    needs.store.bucket(request["Bucket"])
    upload = needs.uploads.get(request["UploadId"], request["Bucket"], request["Key"])
    needs.uploads.remove(upload)
    return {STATUS: 204}


@S3_OPERATIONS.operation("ListMultipartUploads")
def list_multipart_uploads(needs: ObjectNeeds, caller: Caller, request: Request) -> Response:
    needs.store.bucket(request["Bucket"])
    prefix = request.get("Prefix") or ""
    key_marker, id_marker = request.get("KeyMarker") or "", request.get("UploadIdMarker") or ""
    limit = min(int(request.get("MaxUploads", 1000)), 1000)
    uploads = [u for u in needs.uploads.all(request["Bucket"]) if u.key.startswith(prefix)
               and (u.key > key_marker or (u.key == key_marker and id_marker and u.upload_id > id_marker))]
    page = uploads[:limit]
    truncated = len(uploads) > limit
    return {"Bucket": request["Bucket"], "Prefix": prefix, "KeyMarker": key_marker, "UploadIdMarker": id_marker,
            "MaxUploads": limit, "IsTruncated": truncated,
            "NextKeyMarker": page[-1].key if truncated else None,
            "NextUploadIdMarker": page[-1].upload_id if truncated else None,
            "Uploads": [{"UploadId": u.upload_id, "Key": u.key, "Initiated": u.initiated, "StorageClass": "STANDARD",
                         "Owner": owner_of(u.owner), "Initiator": {"ID": u.owner, "DisplayName": u.owner},
                         "ChecksumAlgorithm": u.checksum_algorithm} for u in page] or None}


@S3_OPERATIONS.operation("ListParts")
def list_parts(needs: ObjectNeeds, caller: Caller, request: Request) -> Response:
    needs.store.bucket(request["Bucket"])
    upload = needs.uploads.get(request["UploadId"], request["Bucket"], request["Key"])
    marker = int(request.get("PartNumberMarker") or 0)
    limit = min(int(request.get("MaxParts", 1000)), 1000)
    if limit < 0:
        raise InvalidArgument("max-parts cannot be negative", ArgumentName="max-parts")
    parts = [p for p in needs.uploads.parts(upload) if p.number > marker]
    page = parts[:limit]
    truncated = len(parts) > limit
    return {"Bucket": upload.bucket, "Key": upload.key, "UploadId": upload.upload_id,
            "PartNumberMarker": marker, "MaxParts": limit, "IsTruncated": truncated,
            "NextPartNumberMarker": page[-1].number if page else None, "StorageClass": "STANDARD",
            "Owner": owner_of(upload.owner), "Initiator": {"ID": upload.owner, "DisplayName": upload.owner},
            "ChecksumAlgorithm": upload.checksum_algorithm,
            "Parts": [{"PartNumber": p.number, "LastModified": p.last_modified, "ETag": f'"{p.etag}"',
                       "Size": p.size, **checksum_members(p.checksums)} for p in page] or None}
