"""The upstream import paths a Glue script uses all resolve (no Spark needed)."""

from __future__ import annotations

import importlib

ISSUE_TRANSFORMS = [
    "ApplyMapping", "Filter", "Join", "ResolveChoice", "Relationalize", "DropFields", "SelectFields", "RenameField",
    "DropNullFields", "SplitFields", "SplitRows", "Map", "FlatMap", "Unbox", "UnnestFrame", "Spigot",
    "SelectFromCollection", "Union", "Repartition", "Coalesce", "ErrorsAsDynamicFrame", "MapToCollection",
    "FillMissingValues",
]


def test_star_import_of_transforms_gives_every_transform() -> None:
    namespace: dict[str, object] = {}
    exec("from awsglue.transforms import *", namespace)  # noqa: S102 - the form Glue scripts use
    missing = [name for name in ISSUE_TRANSFORMS if name not in namespace]
    assert missing == []
    from glueball.runtime.transforms.base import GlueTransform

    for name in ISSUE_TRANSFORMS:
        transform = namespace[name]
        assert isinstance(transform, type) and issubclass(transform, GlueTransform), name
        assert transform.describe()["transform"]["name"] == name


def test_upstream_module_paths() -> None:
    from awsglue import DynamicFrame as TopLevel
    from awsglue.dynamicframe import DynamicFrame, DynamicFrameCollection, ResolveOption  # noqa: F401

    assert TopLevel is DynamicFrame
    for module, names in {
        "awsglue.context": ["GlueContext"],
        "awsglue.dynamicframe": ["DynamicFrameReader", "DynamicFrameWriter"],
        "awsglue.utils": ["getResolvedOptions", "GlueArgumentError"],
        "awsglue.job": ["Job"],
        "awsglue.gluetypes": ["ChoiceType", "StructType", "Field", "LongType", "StringType", "ArrayType"],
        "awsglue.transforms.transform": ["GlueTransform"],
        "awsglue.data_source": ["DataSource"],
        "awsglue.data_sink": ["DataSink"],
        "awsglueml.transforms": ["FillMissingValues"],
    }.items():
        loaded = importlib.import_module(module)
        assert all(hasattr(loaded, name) for name in names), (module, [n for n in names if not hasattr(loaded, n)])
