"""Multipart uploads: parts kept apart until completion joins them into one object in one rename.

An upload is a folder ``<work>/uploads/<upload id>`` with ``upload.json`` (bucket, key, initiation
time, what the object will carry) and its parts: ``part-<n>`` (the bytes, renamed in from the
spool) and ``part-<n>.json`` (ETag, size, checksums), written after the bytes — a part whose
record does not match its bytes (a crash between the two) counts as not uploaded. Completing joins
the named parts into a spool file and renames it into place, so the object appears whole or not
at all; a server killed during an upload leaves the upload listed, to be completed or aborted.

The completed object's ETag is S3's: the MD5 of the parts' MD5s, then ``-<number of parts>``.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import json
import os
import shutil
import uuid
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from glueball.objects.errors import EntityTooSmall, InvalidArgument, InvalidPart, InvalidPartOrder, NoSuchUpload
from glueball.objects.models import ObjectMeta

MIN_PART_SIZE = 5 * 1024 * 1024
MAX_PART_NUMBER = 10000
_COPY_PIECE = 4 * 1024 * 1024


@dataclass
class Upload:
    upload_id: str
    bucket: str
    key: str
    initiated: dt.datetime
    owner: str
    meta: ObjectMeta  # what the object will carry (size, time and ETag filled in at completion)
    checksum_algorithm: str | None = None
    checksum_type: str | None = None


@dataclass(frozen=True)
class Part:
    number: int
    etag: str  # MD5 hex, unquoted
    size: int
    last_modified: dt.datetime
    checksums: dict[str, str] = field(default_factory=dict)


class Uploads:
    """The multipart uploads in progress under ``folder``; parts arrive spooled under the same file system."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def create(self, bucket: str, key: str, owner: str, meta: ObjectMeta, checksum_algorithm: str | None,
               checksum_type: str | None) -> Upload:
        upload = Upload(uuid.uuid4().hex + uuid.uuid4().hex, bucket, key,
                        dt.datetime.now(dt.UTC).replace(microsecond=0), owner, meta, checksum_algorithm,
                        checksum_type)
        home = self.folder / upload.upload_id
        home.mkdir(parents=True)
        _write_json(home / "upload.json", {
            "bucket": bucket, "key": key, "initiated": upload.initiated.timestamp(), "owner": owner,
            "meta": meta.to_json(), "checksum_algorithm": checksum_algorithm, "checksum_type": checksum_type})
        return upload

    def get(self, upload_id: str, bucket: str, key: str) -> Upload:
        """The upload ``upload_id`` of ``key`` in ``bucket``.

        Raises:
            NoSuchUpload: none such (never started, completed or aborted), or of another key.
        """
        upload = self._read(upload_id)
        if upload is None or upload.bucket != bucket or upload.key != key:
            raise NoSuchUpload("The specified upload does not exist. The upload ID may be invalid, or the upload "
                               "may have been aborted or completed.", UploadId=upload_id)
        return upload

    def all(self, bucket: str) -> list[Upload]:
        """The uploads in progress in ``bucket``, by key, then initiation time."""
        found = []
        if self.folder.is_dir():
            for entry in os.scandir(self.folder):
                upload = self._read(entry.name)
                if upload is not None and upload.bucket == bucket:
                    found.append(upload)
        return sorted(found, key=lambda u: (u.key, u.initiated, u.upload_id))

    def add_part(self, upload: Upload, number: int, source: Path, etag: str, checksums: dict[str, str]) -> Part:
        """Make the spooled file ``source`` part ``number`` of ``upload`` (replacing an earlier one)."""
        if not 1 <= number <= MAX_PART_NUMBER:
            raise InvalidArgument("Part number must be an integer between 1 and 10000, inclusive",
                                  ArgumentName="partNumber", ArgumentValue=str(number))
        home = self.folder / upload.upload_id
        target = home / f"part-{number}"
        size = source.stat().st_size
        os.replace(source, target)
        part = Part(number, etag, size, dt.datetime.now(dt.UTC).replace(microsecond=0), checksums)
        _write_json(home / f"part-{number}.json", {"etag": etag, "size": size, "at": part.last_modified.timestamp(),
                                                   "checksums": checksums})
        return part

    def parts(self, upload: Upload) -> list[Part]:
        """The parts of ``upload`` uploaded whole, by number."""
        home = self.folder / upload.upload_id
        found = []
        for entry in os.scandir(home):
            if not (entry.name.startswith("part-") and entry.name.endswith(".json")):
                continue
            number = int(entry.name[5:-5])
            try:
                record = json.loads(Path(entry.path).read_text())
                size = (home / f"part-{number}").stat().st_size
            except (OSError, ValueError):
                continue
            if size != record["size"]:
                continue  # the bytes of a newer upload of this part arrived, its record did not
            found.append(Part(number, record["etag"], size, dt.datetime.fromtimestamp(record["at"], dt.UTC),
                              dict(record.get("checksums") or {})))
        return sorted(found, key=lambda p: p.number)

    def join(self, upload: Upload, wanted: list[tuple[int, str]], spool: Path) -> tuple[Path, ObjectMeta]:
        """Join the parts ``wanted`` ((number, ETag) in order) into a new file in ``spool``.

        Raises:
            InvalidPartOrder, InvalidPart, EntityTooSmall: as S3 checks the list.
        """
        if not wanted:
            raise InvalidArgument("You must specify at least one part", ArgumentName="MultipartUpload")
        numbers = [number for number, _ in wanted]
        if any(a >= b for a, b in zip(numbers, numbers[1:], strict=False)):
            raise InvalidPartOrder("The list of parts was not in ascending order. The parts list must be specified "
                                   "in order by part number.", UploadId=upload.upload_id)
        have = {part.number: part for part in self.parts(upload)}
        chosen: list[Part] = []
        for number, etag in wanted:
            part = have.get(number)
            if part is None or part.etag != etag.strip('"'):
                raise InvalidPart("One or more of the specified parts could not be found. The part may not have been "
                                  "uploaded, or the specified entity tag may not match the part's entity tag.",
                                  UploadId=upload.upload_id, PartNumber=str(number), ETag=etag)
            chosen.append(part)
        for part in chosen[:-1]:
            if part.size < MIN_PART_SIZE:
                raise EntityTooSmall("Your proposed upload is smaller than the minimum allowed object size.",
                                     ProposedSize=str(part.size), MinSizeAllowed=str(MIN_PART_SIZE),
                                     PartNumber=str(part.number), ETag=part.etag)
        target = spool / f"join-{uuid.uuid4().hex}"
        crc = 0
        with target.open("wb") as out:
            for part in chosen:
                with (self.folder / upload.upload_id / f"part-{part.number}").open("rb") as source:
                    while True:
                        piece = source.read(_COPY_PIECE)
                        if not piece:
                            break
                        crc = zlib.crc32(piece, crc)
                        out.write(piece)
        digests = b"".join(bytes.fromhex(part.etag) for part in chosen)
        etag = f"{hashlib.md5(digests).hexdigest()}-{len(chosen)}"  # noqa: S324 - S3's multipart ETag
        meta = ObjectMeta(**{**upload.meta.__dict__, "etag": etag, "parts": len(chosen)})
        meta.checksums = _completed_checksums(upload, chosen, crc)
        meta.checksum_type = upload.checksum_type or ("COMPOSITE" if meta.checksums else None)
        if "CRC32" in meta.checksums and meta.checksum_type == "FULL_OBJECT":
            meta.checksums["CRC32"] = base64.b64encode(crc.to_bytes(4, "big")).decode()
        return target, meta

    def remove(self, upload: Upload) -> None:
        shutil.rmtree(self.folder / upload.upload_id, ignore_errors=True)

    def _read(self, upload_id: str) -> Upload | None:
        if not upload_id or "/" in upload_id or upload_id.startswith("."):
            return None
        try:
            data: dict[str, Any] = json.loads((self.folder / upload_id / "upload.json").read_text())
        except (OSError, ValueError):
            return None
        return Upload(upload_id, data["bucket"], data["key"], dt.datetime.fromtimestamp(data["initiated"], dt.UTC),
                      data["owner"], ObjectMeta.from_json(data["meta"]), data.get("checksum_algorithm"),
                      data.get("checksum_type"))


def _completed_checksums(upload: Upload, parts: list[Part], crc: int) -> dict[str, str]:
    """A composite checksum, as S3 computes it: the checksum of the parts' checksums, then ``-<parts>``."""
    algorithm = (upload.checksum_algorithm or "").upper()
    if not algorithm or not all(algorithm in part.checksums for part in parts):
        return {}
    joined = b"".join(base64.b64decode(part.checksums[algorithm]) for part in parts)
    if algorithm == "CRC32":
        digest = zlib.crc32(joined).to_bytes(4, "big")
    elif algorithm == "SHA1":
        digest = hashlib.sha1(joined).digest()  # noqa: S324 - S3's checksum algorithm
    elif algorithm == "SHA256":
        digest = hashlib.sha256(joined).digest()
    else:
        return {}
    return {algorithm: f"{base64.b64encode(digest).decode()}-{len(parts)}"}


def _write_json(path: Path, data: dict[str, Any]) -> None:
    temporary = path.with_name(f".{path.name}.{uuid.uuid4().hex}")
    temporary.write_text(json.dumps(data))
    os.replace(temporary, temporary.with_name(path.name))
