"""The Iceberg REST catalog area: the Iceberg REST API (``/iceberg/v1/...``) over the Data Catalog's tables, and
what it needs to serve it.

A namespace is a Glue database, a table a Glue table of ``table_type`` ICEBERG whose ``metadata_location`` is its
current metadata file: the very tables Iceberg's GlueCatalog reads and commits, so a table committed through
either is the table the other sees. The catalog is reached through the Glue API as the caller (a Glue client
the composition root gives), so Glue's rules hold here too: ``VersionId`` compare-and-swap on every commit.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from glueball.api.identity import Caller
from glueball.api.operations import Operations
from glueball.icebergrest.metadata import ReadObject, WriteObject

OPERATIONS = Operations("icebergrest")
PREFIX = "/iceberg"
CONTENT_TYPE = "application/json"


@dataclass(frozen=True, eq=False)
class IcebergRestNeeds:
    """What the REST handlers are given.

    Attributes:
        glue: a Glue client acting as the caller.
        read_object: the bytes of an ``s3://`` object (FileNotFoundError when there is none).
        write_object: write an ``s3://`` object whole.
        endpoint: this installation's S3 endpoint, given to clients as their file IO's (``s3.endpoint``); empty
            when unknown.
    """

    glue: Callable[[Caller], Any]
    read_object: ReadObject
    write_object: WriteObject
    endpoint: str = ""
