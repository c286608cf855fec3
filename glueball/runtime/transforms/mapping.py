"""Field transforms with upstream's class names and call signatures (``awsglue.transforms``).

``ApplyMapping.apply(frame=..., mappings=[...])`` and friends delegate to the
DynamicFrame methods, which run the lazy DataFrame operations in
``glueball.runtime.ops``. ``FillMissingValues`` is upstream's
``awsglueml.transforms.FillMissingValues``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

from glueball.runtime.transforms.base import GlueTransform

if TYPE_CHECKING:
    from glueball.runtime.dynamicframe import DynamicFrame, DynamicFrameCollection

__all__ = [
    "ApplyMapping",
    "DropFields",
    "DropNullFields",
    "FillMissingValues",
    "Relationalize",
    "RenameField",
    "SelectFields",
    "SplitFields",
    "SplitRows",
    "UnnestFrame",
]


def _arg(name: str, type_: str, description: str, optional: bool = True, default: Any = None) -> dict[str, Any]:
    return {"name": name, "type": type_, "description": description, "optional": optional,
            "defaultValue": default}


def _common_args() -> list[dict[str, Any]]:
    return [
        _arg("transformation_ctx", "String", "A unique string that is used to identify stats / state information",
             default=""),
        _arg("info", "String", "Any string to be associated with errors in the transformation", default='""'),
        _arg("stageThreshold", "Integer", "Max number of errors in the transformation until processing will error out",
             default="0"),
        _arg("totalThreshold", "Integer", "Max number of errors total until processing will error out.",
             default="0"),
    ]


def _frame_arg(description: str) -> dict[str, Any]:
    return _arg("frame", "DynamicFrame", description, optional=False)


class ApplyMapping(GlueTransform):
    """Apply a declarative mapping to a DynamicFrame: keep, rename, retype and restructure fields."""

    def __call__(self, frame: DynamicFrame, mappings: Sequence[Sequence[str]], case_sensitive: bool = False,
                 transformation_ctx: str = "", info: str = "", stageThreshold: int = 0,  # noqa: N803
                 totalThreshold: int = 0) -> DynamicFrame:  # noqa: N803
        return frame.apply_mapping(cast("list[tuple[str, ...]]", mappings), case_sensitive, transformation_ctx, info,
                                   stageThreshold, totalThreshold)

    @classmethod
    def describeArgs(cls) -> list[dict[str, Any]]:  # noqa: N802
        return [_frame_arg("DynamicFrame to transform"),
                _arg("mappings", "List[Tuple]", "(source path, source type, target path, target type) tuples",
                     optional=False),
                _arg("case_sensitive", "Boolean", "Whether source paths match case-sensitively", default="False"),
                *_common_args()]

    @classmethod
    def describeReturn(cls) -> dict[str, Any]:  # noqa: N802
        return {"type": "DynamicFrame", "description": "DynamicFrame after applying mappings"}


class RenameField(GlueTransform):
    """Rename a node within a DynamicFrame."""

    def __call__(self, frame: DynamicFrame, old_name: str, new_name: str, transformation_ctx: str = "",
                 info: str = "", stageThreshold: int = 0, totalThreshold: int = 0) -> DynamicFrame:  # noqa: N803
        return frame.rename_field(old_name, new_name, transformation_ctx, info, stageThreshold, totalThreshold)

    @classmethod
    def describeArgs(cls) -> list[dict[str, Any]]:  # noqa: N802
        return [_frame_arg("The DynamicFrame on which to rename a field"),
                _arg("old_name", "String", "Full path to the node to rename", optional=False),
                _arg("new_name", "String", "New name, including full path", optional=False),
                *_common_args()]

    @classmethod
    def describeReturn(cls) -> dict[str, Any]:  # noqa: N802
        return {"type": "DynamicFrame", "description": "new DynamicFrame with indicated field renamed"}


class DropFields(GlueTransform):
    """Drop fields from a DynamicFrame."""

    def __call__(self, frame: DynamicFrame, paths: Sequence[str], transformation_ctx: str = "", info: str = "",
                 stageThreshold: int = 0, totalThreshold: int = 0) -> DynamicFrame:  # noqa: N803
        return frame.drop_fields(_as_list(paths), transformation_ctx, info, stageThreshold, totalThreshold)

    @classmethod
    def describeArgs(cls) -> list[dict[str, Any]]:  # noqa: N802
        return [_frame_arg("The DynamicFrame from which to drop fields"),
                _arg("paths", "List[String]", "full paths corresponding to nodes to drop", optional=False),
                *_common_args()]

    @classmethod
    def describeReturn(cls) -> dict[str, Any]:  # noqa: N802
        return {"type": "DynamicFrame", "description": "new DynamicFrame without indicated fields"}


class SelectFields(GlueTransform):
    """Select fields from a DynamicFrame."""

    def __call__(self, frame: DynamicFrame, paths: Sequence[str], transformation_ctx: str = "", info: str = "",
                 stageThreshold: int = 0, totalThreshold: int = 0) -> DynamicFrame:  # noqa: N803
        return frame.select_fields(_as_list(paths), transformation_ctx, info, stageThreshold, totalThreshold)

    @classmethod
    def describeArgs(cls) -> list[dict[str, Any]]:  # noqa: N802
        return [_frame_arg("The DynamicFrame from which to select fields"),
                _arg("paths", "List[String]", "full paths corresponding to nodes to select", optional=False),
                *_common_args()]

    @classmethod
    def describeReturn(cls) -> dict[str, Any]:  # noqa: N802
        return {"type": "DynamicFrame", "description": "new DynamicFrame with only indicated fields"}


class SplitFields(GlueTransform):
    """Split fields within a DynamicFrame into two DynamicFrames."""

    def __call__(self, frame: DynamicFrame, paths: Sequence[str], name1: str | None = None,
                 name2: str | None = None, transformation_ctx: str = "", info: str = "",
                 stageThreshold: int = 0, totalThreshold: int = 0) -> DynamicFrameCollection:  # noqa: N803
        frame_name = frame.name or "frame"
        return frame.split_fields(_as_list(paths), name1 if name1 is not None else f"{frame_name}1",
                                  name2 if name2 is not None else f"{frame_name}2", transformation_ctx, info,
                                  stageThreshold, totalThreshold)

    @classmethod
    def describeArgs(cls) -> list[dict[str, Any]]:  # noqa: N802
        return [_frame_arg("DynamicFrame from which to split fields"),
                _arg("paths", "List[String]", "full paths corresponding to nodes to split into new DynamicFrame",
                     optional=False),
                _arg("frame1", "String", "name for the dynamic frame to be split off", default="frame1"),
                _arg("frame2", "String", "name for the dynamic frame remains on original", default="frame2"),
                *_common_args()]

    @classmethod
    def describeReturn(cls) -> dict[str, Any]:  # noqa: N802
        return {"type": "DynamicFrameCollection",
                "description": "[new DynamicFrame with only indicated fields, new DynamicFrame without indicated "
                               "fields]"}


class SplitRows(GlueTransform):
    """Split rows within a DynamicFrame by comparisons of field values."""

    def __call__(self, frame: DynamicFrame, comparison_dict: Mapping[str, Mapping[str, Any]],
                 name1: str = "frame1", name2: str = "frame2", transformation_ctx: str = "",
                 info: str | None = None, stageThreshold: int = 0,  # noqa: N803
                 totalThreshold: int = 0) -> DynamicFrameCollection:  # noqa: N803
        return frame.split_rows(comparison_dict, name1, name2, transformation_ctx, info or "", stageThreshold,
                                totalThreshold)

    @classmethod
    def describeArgs(cls) -> list[dict[str, Any]]:  # noqa: N802
        return [_frame_arg("DynamicFrame from which to split rows"),
                _arg("comparison_dict", "Dictionary, {String 'path to node': {String 'operator': value}}",
                     "{paths to columns: {comparators: value to which each the column will be compared.}}",
                     optional=False),
                _arg("frame1", "String", "name for the dynamic frame to be split off", default="frame1"),
                _arg("frame2", "String", "name for the dynamic frame remains on original", default="frame2"),
                *_common_args()]

    @classmethod
    def describeReturn(cls) -> dict[str, Any]:  # noqa: N802
        return {"type": "DynamicFrameCollection",
                "description": "[DynamicFrame with rows meeting the comparisons, DynamicFrame with the rest]"}


class UnnestFrame(GlueTransform):
    """Unnest a DynamicFrame: flatten nested objects to top-level elements."""

    def __call__(self, frame: DynamicFrame, transformation_ctx: str = "", info: str = "",
                 stageThreshold: int = 0, totalThreshold: int = 0) -> DynamicFrame:  # noqa: N803
        return frame.unnest(transformation_ctx, info, stageThreshold, totalThreshold)

    @classmethod
    def describeArgs(cls) -> list[dict[str, Any]]:  # noqa: N802
        return [_frame_arg("The DynamicFrame to unnest"), *_common_args()]

    @classmethod
    def describeReturn(cls) -> dict[str, Any]:  # noqa: N802
        return {"type": "DynamicFrame", "description": "new unnested DynamicFrame"}


class Relationalize(GlueTransform):
    """Flatten nested schema and pivot out array columns from the flattened frame."""

    def __call__(self, frame: DynamicFrame, staging_path: str | None = None, name: str = "roottable",
                 options: Mapping[str, Any] | None = None, transformation_ctx: str = "", info: str = "",
                 stageThreshold: int = 0, totalThreshold: int = 0) -> DynamicFrameCollection:  # noqa: N803
        if staging_path is None:
            staging_path = _temp_dir()
        return frame.relationalize(name, staging_path, options or {}, transformation_ctx, info, stageThreshold,
                                   totalThreshold)

    @classmethod
    def describeArgs(cls) -> list[dict[str, Any]]:  # noqa: N802
        return [_frame_arg("The DynamicFrame to relationalize"),
                _arg("staging_path", "String", "path to store partitions of pivoted tables in csv format"),
                _arg("name", "String", "Name of the root table", default="roottable"),
                _arg("options", "Dictionary", "dict of optional parameters for relationalize", default="{}"),
                *_common_args()]

    @classmethod
    def describeReturn(cls) -> dict[str, Any]:  # noqa: N802
        return {"type": "DynamicFrameCollection",
                "description": "DynamicFrameCollection resulting from Relationalize call"}


class DropNullFields(GlueTransform):
    """Drop all null fields in this DynamicFrame."""

    def __call__(self, frame: DynamicFrame, transformation_ctx: str = "", info: str = "",
                 stageThreshold: int = 0, totalThreshold: int = 0) -> DynamicFrame:  # noqa: N803
        return frame.drop_nulls(transformation_ctx, info, stageThreshold, totalThreshold)

    @classmethod
    def describeArgs(cls) -> list[dict[str, Any]]:  # noqa: N802
        return [_frame_arg("Drop all null fields in this DynamicFrame"), *_common_args()]

    @classmethod
    def describeReturn(cls) -> dict[str, Any]:  # noqa: N802
        return {"type": "DynamicFrame", "description": "DynamicFrame without null fields."}


class FillMissingValues(GlueTransform):
    """Fill null and empty values of a column into a new column (upstream ``awsglueml.transforms``).

    Glue trains a model to predict the missing values; glueball fills the mean of
    the present values for numbers and the most frequent present value otherwise.
    """

    def __call__(self, frame: DynamicFrame, missing_values_column: str, output_column: str = "",
                 transformation_ctx: str = "", info: str = "", stageThreshold: int = 0,  # noqa: N803
                 totalThreshold: int = 0) -> DynamicFrame:  # noqa: N803
        from glueball.runtime.ops.null_fields import fill_missing_values

        return fill_missing_values(frame, missing_values_column, output_column, transformation_ctx, stageThreshold,
                                   totalThreshold)

    @classmethod
    def describeArgs(cls) -> list[dict[str, Any]]:  # noqa: N802
        return [_frame_arg("The DynamicFrame in which to fill missing values"),
                _arg("missing_values_column", "String", "The column with missing values (nulls and empty strings)",
                     optional=False),
                _arg("output_column", "String", "The new column; default <missing_values_column>_filled",
                     default=""),
                *_common_args()]


def _as_list(paths: str | Sequence[str]) -> list[str]:
    return [paths] if isinstance(paths, str) else list(paths)


def _temp_dir() -> str:
    """Upstream falls back to the job's ``--TempDir``; without one, a directory under GLUEBALL_HOME."""
    import sys

    from glueball.config import default_home

    argv = sys.argv
    for i, arg in enumerate(argv[:-1]):
        if arg in ("--TempDir", "--TempDir="):
            return argv[i + 1]
    for arg in argv:
        if arg.startswith("--TempDir="):
            return arg.split("=", 1)[1]
    return str(default_home() / "tmp" / "relationalize")
