"""JSON documents into records with Glue's schema semantics: parsed once, typed when asked.

A document is parsed once into a VARIANT (``try_parse_json``; NULL means malformed, which
becomes an error record). Its records (the document, the elements of a top-level array,
or what ``jsonPath`` selects) are exploded into rows holding each record as a variant:
``JsonRecords.rows``. Nothing there needs the schema, and neither do the error records.
Typing the records needs the inference passes of ``glueball.runtime.inference``; a read
leaves them pending (``glueball.runtime.pending``) until the schema is needed, and a
transformation stating the types it wants reads the variants directly
(``glueball.runtime.io.jsontypes``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from glueball.runtime.errors import GlueRuntimeError, LazyErrors, error_schema
from glueball.runtime.inference import (
    ELEM,
    Branch,
    Seg,
    TypeNode,
    infer,
    is_object,
    record_columns,
    value_at,
    values_at,
)

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame



def _json_path_segments(json_path: str) -> tuple[list[Seg], bool]:
    """``$.a.b[*]`` -> ([a, b], True): the fields leading to the records and whether they are an array's items."""
    path = json_path.strip()
    if not path.startswith("$"):
        raise GlueRuntimeError(f"jsonPath {json_path!r} must start with '$'")
    path = path[1:]
    each = path.endswith("[*]")
    if each:
        path = path[:-3]
    segs: list[Seg] = []
    pos = 0
    while pos < len(path):
        if path[pos] == ".":
            end = pos + 1
            while end < len(path) and path[end] not in ".[":
                end += 1
            segs.append(("field", path[pos + 1:end]))
            pos = end
        elif path.startswith("['", pos) or path.startswith('["', pos):
            quote = path[pos + 1]
            end = path.find(quote + "]", pos + 2)
            if end < 0:
                raise GlueRuntimeError(f"Unclosed bracket in jsonPath {json_path!r}")
            segs.append(("field", path[pos + 2:end]))
            pos = end + 2
        else:
            raise GlueRuntimeError(f"Unsupported jsonPath {json_path!r}: only $.field, $['field'] and a final [*]")
    if any(not s[1] for s in segs):
        raise GlueRuntimeError(f"Empty field name in jsonPath {json_path!r}")
    return segs, each


RECORD = "__glueball_record"


@dataclass
class JsonRecords:
    """JSON documents parsed once into records still untyped: each record a variant, typed on demand.

    Attributes:
        rows: one row per record, the record as a variant in column ``RECORD`` plus the carried columns.
        lazy_errors: the error records (malformed documents, records that are not objects), built when first
            asked for; no inference needed.
        carried: the columns carried onto every record (partition values), typed already.
        docs: the parsed documents the inference aggregates over.
        branches: where the records are in a document (see ``Branch``).
    """

    rows: DataFrame
    lazy_errors: LazyErrors
    carried: list[str]
    docs: DataFrame
    branches: list[Branch]

    @property
    def errors(self) -> DataFrame:
        """The error records."""
        errors = self.lazy_errors.frame()
        assert errors is not None
        return errors

    def infer_node(self) -> TypeNode:
        """The record type, as Glue infers it (the inference passes over ``docs``)."""
        node, _, _ = infer(self.docs, self.branches)
        if node is None or node.kind != "struct":
            node = TypeNode("struct")
        if self.carried:
            node = TypeNode("struct", fields={k: f for k, f in node.fields.items() if k not in self.carried})
        return node

    def typed(self, rows: DataFrame | None = None) -> DataFrame:
        """``rows`` (default: this read's) with each record typed by the inferred record type."""
        from pyspark.sql import functions as F

        source = self.rows if rows is None else rows
        return source.select(*record_columns(F.col(RECORD), self.infer_node()), *self.carried)


def json_records(texts: DataFrame, json_path: str | None = None) -> JsonRecords:
    """Parse JSON documents into records and error records, leaving the typing to ``JsonRecords.typed``.

    ``texts`` and ``json_path`` are as for ``frame_from_json_texts``. Nothing runs here: the records and
    error records are lazy DataFrames over one parse of each document.
    """
    from pyspark.sql import functions as F

    if "value" not in texts.columns:
        raise GlueRuntimeError(f"JSON texts need a 'value' column; got {texts.columns}")
    source = F.col("source").cast("string") if "source" in texts.columns else F.lit(None).cast("string")
    carried = [c for c in texts.columns if c not in ("value", "source")]
    lines = (texts.select(F.col("value").cast("string").alias("_text"), source.alias("_source"), *carried)
             .where(F.col("_text").isNotNull() & (F.trim(F.col("_text")) != "")))
    docs = lines.withColumn("_v", F.try_parse_json(F.col("_text")))
    v, text = F.col("_v"), F.ltrim(F.col("_text"))
    prefix: list[Seg] = []
    each = False
    if json_path:
        prefix, each = _json_path_segments(json_path)
    if not json_path:
        doc_kind = (F.when(v.isNull(), "malformed").when(text.startswith("{"), "object")
                    .when(text.startswith("["), "array").otherwise("other"))
        object_branch = Branch(F.col("_doc") == "object", v, [])
        array_branch = Branch(F.col("_doc") == "array", v, [ELEM], objects_only=True)
    elif each:
        doc_kind = F.when(v.isNull(), "malformed").otherwise("array")
        object_branch = None
        array_branch = Branch(F.col("_doc") == "array", v, [*prefix, ELEM], objects_only=True)
    else:
        doc_kind = F.when(v.isNull(), "malformed").otherwise("object")
        selected = value_at(v, prefix)
        object_branch = Branch((F.col("_doc") == "object") & is_object(selected), selected, [])
        array_branch = None
    docs = docs.withColumn("_doc", doc_kind)
    branches = [b for b in (object_branch, array_branch) if b is not None]
    # Documents become records through a generator: a filter on the parse would be pushed below it and
    # parse every document twice.
    empty = F.array().cast("array<variant>")
    records_of_doc = empty
    if object_branch is not None:
        records_of_doc = F.when(object_branch.condition, F.array(object_branch.root))
    if array_branch is not None:
        records_of_doc = F.when(array_branch.condition, array_branch.values()).otherwise(records_of_doc)
    rows = docs.select(F.explode(F.coalesce(records_of_doc, empty)).alias(RECORD), *carried)
    errors = LazyErrors(lambda: _errors(docs, json_path, array_branch, object_branch))
    return JsonRecords(rows, errors, carried, docs, branches)


def frame_from_json_texts(glue_ctx: Any, texts: DataFrame,
                          json_path: str | None = None) -> tuple[DataFrame, DataFrame | None]:
    """Records and error records from JSON documents, typed as Glue types them (choices for mixed types).

    Args:
        glue_ctx: the GlueContext.
        texts: a DataFrame with a string column ``value`` (one JSON document per row: a JSON-lines line or a
            whole file) and optionally ``source`` (the file it came from). Any other columns (partition
            values, say) are carried onto every record of the document, replacing a record field of the
            same name.
        json_path: Glue's ``jsonPath`` format option selecting the records in each document (``$.records[*]``);
            without it a document is a record, or, when it is a top-level array, each element is one.

    Returns:
        (records, error records). Malformed JSON and records that are not objects become error records
        (``error_stage`` "read", ``error_input`` the text, ``error_source`` the file). Blank lines are skipped.
        Inference costs one aggregate pass, plus one when fields have conflicting or numeric types.
    """
    parsed = json_records(texts, json_path)
    return parsed.typed(), parsed.errors


def _errors(docs: DataFrame, json_path: str | None, array_branch: Branch | None,
            object_branch: Branch | None) -> DataFrame:
    from pyspark.sql import functions as F

    schema_cols = [f.name for f in error_schema().fields]

    def shaped(df: DataFrame, message: Column, text: Column) -> DataFrame:
        return df.select(message.alias("error_message"), F.lit("read").alias("error_stage"),
                         text.alias("error_input"), F.col("_source").alias("error_source")).select(*schema_cols)

    doc_errors = shaped(
        docs.where(F.col("_doc").isin("malformed", "other")),
        F.when(F.col("_doc") == "malformed", F.lit("Malformed JSON: the record could not be parsed"))
        .otherwise(F.lit("The JSON record is not an object")),
        F.col("_text"))
    parts = [doc_errors]
    if array_branch is not None:
        elements = values_at(F.col("_v"), array_branch.prefix)
        bad = (docs.where(F.col("_doc") == "array")
               .select("_source", F.explode(F.filter(elements, lambda e: ~is_object(e))).alias("_e")))
        parts.append(shaped(bad, F.lit("The JSON record is not an object"), F.to_json(F.col("_e"))))
    if json_path and object_branch is not None:
        selected = object_branch.root
        bad = docs.where((F.col("_doc") == "object") & selected.isNotNull() & ~is_object(selected))
        parts.append(shaped(bad, F.lit(f"The value at jsonPath {json_path} is not an object"), F.col("_text")))
    result = parts[0]
    for part in parts[1:]:
        result = result.unionByName(part)
    return result
