"""Bounded reads of a file's beginning, through gzip/bzip2 when the object is compressed.

Glue's crawler reads "the first 1,000 records or the first megabyte" of a text file to infer its
schema; for JSON it keeps reading in 1 MB steps up to 10 MB until it finds a valid record. These
helpers never read more of the stored object than is needed to produce that many decompressed
bytes.
"""

from __future__ import annotations

import bz2
import codecs
import zlib
from dataclasses import dataclass
from typing import BinaryIO, Protocol

MEGABYTE = 1 << 20
TEXT_PREFIX_BYTES = MEGABYTE
JSON_MAX_PREFIX_BYTES = 10 * MEGABYTE
_READ_CHUNK = 64 * 1024

GZIP_MAGIC = b"\x1f\x8b"
BZIP2_MAGIC = b"BZh"
_BZIP2_BLOCK = b"\x31\x41\x59\x26\x53\x59"  # pi: the first block header
_BZIP2_END = b"\x17\x72\x45\x38\x50\x90"  # sqrt(pi): an empty stream


class _Decompressor(Protocol):
    def decompress(self, data: bytes) -> bytes: ...


def compression_of(head: bytes) -> str:
    """The Glue ``compressionType`` of an object, from its magic bytes.

    The content decides, not the name: a ``.gz`` object that holds plain text is read as plain
    text, and a gzip stream is recognised whatever its name.

    Returns:
        ``"gzip"``, ``"bzip2"`` or ``"none"``.
    """
    if head.startswith(GZIP_MAGIC) and len(head) >= 3 and head[2] == 8:  # method 8 = deflate
        return "gzip"
    if (head.startswith(BZIP2_MAGIC) and len(head) >= 10 and head[3:4] in b"123456789"
            and head[4:10] in (_BZIP2_BLOCK, _BZIP2_END)):
        return "bzip2"
    return "none"


@dataclass
class Prefix:
    """The decompressed beginning of a file.

    Attributes:
        data: the decompressed bytes read (at most the requested limit).
        complete: whether ``data`` is the whole (decompressed) content.
        stored_bytes: how many bytes of the stored object were consumed to produce ``data``.
        compression: ``gzip``, ``bzip2`` or ``none``.
        corrupt: the compressed stream was invalid.
    """

    data: bytes
    complete: bool
    stored_bytes: int
    compression: str
    corrupt: bool = False


class _GzipMembers:
    """Decompresses concatenated gzip members (as ``gzip`` writes for appended data)."""

    def __init__(self) -> None:
        self._inner = zlib.decompressobj(wbits=47)

    def decompress(self, data: bytes) -> bytes:
        out = [self._inner.decompress(data)]
        while self._inner.eof and self._inner.unused_data:
            rest = self._inner.unused_data
            self._inner = zlib.decompressobj(wbits=47)
            out.append(self._inner.decompress(rest))
        return b"".join(out)


class _Bzip2Streams:
    def __init__(self) -> None:
        self._inner = bz2.BZ2Decompressor()

    def decompress(self, data: bytes) -> bytes:
        out = [self._inner.decompress(data)]
        while self._inner.eof and self._inner.unused_data:
            rest = self._inner.unused_data
            self._inner = bz2.BZ2Decompressor()
            out.append(self._inner.decompress(rest))
        return b"".join(out)


def read_prefix(stream: BinaryIO, limit: int) -> Prefix:
    """Read up to ``limit`` decompressed bytes from the start of ``stream``.

    Args:
        stream: the stored object's bytes, positioned at 0.
        limit: the most decompressed bytes to return.
    """
    head = stream.read(min(_READ_CHUNK, limit) if limit > 0 else _READ_CHUNK)
    compression = compression_of(head)
    if compression == "none":
        data = bytearray(head)
        while len(data) < limit:
            chunk = stream.read(min(_READ_CHUNK, limit - len(data)))
            if not chunk:
                return Prefix(bytes(data), True, len(data), compression)
            data += chunk
        if len(data) > limit:
            del data[limit:]
        return Prefix(bytes(data), not stream.read(1), len(data), compression)
    decompressor: _Decompressor = _GzipMembers() if compression == "gzip" else _Bzip2Streams()
    out = bytearray()
    consumed = 0
    chunk = head
    try:
        while chunk:
            consumed += len(chunk)
            out += decompressor.decompress(chunk)
            if len(out) >= limit:
                break
            chunk = stream.read(_READ_CHUNK)
    except (OSError, EOFError, ValueError, zlib.error):
        return Prefix(bytes(out[:limit]), False, consumed, compression, corrupt=True)
    complete = len(out) <= limit and not chunk
    if len(out) > limit:
        del out[limit:]
    return Prefix(bytes(out), complete, consumed, compression)


def decode_text(data: bytes, complete: bool) -> str | None:
    """UTF-8 text of a prefix, or None when the bytes are not text.

    A multi-byte character cut by the end of an incomplete prefix is dropped; NUL bytes or invalid
    UTF-8 anywhere else mean binary data, which no text classifier recognises.
    """
    if b"\x00" in data:
        return None
    decoder = codecs.getincrementaldecoder("utf-8")(errors="strict")
    try:
        text = decoder.decode(data, final=complete)
    except UnicodeDecodeError:
        return None
    if text.startswith("\ufeff"):
        text = text[1:]
    return text


def complete_lines(text: str, complete: bool) -> list[str]:
    """The lines of a prefix, without the last one when the prefix may have cut it."""
    lines = text.splitlines()
    if not complete and lines and not text.endswith(("\n", "\r")):
        lines.pop()
    return lines
