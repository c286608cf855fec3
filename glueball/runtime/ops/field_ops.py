"""Field transforms of DynamicFrames: RenameField, DropFields, SelectFields, SplitFields and SplitRows.

Each one is a lazy projection or filter of the frame's DataFrame built from Spark
expressions (``glueball.runtime.ops.paths``), never Python per record.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from glueball.runtime.errors import GlueRuntimeError
from glueball.runtime.ops.paths import (
    ResolvedPath,
    Segment,
    column_ref,
    drop_paths,
    get_field,
    keep_paths,
    modify_field,
    parse_path,
    read_resolved,
    resolve_path,
    select_as,
)

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame
    from pyspark.sql.types import DataType, StructType

    from glueball.runtime.dynamicframe import DynamicFrame, DynamicFrameCollection


def _paths_list(paths: str | Sequence[str]) -> list[str]:
    return [paths] if isinstance(paths, str) else list(paths)


def _resolve_all(schema: StructType, paths: Sequence[str]) -> list[ResolvedPath]:
    resolved = [resolve_path(schema, p) for p in paths]
    return [r for r in resolved if r is not None]


def rename_field(frame: DynamicFrame, old_name: str, new_name: str, transformation_ctx: str = "",
                 stage_threshold: int = 0, total_threshold: int = 0) -> DynamicFrame:
    """RenameField: rename the field at path ``old_name`` to path ``new_name``.

    As in Glue, ``new_name`` is the full new path: ``a.b`` → ``a.c`` renames inside
    struct ``a`` (order kept); a path under another parent moves the field there,
    creating structs as needed. A missing ``old_name`` leaves the frame unchanged.
    """
    schema = frame._df.schema
    resolved = resolve_path(schema, old_name)
    if resolved is None:
        return frame.derive(frame._df, transformation_ctx=transformation_ctx,
                            stage_threshold=stage_threshold, total_threshold=total_threshold)
    old_segments = parse_path(old_name)
    new_segments = parse_path(new_name)
    same_parent = (len(old_segments) == len(new_segments)
                   and [s.name.lower() for s in old_segments[:-1]] == [s.name.lower() for s in new_segments[:-1]])
    if same_parent:
        new_leaf = new_segments[-1].name
        columns = modify_field(schema, resolved, lambda column, _t, _n: [(new_leaf, column)])
        return frame.derive(select_as(frame._df, columns), transformation_ctx=transformation_ctx,
                            stage_threshold=stage_threshold, total_threshold=total_threshold)
    if resolved.through_arrays or any(s.array for s in new_segments):
        raise GlueRuntimeError(f"rename_field cannot move {old_name!r} to {new_name!r} across arrays")
    moved = select_as(frame._df, [*drop_paths(schema, [resolved]), ("__glueball_moved", read_resolved(resolved))])
    return frame.derive(_set_field(moved, new_segments, "__glueball_moved"), transformation_ctx=transformation_ctx,
                        stage_threshold=stage_threshold, total_threshold=total_threshold)


def _set_field(df: DataFrame, segments: Sequence[Segment], value_column: str) -> DataFrame:
    """``df`` with column ``value_column`` moved to the struct path ``segments`` (structs made as needed)."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import StructType

    value = column_ref(value_column)

    def place(struct: Column | None, struct_type: DataType | None, rest: Sequence[Segment]) -> Column:
        """The struct ``struct`` (None: a new one) with the field at ``rest`` set to the value."""
        name = rest[0].name
        existing = struct_type if isinstance(struct_type, StructType) else None
        if len(rest) == 1:
            inner = value
        else:
            child_type = existing[name].dataType if existing is not None and name in existing.fieldNames() else None
            child = struct.getField(name) if struct is not None and child_type is not None else None
            inner = place(child, child_type, rest[1:])
        kept = [] if existing is None or struct is None else [
            struct.getField(f.name).alias(f.name) for f in existing.fields if f.name != name]
        return F.struct(*kept, inner.alias(name))

    schema = df.schema
    top = segments[0].name
    others = [column_ref(f.name) for f in schema.fields if f.name not in (top, value_column)]
    if len(segments) == 1:
        return df.select(*others, value.alias(top))
    top_type = schema[top].dataType if top in schema.fieldNames() else None
    built = place(column_ref(top) if top_type is not None else None, top_type, segments[1:])
    return df.select(*others, built.alias(top))


def drop_fields(frame: DynamicFrame, paths: str | Sequence[str], transformation_ctx: str = "",
                stage_threshold: int = 0, total_threshold: int = 0) -> DynamicFrame:
    """DropFields: remove fields by path (nested through structs and arrays of structs).

    Paths that are not in the frame are ignored, as in Glue; a struct whose every
    field is dropped goes too.
    """
    schema = frame._df.schema
    resolved = _resolve_all(schema, _paths_list(paths))
    return frame.derive(select_as(frame._df, drop_paths(schema, resolved)), transformation_ctx=transformation_ctx,
                        stage_threshold=stage_threshold, total_threshold=total_threshold)


def select_fields(frame: DynamicFrame, paths: str | Sequence[str], transformation_ctx: str = "",
                  stage_threshold: int = 0, total_threshold: int = 0) -> DynamicFrame:
    """SelectFields: keep only the fields at ``paths``; nested paths keep the structs around them.

    Paths that are not in the frame are ignored, as in Glue.
    """
    schema = frame._df.schema
    resolved = _resolve_all(schema, _paths_list(paths))
    return frame.derive(select_as(frame._df, keep_paths(schema, resolved)), transformation_ctx=transformation_ctx,
                        stage_threshold=stage_threshold, total_threshold=total_threshold)




def split_fields(frame: DynamicFrame, paths: str | Sequence[str], name1: str, name2: str,
                 transformation_ctx: str = "", stage_threshold: int = 0,
                 total_threshold: int = 0) -> DynamicFrameCollection:
    """SplitFields: {name1: the fields at ``paths``, name2: every other field}."""
    schema = frame._df.schema
    resolved = _resolve_all(schema, _paths_list(paths))
    kw: dict[str, Any] = {"transformation_ctx": transformation_ctx, "stage_threshold": stage_threshold,
                          "total_threshold": total_threshold}
    selected = frame.derive(select_as(frame._df, keep_paths(schema, resolved)), name=name1, **kw)
    rest = frame.derive(select_as(frame._df, drop_paths(schema, resolved)), name=name2, **kw)
    return frame.collection({name1: selected, name2: rest})


_OPERATORS = {"=", "==", "!=", "<>", "<", ">", "<=", ">="}


def split_condition(schema: StructType, comparison_dict: Mapping[str, Mapping[str, Any]]) -> Column:
    """The condition of SplitRows: every comparison holds (null or a missing field: it does not)."""
    from pyspark.sql import functions as F

    condition = F.lit(True)
    for path, comparisons in comparison_dict.items():
        found = get_field(schema, path)
        for operator, value in comparisons.items():
            if operator not in _OPERATORS:
                raise GlueRuntimeError(f"split_rows: unknown operator {operator!r} for {path!r}; "
                                       f"use one of {sorted(_OPERATORS)}")
            if found is None:
                condition = F.lit(False)
                continue
            column = found[0]
            literal = F.lit(value)
            comparison = {"=": column == literal, "==": column == literal, "!=": column != literal,
                          "<>": column != literal, "<": column < literal, ">": column > literal,
                          "<=": column <= literal, ">=": column >= literal}[operator]
            condition = condition & comparison
    return F.coalesce(condition, F.lit(False))


def split_rows(frame: DynamicFrame, comparison_dict: Mapping[str, Mapping[str, Any]], name1: str, name2: str,
               transformation_ctx: str = "", stage_threshold: int = 0,
               total_threshold: int = 0) -> DynamicFrameCollection:
    """SplitRows: {name1: rows meeting every comparison, name2: the rest}.

    ``comparison_dict`` maps a field path to {operator: value}, operators ``=``, ``!=``,
    ``<``, ``>``, ``<=``, ``>=`` (e.g. ``{"age": {">": 10, "<": 20}}``). A row whose
    field is null or missing goes to ``name2``.
    """
    condition = split_condition(frame._df.schema, comparison_dict)
    kw: dict[str, Any] = {"transformation_ctx": transformation_ctx, "stage_threshold": stage_threshold,
                          "total_threshold": total_threshold}
    matching = frame.derive(frame._df.where(condition), name=name1, **kw)
    rest = frame.derive(frame._df.where(~condition), name=name2, **kw)
    return frame.collection({name1: matching, name2: rest})
