"""S3's errors, one class per code, as S3 sends them (``<Error><Code/><Message/>...``).

Messages follow S3's own wording where it has one; ``details`` become the extra elements S3 puts
in its error document (``<Key>``, ``<BucketName>``, ``<UploadId>`` ...).
"""

from __future__ import annotations

from glueball.errors import ServiceError


class S3Error(ServiceError):
    """An S3 error: ``code`` and HTTP ``status``, with S3's extra elements in ``details``."""

    code = "InternalError"
    status = 400

    def __init__(self, message: str, **details: str) -> None:
        super().__init__(message)
        self.details = {key: value for key, value in details.items() if value is not None}


class NoSuchBucket(S3Error):
    """The specified bucket does not exist."""

    code = "NoSuchBucket"
    status = 404


class NoSuchKey(S3Error):
    """The specified key does not exist."""

    code = "NoSuchKey"
    status = 404


class NoSuchUpload(S3Error):
    """The specified multipart upload does not exist."""

    code = "NoSuchUpload"
    status = 404


class NoSuchTagSet(S3Error):
    """There is no tag set associated with the bucket."""

    code = "NoSuchTagSet"
    status = 404


class BucketNotEmpty(S3Error):
    """The bucket you tried to delete is not empty."""

    code = "BucketNotEmpty"
    status = 409


class BucketAlreadyOwnedByYou(S3Error):
    """Your previous request to create the named  bucket succeeded and you already own it."""

    code = "BucketAlreadyOwnedByYou"
    status = 409


class BucketAlreadyExists(S3Error):
    """The requested bucket name is not available."""

    code = "BucketAlreadyExists"
    status = 409


class InvalidBucketName(S3Error):
    """The specified bucket is not valid."""

    code = "InvalidBucketName"
    status = 400


class InvalidRange(S3Error):
    """The requested range is not satisfiable."""

    code = "InvalidRange"
    status = 416


class PreconditionFailed(S3Error):
    """At least one of the preconditions you specified did not hold."""

    code = "PreconditionFailed"
    status = 412


class NotModified(S3Error):
    """Not Modified."""

    code = "NotModified"
    status = 304


class BadDigest(S3Error):
    """The Content-MD5 or checksum value that you specified did not match what  the server received."""

    code = "BadDigest"
    status = 400


class InvalidDigest(S3Error):
    """The Content-MD5 or checksum value that you specified is not valid."""

    code = "InvalidDigest"
    status = 400


class InvalidPart(S3Error):
    """One or more of the specified parts could not be found."""

    code = "InvalidPart"
    status = 400


class InvalidPartOrder(S3Error):
    """The list of parts was not in ascending order."""

    code = "InvalidPartOrder"
    status = 400


class EntityTooSmall(S3Error):
    """Your proposed upload is smaller than the minimum allowed size."""

    code = "EntityTooSmall"
    status = 400


class InvalidArgument(S3Error):
    """Invalid Argument."""

    code = "InvalidArgument"
    status = 400


class InvalidRequest(S3Error):
    """Invalid Request."""

    code = "InvalidRequest"
    status = 400


class KeyTooLongError(S3Error):
    """Your key is too long."""

    code = "KeyTooLongError"
    status = 400


class MalformedXML(S3Error):
    """The XML you provided was not well-formed."""

    code = "MalformedXML"
    status = 400


class InvalidTag(S3Error):
    """The tag provided was not a valid tag."""

    code = "InvalidTag"
    status = 400


class AccessDenied(S3Error):
    """Access Denied."""

    code = "AccessDenied"
    status = 403
