"""Request bodies written to a file as they arrive (S3 uploads), never held whole in memory.

A :class:`Spooler` takes the body piece by piece, writes it to a new file in the spool folder (on
the object store's file system, so the object's final ``rename`` is atomic) and computes what the
edge and the S3 handlers check it against: size, SHA-256, MD5 and CRC32.

A body sent with ``Content-Encoding: aws-chunked`` (``X-Amz-Content-SHA256:
STREAMING-AWS4-HMAC-SHA256-PAYLOAD`` and its ``-TRAILER`` / ``STREAMING-UNSIGNED-PAYLOAD-TRAILER``
forms, as the AWS SDKs send uploads) is decoded on the way, as the S3 documentation ("Signature
Calculations for the Authorization Header: Transferring Payload in Multiple Chunks") frames it::

    <hex size>[;chunk-signature=<64 hex>]\\r\\n<data>\\r\\n ... 0[;chunk-signature=...]\\r\\n
    [<trailer name>:<value>\\r\\n ...]\\r\\n

Each chunk's signature and SHA-256 are kept, so the edge can check the chain of chunk signatures
once it knows the caller's key; trailing headers (``x-amz-checksum-crc32:...``) are kept too.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import uuid
import zlib
from pathlib import Path

from glueball.api.bodies import SpooledBody
from glueball.edge.memory import BodyShape

_MAX_CHUNK_HEADER = 4096


class SpoolError(ValueError):
    """A chunked body that does not follow the aws-chunked framing (the message says where)."""


def is_aws_chunked(headers: dict[str, str]) -> bool:
    """Whether the body of a request with these (lower-cased) headers is aws-chunked: its payload hash says
    ``STREAMING-...``, or it says ``Content-Encoding: aws-chunked`` with the ``x-amz-decoded-content-length``
    such a body needs. A Content-Encoding of aws-chunked alone (a CopyObject repeating its source's headers,
    with no body) does not frame a body."""
    declared = headers.get("x-amz-content-sha256", "")
    encodings = [e.strip().lower() for e in headers.get("content-encoding", "").split(",")]
    return declared.startswith("STREAMING-") or ("aws-chunked" in encodings
                                                 and "x-amz-decoded-content-length" in headers)


class Spooler:
    """Writes one request body to ``folder``; :meth:`feed` each piece, then :meth:`finish`.

    With ``shape``, what the (decoded) body holds is counted in it as it arrives: a body the server
    will parse (an S3 request document) is admitted by what its parse costs (:mod:`glueball.edge.memory`).
    """

    def __init__(self, folder: Path, chunked: bool, shape: BodyShape | None = None) -> None:
        self.shape = shape
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / f"upload-{uuid.uuid4().hex}"
        self._file = self.path.open("wb")
        self._sha256 = hashlib.sha256()
        self._md5 = hashlib.md5()  # noqa: S324 - S3's Content-MD5 and ETag are MD5 by definition
        self._crc32 = 0
        self.size = 0
        self._chunked = chunked
        self._buffer = bytearray()
        self._state = "size"  # size | data | data-end | trailer | done
        self._remaining = 0
        self._signature = ""
        self._chunk_hash = hashlib.sha256()
        self._chunks: list[tuple[str, str]] = []
        self._trailers: list[tuple[str, str]] = []

    def feed(self, piece: bytes) -> None:
        """Take the next piece of the body.

        Raises:
            SpoolError: the aws-chunked framing is broken.
        """
        if not self._chunked:
            self._write(piece)
            return
        self._buffer += piece
        while self._step():
            pass

    def finish(self) -> SpooledBody:
        """The spooled body, its file closed.

        Raises:
            SpoolError: a chunked body ended before its final chunk.
        """
        self._file.close()
        if self._chunked and self._state != "done":
            raise SpoolError("The aws-chunked body ended before its final zero-length chunk")
        return SpooledBody(self.path, self.size, self._sha256.hexdigest(), self._md5.digest(), self._crc32,
                           tuple(self._chunks), tuple(self._trailers))

    def discard(self) -> None:
        """Close and remove the file (a refused or failed request)."""
        self._file.close()
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass

    def _write(self, data: bytes | memoryview) -> None:
        self._file.write(data)
        if self.shape is not None:
            self.shape.count(data)
        self._sha256.update(data)
        self._md5.update(data)
        self._crc32 = zlib.crc32(data, self._crc32)
        self.size += len(data)

    def _line(self) -> bytes | None:
        end = self._buffer.find(b"\r\n")
        if end < 0:
            if len(self._buffer) > _MAX_CHUNK_HEADER:
                raise SpoolError("An aws-chunked chunk header is longer than 4096 bytes")
            return None
        line = bytes(self._buffer[:end])
        del self._buffer[:end + 2]
        return line

    def _step(self) -> bool:
        """Consume what the buffer allows of the current state; False when it needs more."""
        if self._state == "size":
            line = self._line()
            if line is None:
                return False
            size_text, _, extension = line.decode("latin-1").partition(";")
            try:
                self._remaining = int(size_text.strip(), 16)
            except ValueError:
                raise SpoolError(f"An aws-chunked chunk header must start with a hex size; got {line[:40]!r}") \
                    from None
            name, _, value = extension.partition("=")
            self._signature = value.strip() if name.strip() == "chunk-signature" else ""
            self._chunk_hash = hashlib.sha256()
            if self._remaining == 0:
                self._chunks.append((self._signature, self._chunk_hash.hexdigest()))
                self._state = "trailer"
            else:
                self._state = "data"
            return True
        if self._state == "data":
            if not self._buffer:
                return False
            take = min(self._remaining, len(self._buffer))
            data = memoryview(self._buffer)[:take]
            self._write(data)
            self._chunk_hash.update(data)
            data.release()
            del self._buffer[:take]
            self._remaining -= take
            if self._remaining == 0:
                self._chunks.append((self._signature, self._chunk_hash.hexdigest()))
                self._state = "data-end"
            return True
        if self._state == "data-end":
            if len(self._buffer) < 2:
                return False
            if self._buffer[:2] != b"\r\n":
                raise SpoolError("An aws-chunked chunk's data must be followed by CRLF")
            del self._buffer[:2]
            self._state = "size"
            return True
        if self._state == "trailer":
            line = self._line()
            if line is None:
                return False
            if not line:
                self._state = "done"
                return True
            name, sep, value = line.decode("latin-1").partition(":")
            if not sep:
                raise SpoolError(f"An aws-chunked trailer must be 'name:value'; got {line[:40]!r}")
            self._trailers.append((name.strip().lower(), value.strip()))
            return True
        if self._buffer.strip():
            raise SpoolError("Data after the end of an aws-chunked body")
        self._buffer.clear()
        return False


class BodyFile:
    """A body the server reads whole (a JSON, query or REST-JSON request), kept in an unnamed file of
    ``folder`` while it arrives rather than in memory; counted in ``shape`` as it comes (what parsing it
    will cost). The file has no name (``O_TMPFILE`` where the system has it), so a crash leaves nothing."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self._file = tempfile.TemporaryFile(dir=folder, prefix="body-")
        self.shape = BodyShape()

    def feed(self, piece: bytes) -> None:
        self._file.write(piece)
        self.shape.count(piece)

    def read(self) -> bytes:
        """The whole body (the file stays open until :meth:`close`)."""
        self._file.flush()
        self._file.seek(0)
        return self._file.read()

    def close(self) -> None:
        self._file.close()
