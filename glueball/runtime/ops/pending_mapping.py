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

from glueball.runtime.io.csvtypes import column_kinds, direct_cast, typed_column
from glueball.runtime.ops.mapping import declared_type, mapping_projection, parse_mapping
from glueball.runtime.ops.paths import parse_path, resolve_path, select_as

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame

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
