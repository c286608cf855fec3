"""The classification contract shared with the crawl engine: a sampled file in, a table shape out."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, BinaryIO

TEXT_INPUT_FORMAT = "org.apache.hadoop.mapred.TextInputFormat"
TEXT_OUTPUT_FORMAT = "org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat"


@dataclass
class FileSample:
    """One object a crawler found, to be classified.

    Attributes:
        path: a local file of the bytes, when ``opener`` is not given.
        uri: the object's address as the crawler target names it (``s3://...`` or a path).
        size: the object's size in bytes.
        opener: opens the object as a seekable stream (an object store's, :mod:`glueball.objects.access`).
    """

    path: str
    uri: str
    size: int
    opener: Callable[[], BinaryIO] | None = None

    def open(self) -> BinaryIO:
        """The raw (possibly compressed) bytes; classifiers detect gzip/bz2 themselves."""
        return self.opener() if self.opener is not None else open(self.path, "rb")


@dataclass
class Classification:
    """What a classifier recognised, in the terms Glue writes to a table.

    Attributes:
        classification: ``csv``, ``json``, ``parquet``, ``orc``, ``avro``, ``xml``, a built-in log
            classification (``combined_apache``, ``apache``, ``linux_kernel``, ...) or a custom
            classifier's Classification.
        columns: ``(name, Hive type)`` pairs, e.g. ``("tags", "array<string>")``.
        parameters: the table Parameters Glue sets for the format (``classification``,
            ``compressionType``, ``delimiter``, ``skip.header.line.count``, ``grokPattern``, ...).
        serde: ``{"SerializationLibrary": ..., "Parameters": {...}}`` of the storage descriptor.
        input_format: the storage descriptor's InputFormat.
        output_format: the storage descriptor's OutputFormat.
        record_count: records in the file: exact from footers/headers or when the whole file was
            sampled, otherwise estimated from the sample.
        average_record_size: bytes per record (of the stored, possibly compressed, object).
        custom_classifier: the name of the custom classifier that matched, if any.
    """

    classification: str
    columns: list[tuple[str, str]]
    parameters: dict[str, str]
    serde: dict[str, Any]
    input_format: str
    output_format: str
    record_count: int | None = None
    average_record_size: int | None = None
    custom_classifier: str | None = None
