"""Glue Studio's Detect Sensitive Data (``PIIDetection`` node) with regular expressions per entity type.

Glue detects PII with trained recognisers; glueball uses one regular expression per entity type
(:data:`ENTITY_PATTERNS`), applied to the text of every string column. What is done with a match
depends on the node's ``PiiType``:

- ``RowAudit``: a column (``OutputColumnName``, ``DetectedEntities`` by default) maps each column
  with PII in that row to the entity types found there; the data is unchanged.
- ``RowMasking``: each match is replaced by ``MaskValue`` (``*******`` by default).
- ``RowHashing``: a cell with a match is replaced by its SHA-256.
- ``ColumnMasking`` / ``ColumnHashing``: a column where at least ``ThresholdFraction`` (0.1) of the
  rows sampled (``SampleFraction``, 1.0) match is masked or hashed whole.

All of it is Spark SQL expressions (no Python per row).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import StringType

from glueball.runtime.pii_entities import PII_TYPES, PiiDetectionError, entity_patterns


def _text_columns(df: DataFrame) -> list[str]:
    return [f.name for f in df.schema.fields if isinstance(f.dataType, StringType)]


def _any_match(column: Column, patterns: dict[str, str]) -> Column:
    return functools.reduce(lambda a, b: a | b, [column.rlike(p) for p in patterns.values()])


def detect_pii(df: DataFrame, pii_type: str, entity_types: Sequence[str], output_column: str = "DetectedEntities",
               mask_value: str = "*******", sample_fraction: float = 1.0,
               threshold_fraction: float = 0.1) -> DataFrame:
    """``df`` with its PII detected, masked or hashed as ``pii_type`` says (see the module's text).

    Raises:
        PiiDetectionError: an unknown PII type or entity type.
    """
    if pii_type not in PII_TYPES:
        raise PiiDetectionError(f"PIIDetection: PiiType {pii_type} is not supported by glueball "
                                f"({', '.join(PII_TYPES)})")
    patterns = entity_patterns(entity_types)
    texts = _text_columns(df)
    if pii_type == "RowAudit":
        found = {c: F.filter(F.array(*[F.when(F.col(f"`{c}`").rlike(p), F.lit(e)) for e, p in patterns.items()]),
                             lambda x: x.isNotNull()) for c in texts}
        pairs = [item for c, types in found.items() for item in (F.lit(c), types)]
        audit = F.map_filter(F.create_map(*pairs), lambda _, v: F.size(v) > 0) if pairs else F.create_map()
        return df.withColumn(output_column, audit)
    if pii_type in ("RowMasking", "RowHashing"):
        replaced = {}
        for c in texts:
            column = F.col(f"`{c}`")
            if pii_type == "RowMasking":
                for pattern in patterns.values():
                    column = F.regexp_replace(column, pattern, mask_value.replace("\\", "\\\\").replace("$", "\\$"))
                replaced[c] = column
            else:
                replaced[c] = F.when(_any_match(column, patterns), F.sha2(column, 256)).otherwise(column)
        return df.withColumns(replaced) if replaced else df
    sample = df if sample_fraction >= 1.0 else df.sample(fraction=sample_fraction, seed=17)
    counts = sample.select(F.count(F.lit(1)).alias("__rows"),
                           *[F.count(F.when(_any_match(F.col(f"`{c}`"), patterns), 1)).alias(c) for c in texts]
                           ).first()
    rows = counts["__rows"] if counts else 0
    sensitive = [c for c in texts if rows and counts is not None and counts[c] / rows >= threshold_fraction]
    if pii_type == "ColumnMasking":
        return df.withColumns({c: F.when(F.col(f"`{c}`").isNotNull(), F.lit(mask_value)) for c in sensitive})
    return df.withColumns({c: F.sha2(F.col(f"`{c}`"), 256) for c in sensitive})
