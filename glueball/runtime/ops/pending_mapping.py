"""ApplyMapping over a frame whose typing is pending (a raw CSV read): the inference pass skipped.

Each mapping whose source is a top-level pending column and whose target type
``direct_cast`` supports reads the raw text and converts it in the mapping's one
projection. Sources mapped to other targets (``string``, ``date``, the type kept)
need their column's kinds: one aggregation over those columns only, instead of
typing every column of the frame. The mapping itself (nesting, renames, missing
sources) is ``mapping_projection``'s, over a source frame of one column per mapping.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from glueball.runtime.io.csvtypes import as_type, column_kinds, column_ref, is_long, is_number, typed_column
from glueball.runtime.ops.mapping import convert, declared_type, mapping_projection, parse_mapping
from glueball.runtime.ops.paths import parse_path, resolve_path, select_as

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame
    from pyspark.sql.types import DataType

    from glueball.runtime.dynamicframe import DynamicFrame
    from glueball.runtime.pending import PendingTyping

_SOURCE = "__glueball_source{}"


def pending_mapping(pending: PendingTyping, mappings: Sequence[Sequence[str]],
                    case_sensitive: bool) -> DataFrame | None:
    """ApplyMapping's result over ``pending``'s raw records, equal to mapping the eagerly typed frame.

    Returns None when a mapping's source is nested (``a.b``, ``items[]``): the caller then types the
    frame and maps it as usual.
    """
    specs = [parse_mapping(m) for m in mappings]
    raw = pending.raw
    schema = raw.schema
    sources: list[tuple[str, str, Column | None]] = []  # (new name, raw column, value; None: typed by kinds)
    kinds_needed: list[str] = []
    rewritten: list[tuple[str, str, str, str]] = []
    for index, spec in enumerate(specs):
        segments = parse_path(spec.source)
        if len(segments) != 1 or segments[0].array:
            return None
        resolved = resolve_path(schema, segments, case_sensitive)
        name = resolved.steps[0] if resolved is not None else None
        source_name = spec.source if name is None else _SOURCE.format(index)
        rewritten.append((source_name, spec.source_type or "", spec.target, spec.target_type or ""))
        if name is None:
            continue  # no such field: the mapping yields nulls, as over the typed frame
        if name not in pending.columns:
            sources.append((source_name, name, _ref(name)))
            continue
        target = declared_type(spec.target_type)
        value = direct_cast(name, target) if target is not None else None
        if value is None:
            kinds_needed.append(name)
        sources.append((source_name, name, value))
    kinds = column_kinds(raw, list(dict.fromkeys(kinds_needed)))
    columns = [(value if value is not None else typed_column(name, kinds[name])).alias(source_name)
               for source_name, name, value in sources]
    source = raw.select(*columns)
    # every source column is named exactly, so the match is case-sensitive
    return select_as(source, mapping_projection(source.schema, rewritten, case_sensitive=True))


def _ref(name: str) -> Column:
    from pyspark.sql import functions as F

    return F.col(f"`{name.replace('`', '``')}`")


def direct_cast(name: str, target: DataType) -> Column | None:
    """Text column ``name`` converted to ``target`` as ApplyMapping converts its typed value, with no pass.

    Whatever kinds the column holds, a value that reads as a long is converted from that long, one
    that reads as a double from the double, and text from the text (``double`` and ``float``: every
    value from the text's double); that equals converting the eagerly typed column for these targets
    with two exceptions, both about values eagerly typed by their column's kinds: a long beyond 2**53
    in a column that also holds fractions converts exactly (eagerly it went through a double first),
    and ``-0`` in a column of longs becomes ``-0.0`` as a double or float (eagerly ``0.0``, which
    compares equal). None for targets whose value depends on the column's kinds (``string``: ``007``
    is ``7`` in a long column, ``7.0`` in a double one), that numbers do not convert to, or kept types.
    """
    from pyspark.sql import functions as F
    from pyspark.sql import types as st

    direct = (st.ByteType, st.ShortType, st.IntegerType, st.LongType, st.FloatType, st.DoubleType, st.DecimalType,
              st.TimestampType, st.BooleanType)
    if not isinstance(target, direct):
        return None
    text = column_ref(name)
    if isinstance(target, st.DoubleType | st.FloatType):
        # a number's double is the text's double (a long within 2**53 is exact): one cast serves every kind
        return convert(convert(text, st.StringType(), st.DoubleType()), st.DoubleType(), target)
    return (F.when(is_long(name), convert(as_type(name, "bigint"), st.LongType(), target))
            .when(is_number(name), convert(as_type(name, "double"), st.DoubleType(), target))
            .otherwise(convert(text, st.StringType(), target)))


def apply_mapping(frame: DynamicFrame, mappings: Sequence[Sequence[str]], case_sensitive: bool = False,
                  transformation_ctx: str = "", stage_threshold: int = 0, total_threshold: int = 0) -> DynamicFrame:
    """ApplyMapping: select, rename, retype and restructure fields in one projection.

    Mirrors Glue: only the mapped fields are kept; a nested source (``address.city``,
    ``items[].price``) is read through structs and arrays; a dotted target
    (``customer.name``) builds structs and ``out[].x`` builds arrays of structs; names
    with dots are back-quoted; sources match case-insensitively unless
    ``case_sensitive``; values that do not convert become null (not errors); a source
    that is not there gives a null target; a choice source is cast to the target type.
    Over a raw CSV read whose typing is pending, top-level sources are converted from
    their text without the inference pass (:func:`pending_mapping`).
    """
    if isinstance(mappings, tuple) and mappings and isinstance(mappings[0], str):
        mappings = [mappings]
    pending = frame.pending_typing
    if pending is not None:
        mapped = pending_mapping(pending, mappings, case_sensitive)
        if mapped is not None:
            return frame.derive(mapped, transformation_ctx=transformation_ctx, stage_threshold=stage_threshold,
                                total_threshold=total_threshold)
    columns = mapping_projection(frame._df.schema, mappings, case_sensitive)
    return frame.derive(select_as(frame._df, columns), transformation_ctx=transformation_ctx,
                        stage_threshold=stage_threshold, total_threshold=total_threshold)
