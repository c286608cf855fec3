"""Bodies too big to hold in memory, as the edge and the areas hand them to each other: an upload the
edge wrote to a file as it arrived, and a download the edge sends from a file."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class SpooledBody:
    """A request body written to a file as it arrived (S3 uploads), with what was computed on the way:
    its size, SHA-256 (hex), MD5 and CRC32 (what ``Content-MD5``, ``X-Amz-Content-SHA256`` and
    ``x-amz-checksum-crc32`` are checked against). An ``aws-chunked`` body is stored decoded; its chunk
    signatures and each chunk's SHA-256 are kept for the signature check, and its trailing headers
    (``x-amz-checksum-*``) in ``trailers``. Whoever takes the file renames it away; the server removes
    what is left when the request ends."""

    path: Path
    size: int
    sha256: str
    md5: bytes
    crc32: int
    chunks: tuple[tuple[str, str], ...] = ()  # (chunk signature, chunk SHA-256 hex), final empty chunk included
    trailers: tuple[tuple[str, str], ...] = ()

    def read(self) -> bytes:
        return self.path.read_bytes()


@dataclass(frozen=True)
class FileRange:
    """A response body sent from a file: ``length`` bytes from ``offset`` (S3 downloads, ranges)."""

    path: Path
    offset: int
    length: int
    remove_after: bool = False  # a temporary file (a download passed on from another store): removed once sent

    def read(self) -> bytes:
        with self.path.open("rb") as handle:
            handle.seek(self.offset)
            data = handle.read(self.length)
        self.done()
        return data

    def done(self) -> None:
        """The body was sent (or will not be): remove a temporary file."""
        if self.remove_after:
            self.path.unlink(missing_ok=True)
