"""``from awsglue.transforms import *``: every Glue transform class."""

from glueball.runtime.transforms.base import GlueTransform
from glueball.runtime.transforms.choice import ResolveChoice, Unbox
from glueball.runtime.transforms.mapping import (
    ApplyMapping,
    DropFields,
    DropNullFields,
    FillMissingValues,
    Relationalize,
    RenameField,
    SelectFields,
    SplitFields,
    SplitRows,
    UnnestFrame,
)
from glueball.runtime.transforms.record_transforms import (
    Coalesce,
    ErrorsAsDynamicFrame,
    Filter,
    FlatMap,
    Join,
    Map,
    MapToCollection,
    Repartition,
    SelectFromCollection,
    Spigot,
    Union,
)

__all__ = [
    "GlueTransform", "ApplyMapping", "Coalesce", "DropFields", "DropNullFields", "ErrorsAsDynamicFrame",
    "FillMissingValues", "Filter", "FlatMap", "Join", "Map", "MapToCollection", "Relationalize", "RenameField",
    "Repartition", "ResolveChoice", "SelectFields", "SelectFromCollection", "Spigot", "SplitFields", "SplitRows",
    "Union", "Unbox", "UnnestFrame",
]
