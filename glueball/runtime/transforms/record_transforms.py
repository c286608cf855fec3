"""Record and collection transforms (upstream ``awsglue.transforms``): Filter, Map, Join, Union,
Spigot, FlatMap, SelectFromCollection, MapToCollection, Repartition, Coalesce, ErrorsAsDynamicFrame.

Each class keeps upstream's ``__call__`` parameters and delegates to the ``DynamicFrame`` or
``DynamicFrameCollection`` method of the same behaviour.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from glueball.runtime.errors import GlueRuntimeError
from glueball.runtime.transforms.base import GlueTransform


def _arg(name: str, type_: str, description: str, optional: bool = False, default: Any = None) -> dict[str, Any]:
    return {"name": name, "type": type_, "description": description, "optional": optional,
            "defaultValue": default}


def _error_args() -> list[dict[str, Any]]:
    return [
        _arg("transformation_ctx", "String", "A unique string identifying state information", True, ""),
        _arg("info", "String", "A string associated with errors in the transformation", True, ""),
        _arg("stageThreshold", "Integer", "Errors allowed in this transformation before it fails", True, 0),
        _arg("totalThreshold", "Integer", "Errors allowed up to and including this transformation", True, 0),
    ]


class Filter(GlueTransform):
    """Builds a new DynamicFrame with the records of the input for which a predicate is true."""

    def __call__(self, frame: Any, f: Callable[[Any], Any], transformation_ctx: str = "", info: str = "",
                 stageThreshold: int = 0, totalThreshold: int = 0) -> Any:  # noqa: N803
        return frame.filter(f, transformation_ctx, info, stageThreshold, totalThreshold)

    @classmethod
    def describeArgs(cls) -> list[dict[str, Any]]:  # noqa: N802
        return [_arg("frame", "DynamicFrame", "The DynamicFrame to filter"),
                _arg("f", "Function", "Predicate taking a DynamicRecord, True to keep it"), *_error_args()]


class Map(GlueTransform):
    """Builds a new DynamicFrame by applying a function to every record of the input."""

    def __call__(self, frame: Any, f: Callable[[Any], Any], preservesPartitioning: bool = False,  # noqa: N803
                 transformation_ctx: str = "", info: str = "", stageThreshold: int = 0,  # noqa: N803
                 totalThreshold: int = 0) -> Any:  # noqa: N803
        return frame.map(f, preservesPartitioning, transformation_ctx, info, stageThreshold, totalThreshold)

    @classmethod
    def describeArgs(cls) -> list[dict[str, Any]]:  # noqa: N802
        return [_arg("frame", "DynamicFrame", "The DynamicFrame to map"),
                _arg("f", "Function", "Function taking a DynamicRecord and returning the new record"),
                _arg("preservesPartitioning", "Boolean", "Whether the partitioning is preserved", True, False),
                *_error_args()]


class Join(GlueTransform):
    """Performs an equality join on two DynamicFrames."""

    def __call__(self, frame1: Any, frame2: Any, keys1: list[str], keys2: list[str],
                 transformation_ctx: str = "") -> Any:
        return frame1.join(keys1, keys2, frame2, transformation_ctx)

    @classmethod
    def describeArgs(cls) -> list[dict[str, Any]]:  # noqa: N802
        return [_arg("frame1", "DynamicFrame", "The first DynamicFrame to join"),
                _arg("frame2", "DynamicFrame", "The second DynamicFrame to join"),
                _arg("keys1", "List[String]", "The keys of the first frame"),
                _arg("keys2", "List[String]", "The keys of the second frame"),
                _arg("transformation_ctx", "String", "A unique string identifying state information", True, "")]


class Union(GlueTransform):
    """Union of two DynamicFrames: every record of both, fields matched by name."""

    def __call__(self, frame1: Any, frame2: Any, transformation_ctx: str = "", info: str = "",
                 stageThreshold: int = 0, totalThreshold: int = 0) -> Any:  # noqa: N803
        return frame1.union(frame2, transformation_ctx, info, stageThreshold, totalThreshold)

    @classmethod
    def describeArgs(cls) -> list[dict[str, Any]]:  # noqa: N802
        return [_arg("frame1", "DynamicFrame", "First DynamicFrame to union"),
                _arg("frame2", "DynamicFrame", "Second DynamicFrame to union"), *_error_args()]


class Spigot(GlueTransform):
    """Writes sample records to a destination to help verify the transformations of a job."""

    def __call__(self, frame: Any, path: str, options: Mapping[str, Any] | str | None = None,
                 transformation_ctx: str = "") -> Any:
        if isinstance(options, str):
            try:
                options = json.loads(options) if options.strip() else {}
            except json.JSONDecodeError as exc:
                raise GlueRuntimeError(f"Spigot options are not JSON: {options!r}") from exc
        return frame.spigot(path, options or {}, transformation_ctx)

    @classmethod
    def describeArgs(cls) -> list[dict[str, Any]]:  # noqa: N802
        return [_arg("frame", "DynamicFrame", "The DynamicFrame to sample"),
                _arg("path", "String", "Where to write the sample"),
                _arg("options", "Json", "topk: the first k records; prob: the chance of picking a record", True),
                _arg("transformation_ctx", "String", "A unique string identifying state information", True, "")]


class SelectFromCollection(GlueTransform):
    """Selects one DynamicFrame of a DynamicFrameCollection."""

    def __call__(self, dfc: Any, key: str, transformation_ctx: str = "") -> Any:
        return dfc.select(key, transformation_ctx)

    @classmethod
    def describeArgs(cls) -> list[dict[str, Any]]:  # noqa: N802
        return [_arg("dfc", "DynamicFrameCollection", "The collection to select from"),
                _arg("key", "String", "The name of the DynamicFrame to select"),
                _arg("transformation_ctx", "String", "A unique string identifying state information", True, "")]


class MapToCollection(GlueTransform):
    """Applies a function to each DynamicFrame of a DynamicFrameCollection."""

    def __call__(self, dfc: Any, callable: Callable[[Any, str], Any],  # noqa: A002
                 transformation_ctx: str = "") -> Any:
        return dfc.map(callable, transformation_ctx)

    @classmethod
    def describeArgs(cls) -> list[dict[str, Any]]:  # noqa: N802
        return [_arg("dfc", "DynamicFrameCollection", "The collection to map"),
                _arg("callable", "Callable", "Called with each DynamicFrame and a transformation context"),
                _arg("transformation_ctx", "String", "A unique string identifying state information", True, "")]

    @classmethod
    def describeReturn(cls) -> dict[str, Any]:  # noqa: N802
        return {"type": "DynamicFrameCollection"}


class FlatMap(GlueTransform):
    """Applies a transform to each DynamicFrame of a collection and flattens the results into one collection.

    ``BaseTransform`` is a transform class (its ``apply`` is called with ``frame_name=<frame>``,
    ``transformation_ctx`` and ``base_kwargs``) or any callable taking those keywords. A
    result that is a collection contributes its frames under their own names.
    """

    def __call__(self, dfc: Any, BaseTransform: Any, frame_name: str = "frame",  # noqa: N803
                 transformation_ctx: str = "", **base_kwargs: Any) -> Any:
        target = BaseTransform.apply if hasattr(BaseTransform, "apply") else BaseTransform

        def apply_inner(frame: Any, ctx: str) -> Any:
            return target(**{**base_kwargs, frame_name: frame, "transformation_ctx": ctx})

        return dfc.flatmap(apply_inner, transformation_ctx)

    @classmethod
    def describeArgs(cls) -> list[dict[str, Any]]:  # noqa: N802
        return [_arg("dfc", "DynamicFrameCollection", "The collection to flatmap over"),
                _arg("BaseTransform", "GlueTransform", "The transform applied to each frame"),
                _arg("frame_name", "String", "The argument name that receives each frame"),
                _arg("transformation_ctx", "String", "A unique string identifying state information", True, ""),
                _arg("base_kwargs", "dict", "Further arguments of the transform", True, {})]

    @classmethod
    def describeReturn(cls) -> dict[str, Any]:  # noqa: N802
        return {"type": "DynamicFrameCollection"}


class Repartition(GlueTransform):
    """Repartitions a DynamicFrame into num_partitions partitions (a shuffle)."""

    def __call__(self, frame: Any, num_partitions: int, transformation_ctx: str = "", info: str = "",
                 stageThreshold: int = 0, totalThreshold: int = 0) -> Any:  # noqa: N803
        return frame.repartition(num_partitions, transformation_ctx, info, stageThreshold, totalThreshold)

    @classmethod
    def describeArgs(cls) -> list[dict[str, Any]]:  # noqa: N802
        return [_arg("frame", "DynamicFrame", "The DynamicFrame to repartition"),
                _arg("num_partitions", "Integer", "The number of partitions"), *_error_args()]


class Coalesce(GlueTransform):
    """Reduces a DynamicFrame to num_partitions partitions, without a shuffle unless asked."""

    def __call__(self, frame: Any, num_partitions: int, shuffle: bool = False, transformation_ctx: str = "",
                 info: str = "", stageThreshold: int = 0, totalThreshold: int = 0) -> Any:  # noqa: N803
        return frame.coalesce(num_partitions, shuffle, transformation_ctx, info, stageThreshold, totalThreshold)

    @classmethod
    def describeArgs(cls) -> list[dict[str, Any]]:  # noqa: N802
        return [_arg("frame", "DynamicFrame", "The DynamicFrame to coalesce"),
                _arg("num_partitions", "Integer", "The number of partitions"),
                _arg("shuffle", "Boolean", "Whether to shuffle", True, False), *_error_args()]


class ErrorsAsDynamicFrame(GlueTransform):
    """Returns the error records of a DynamicFrame (and of the frames it came from) as a DynamicFrame."""

    def __call__(self, frame: Any) -> Any:
        return frame.errorsAsDynamicFrame()

    @classmethod
    def describeArgs(cls) -> list[dict[str, Any]]:  # noqa: N802
        return [_arg("frame", "DynamicFrame", "The DynamicFrame whose error records to return")]


__all__ = ["Coalesce", "ErrorsAsDynamicFrame", "Filter", "FlatMap", "Join", "Map", "MapToCollection",
           "Repartition", "SelectFromCollection", "Spigot", "Union"]
