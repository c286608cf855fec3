"""``ResolveChoice`` and ``Unbox`` (upstream ``awsglue.transforms.ResolveChoice`` / ``Unbox``)."""

from __future__ import annotations

from typing import Any

from glueball.runtime.transforms.base import GlueTransform


class ResolveChoice(GlueTransform):
    """Resolves choice types (fields seen with more than one type) in a DynamicFrame.

    ``specs`` is a list of ``(path, action)``; ``choice`` one action for every other choice column. Actions:
    ``cast:<type>``, ``project:<type>``, ``make_cols``, ``make_struct``, ``match_catalog`` (with
    ``database`` and ``table_name``).
    """

    def __call__(self, frame: Any, specs: list[tuple[str, str]] | None = None, choice: str = "",
                 database: str | None = None, table_name: str | None = None, transformation_ctx: str = "",
                 info: str = "", stageThreshold: int = 0, totalThreshold: int = 0,  # noqa: N803
                 catalog_id: str | None = None) -> Any:
        return frame.resolveChoice(specs, choice, database, table_name, transformation_ctx, info,
                                   stageThreshold, totalThreshold, catalog_id)

    @classmethod
    def describeArgs(cls) -> list[dict[str, Any]]:  # noqa: N802
        return [
            {"name": "frame", "type": "DynamicFrame", "description": "The DynamicFrame on which to resolve the "
             "choice type", "optional": False, "defaultValue": None},
            {"name": "specs", "type": "List", "description": "List of specs (path, action)", "optional": True,
             "defaultValue": None},
            {"name": "choice", "type": "String", "description": "resolve choice option", "optional": True,
             "defaultValue": ""},
            {"name": "database", "type": "String", "description": "Glue catalog database name, required for "
             "MATCH_CATALOG choice", "optional": True, "defaultValue": None},
            {"name": "table_name", "type": "String", "description": "Glue catalog table name, required for "
             "MATCH_CATALOG choice", "optional": True, "defaultValue": None},
            *_COMMON_ARGS,
        ]

    @classmethod
    def describeReturn(cls) -> dict[str, Any]:  # noqa: N802
        return {"type": "DynamicFrame", "description": "DynamicFrame after resolving choice type"}


class Unbox(GlueTransform):
    """Unboxes (parses) a string field of a DynamicFrame into a struct (format ``json`` or ``csv``)."""

    def __call__(self, frame: Any, path: str, format: str, transformation_ctx: str = "",  # noqa: A002
                 info: str = "", stageThreshold: int = 0, totalThreshold: int = 0,  # noqa: N803
                 **options: Any) -> Any:
        return frame.unbox(path, format, transformation_ctx, info, stageThreshold, totalThreshold, **options)

    @classmethod
    def describeArgs(cls) -> list[dict[str, Any]]:  # noqa: N802
        return [
            {"name": "frame", "type": "DynamicFrame", "description": "The DynamicFrame on which to call Unbox",
             "optional": False, "defaultValue": None},
            {"name": "path", "type": "String", "description": "full path to the StringNode to unbox",
             "optional": False, "defaultValue": None},
            {"name": "format", "type": "String", "description": "file format -- currently only csv/json",
             "optional": True, "defaultValue": None},
            *_COMMON_ARGS,
            {"name": "separator", "type": "String", "description": "separator token", "optional": True,
             "defaultValue": None},
            {"name": "escaper", "type": "String", "description": "escape token", "optional": True,
             "defaultValue": None},
            {"name": "withSchema", "type": "String", "description": "schema of the data (StructType.json)",
             "optional": True, "defaultValue": None},
        ]

    @classmethod
    def describeReturn(cls) -> dict[str, Any]:  # noqa: N802
        return {"type": "DynamicFrame", "description": "new DynamicFrame with unboxed DynamicRecords"}


_COMMON_ARGS: list[dict[str, Any]] = [
    {"name": "transformation_ctx", "type": "String", "description": "A unique string that is used to identify "
     "stats / state information", "optional": True, "defaultValue": ""},
    {"name": "info", "type": "String", "description": "Any string to be associated with errors in the "
     "transformation", "optional": True, "defaultValue": "\"\""},
    {"name": "stageThreshold", "type": "Integer", "description": "Max number of errors in the transformation "
     "until processing will error out", "optional": True, "defaultValue": "0"},
    {"name": "totalThreshold", "type": "Integer", "description": "Max number of errors total until processing "
     "will error out.", "optional": True, "defaultValue": "0"},
]
