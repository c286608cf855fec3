"""ApplyMapping over a frame whose typing is pending (a raw CSV or JSON read): the inference pass skipped.

Each mapping whose source is a top-level pending column (CSV) or field (JSON) and whose
target type is given converts the raw value in the mapping's one projection: CSV text by
``direct_cast``, a JSON value from its own kind (``json_field_as``). CSV sources mapped to
``date`` or with their type kept need their column's kinds: one aggregation over those
columns only, instead of typing every column of the frame; a JSON
source whose type is kept needs the inferred schema, and the frame is typed first. The
mapping itself (nesting, renames, missing sources) is ``mapping_projection``'s, over a
source frame of one column per mapping.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from glueball.runtime.inference import json_field_path
from glueball.runtime.io.csvtypes import (
    column_kinds,
    column_ref,
    long_value_sql,
    number_value_sql,
    quoted,
    typed_column,
)
from glueball.runtime.io.jsontypes import direct_target, other_case_value
from glueball.runtime.ops.mapping import (
    convert,
    convert_sql,
    declared_type,
    mapping_projection,
    parse_mapping,
    spark_type,
)
from glueball.runtime.ops.paths import parse_path, resolve_path, select_as

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame
    from pyspark.sql.types import DataType, StructType

    from glueball.runtime.dynamicframe import DynamicFrame
    from glueball.runtime.io.jsonfields import JsonFields
    from glueball.runtime.pending import PendingTyping

_SOURCE = "__glueball_source{}"
_RECORD = "__glueball_whole_record"
_VALUES = "__glueball_values"
_FIELD = "__glueball_field{}"
_MISSING = "__glueball_missing{}"


def pending_mapping(pending: PendingTyping, mappings: Sequence[Sequence[str]],
                    case_sensitive: bool) -> DataFrame | None:
    """ApplyMapping's result over ``pending``'s raw records, equal to mapping the eagerly typed frame.

    Returns None when a mapping's source is nested (``a.b``, ``items[]``), or is a JSON field whose
    type is kept: the caller then types the frame and maps it as usual.
    """
    from pyspark.sql.types import StructType

    specs = [parse_mapping(m) for m in mappings]
    raw = pending.raw
    typed_schema = raw.schema
    if pending.record is not None:
        typed_schema = StructType([f for f in typed_schema.fields if f.name != pending.record])
    sources: list[tuple[str, str, Column | None]] = []  # (new name, raw column, value; None: typed by kinds)
    json_sources: list[tuple[str, str, DataType]] = []  # (new name, field of the record, target type)
    kinds_needed: list[str] = []
    rewritten: list[tuple[str, str, str, str]] = []
    for index, spec in enumerate(specs):
        segments = parse_path(spec.source)
        if len(segments) != 1 or segments[0].array:
            return None
        resolved = resolve_path(typed_schema, segments, case_sensitive)
        name = resolved.steps[0] if resolved is not None else None
        source_name = _SOURCE.format(index)
        target = declared_type(spec.target_type)
        if name is None and pending.record is not None:
            if not direct_target(target):
                return None
            assert target is not None
            json_sources.append((source_name, segments[0].name, target))
        elif name is None:
            source_name = spec.source  # no such column: the mapping yields nulls, as over the typed frame
        elif name not in pending.columns:
            sources.append((source_name, name, column_ref(name)))
        else:
            value = direct_cast(name, target) if target is not None else None
            if value is None:
                kinds_needed.append(name)
            sources.append((source_name, name, value))
        rewritten.append((source_name, spec.source_type or "", spec.target, spec.target_type or ""))
    kinds = column_kinds(raw, list(dict.fromkeys(kinds_needed)))
    columns = [(value if value is not None else typed_column(name, kinds[name])).alias(source_name)
               for source_name, name, value in sources]
    fields_source = (_json_fields_source(pending.fields, columns, json_sources, case_sensitive)
                     if json_sources and pending.fields is not None else None)
    if fields_source is not None:
        source = fields_source
    elif json_sources:
        source = _json_source(raw, pending.record or "", columns, json_sources, case_sensitive)
    else:
        source = raw.select(*columns)
    # every source column is named exactly, so the match is case-sensitive
    return select_as(source, mapping_projection(source.schema, rewritten, case_sensitive=True))


def _json_source(raw: DataFrame, record: str, columns: list[Column], fields: list[tuple[str, str, DataType]],
                 case_sensitive: bool) -> DataFrame:
    """The source frame of a mapping over JSON records: each field read from the record and converted.

    Each mapped field's value is taken out of the record once, as a variant, in a generator below the
    conversions (inlined, the extraction would repeat in every use of the value), and converted by its
    own kind (``_variant_convert``). Unless ``case_sensitive``, a record without the exact key (or
    holding JSON null there) reads the field through ``json_field_as``, which matches keys of another
    case: that lookup uses higher-order functions, which Spark does not compile, so it sits in a
    projection of its own above the conversions (another generator keeps the two apart) and runs only
    for such records.
    """
    from pyspark.sql import functions as F

    record_column = column_ref(record)
    names = list(dict.fromkeys(field for _, field, _ in fields))
    extracted = F.struct(*[F.variant_get(record_column, json_field_path(name), "variant").alias(_FIELD.format(i))
                           for i, name in enumerate(names)])
    rows = raw.select("*", F.explode(F.array(extracted)).alias(_VALUES))
    values = [F.col(_VALUES).getField(_FIELD.format(i)) for i in range(len(names))]
    converted = [F.when(values[names.index(field)].isNotNull(), _variant_convert(values[names.index(field)], target))
                 .alias(source_name) for source_name, field, target in fields]
    if case_sensitive:  # a record without the exact key has no value for the field
        return rows.select(*columns, *converted)
    missing = [value.isNull().alias(_MISSING.format(i)) for i, value in enumerate(values)]
    staged = rows.select(F.explode(F.array(F.struct(*columns, *converted, *missing, record_column.alias(_RECORD))))
                         .alias(_VALUES)).select(f"{_VALUES}.*")
    record_value = F.col(_RECORD)
    own = [c for c in staged.columns if c != _RECORD and not c.startswith("__glueball_missing")]
    fallback = {source_name: F.when(F.col(_MISSING.format(names.index(field))),
                                    json_field_as(record_value, field, target, case_sensitive=False))
                .otherwise(F.col(source_name)).alias(source_name) for source_name, field, target in fields}
    return staged.select(*[fallback.get(name, column_ref(name)) for name in own])


def _json_fields_source(reader: JsonFields, columns: list[Column], fields: list[tuple[str, str, DataType]],
                        case_sensitive: bool) -> DataFrame | None:
    """The source frame of a mapping over JSON lines whose fields Spark's JSON reader reads (``JsonFields``).

    None where the reader cannot serve: the keys are unknown (``JsonFields.kinds``: no scanner, a line holds an
    array, a record repeats a key), or the keys to read differ only in case (Spark plans a scan by column names
    ignoring case; mapping the eagerly typed frame fails there too, its source being ambiguous).

    Each key is read as the one type its values have (``reader_type``), the eager typing's type of the field,
    and converted from it as the eager mapping converts; a key of mixed kinds is read as a VARIANT and converted
    per value. A record without the exact key reads the first key equal to it ignoring case (unless
    ``case_sensitive``), as ``json_field_as`` does. A line the reader refuses (malformed, or no object) is
    parsed whole and mapped by ``json_field_as`` if it is an object, as the records path maps it.
    """
    from pyspark.sql import functions as F
    from pyspark.sql import types as st

    from glueball.runtime.io.jsonfields import MALFORMED, reader_type, records_of
    from glueball.runtime.io.jsonfields import column as column_name

    kinds = reader.kinds()
    if kinds is None:
        return None
    keys = [k for k in kinds if k not in reader.carried]
    types: dict[str, DataType] = {}
    read_keys: dict[str, list[str]] = {}
    for _, field, target in fields:
        same = [field] if field in keys else []
        other = [] if case_sensitive else sorted(k for k in keys if k != field and k.lower() == field.lower())
        read_keys[field] = same + other
        for key in read_keys[field]:
            wanted = reader_type(kinds[key], target)
            types[key] = wanted if types.get(key, wanted) == wanted else st.VariantType()
    if not types or len({key.lower() for key in types}) < len(types):
        return None  # (no key to read: Spark refuses a scan of the malformed-line column alone)
    rows = reader.read(types)
    place = {key: i for i, key in enumerate(types)}

    def read_value(field: str, target: DataType) -> Column:
        value: Column | None = None
        for key in read_keys[field]:
            column = F.col(column_name(place[key]))
            own = (_variant_convert(column, target) if isinstance(types[key], st.VariantType)
                   else convert(column, types[key], target))
            value = F.when(column.isNotNull(), own) if value is None else value.when(column.isNotNull(), own)
        return value if value is not None else F.lit(None).cast(target)

    def parsed_value(record: Column, field: str, target: DataType) -> Column:
        # json_field_as with the keys known: the exact key, else the first of another case the record holds
        value: Column | None = None
        for key in dict.fromkeys([field, *read_keys[field]]):
            own, present = _json_key_value(record, key, target)
            value = F.when(present, own) if value is None else value.when(present, own)
            if case_sensitive:
                break
        assert value is not None
        return value

    # A refused line is parsed as the records path parses it: a record if an object, else none (its error record is
    # the records path's). Refused lines are malformed or no object: rare, so each use parses the line again rather
    # than a generator keeping one parse per line, which would cost every row.
    line = F.col(MALFORMED)
    record = F.try_parse_json(line)
    carried = [column_ref(c) for c in reader.carried]
    rows = records_of(rows, record)
    values = [F.when(line.isNull(), read_value(field, target)).otherwise(parsed_value(record, field, target))
              .alias(name) for name, field, target in fields]
    source = rows.select(*values, *carried)
    return source.select(*columns, *[column_ref(name) for name, _, _ in fields])


def _json_key_value(record: Column, key: str, target: DataType) -> tuple[Column, Column]:
    """Key ``key`` of each record variant converted as ``json_field_as`` converts it, and whether the key is there."""
    from pyspark.sql import functions as F

    path = json_field_path(key)
    value = direct_convert(lambda ddl: F.try_variant_get(record, path, ddl),
                           lambda: F.variant_get(record, path, "variant"), target)
    return value, F.variant_get(record, path, "variant").isNotNull()


def _variant_convert(value: Column, target: DataType) -> Column:
    """A field's variant ``value`` as ``direct_convert`` converts it."""
    from pyspark.sql import functions as F

    return direct_convert(lambda ddl: F.try_variant_get(value, "$", ddl), lambda: value, target)


def json_field_as(record: Column, name: str, target: DataType, case_sensitive: bool) -> Column:
    """Top-level field ``name`` of each record variant as ApplyMapping converts its eagerly typed value.

    Unless ``case_sensitive``, a record without the exact key reads its first key (in name order) equal
    to ``name`` ignoring case (``jsontypes.other_case_value``).
    """
    from pyspark.sql import functions as F

    path = json_field_path(name)
    exact = direct_convert(lambda ddl: F.try_variant_get(record, path, ddl),
                           lambda: F.variant_get(record, path, "variant"), target)
    if case_sensitive:
        return exact
    other = other_case_value(record, name)
    other_value = direct_convert(lambda ddl: F.try_variant_get(other, "$", ddl), lambda: other, target)
    return F.when(F.variant_get(record, path, "variant").isNotNull(), exact).otherwise(other_value)


def direct_convert(get: Callable[[str], Column], variant: Callable[[], Column], target: DataType) -> Column:
    """A JSON value as ApplyMapping converts it to ``target`` from its eager type, which is its own kind's.

    ``get(ddl)`` reads the value as a Spark type (``try_variant_get``), ``variant()`` is the value itself.
    Integral and double targets read the value as the target (Spark's cast from the value's own type,
    which the eager conversion also is); other targets tell text, booleans and numbers apart by
    ``schema_of_variant`` and convert numbers from their double, as the eager typing reads fractions.
    Longs convert exactly through a double up to 2**53; beyond that, and for fractions with more
    digits than a double holds, the result is the more exact one. Objects and arrays become their
    JSON text for ``string``, null otherwise; a kind Spark has no cast for (a boolean to a timestamp,
    a number to a date) becomes null: mapping the eagerly typed field fails in both cases.
    """
    from pyspark.sql import functions as F
    from pyspark.sql import types as st

    if isinstance(target, st.ByteType | st.ShortType | st.IntegerType | st.LongType | st.DoubleType):
        return get(target.simpleString())
    schema = F.schema_of_variant(variant())
    is_string = schema == F.lit("STRING")
    from_string = convert(get("string"), st.StringType(), target)
    if isinstance(target, st.StringType):
        precision = F.substring_index(F.substring_index(schema, ",", 1), "(", -1).cast("int")
        big_integer = schema.endswith(",0)") & (precision >= 19)
        number = F.when(big_integer, get("decimal(38,0)").cast("string")).otherwise(get("double").cast("string"))
        return (F.when(is_string, from_string).when(schema.startswith("DECIMAL"), number)
                .when(schema.startswith("OBJECT") | schema.startswith("ARRAY"), F.to_json(variant()))
                .otherwise(get("string")))
    if isinstance(target, st.DateType):
        return F.when(is_string, from_string)
    if isinstance(target, st.BooleanType):
        return F.when(is_string, from_string).otherwise(get("boolean"))
    is_boolean = schema == F.lit("BOOLEAN")
    from_boolean = (convert(get("boolean"), st.BooleanType(), target) if not isinstance(target, st.TimestampType)
                    else F.lit(None).cast(target))
    return F.when(is_string, from_string).when(is_boolean, from_boolean).otherwise(
        convert(get("double"), st.DoubleType(), target))


def pending_resolve(pending: PendingTyping, casts: Sequence[tuple[str, str]]) -> PendingTyping | None:
    """resolveChoice ``cast:<type>`` specs over pending CSV columns: each column converted from its text.

    The result is still pending for the columns not cast, and equals resolving the eagerly typed frame.
    None (the caller types the frame and resolves it as usual) for JSON records, nested or unknown paths,
    actions other than ``cast``, columns typed already or cast twice, and targets ``direct_cast`` does
    not serve (``date``: it depends on the column's kinds).
    """

    if pending.record is not None:
        return None
    raw = pending.raw
    values: dict[str, Column] = {}
    for path, action in casts:
        name, _, argument = action.strip().partition(":")
        segments = parse_path(path)
        if name.strip().lower() != "cast" or len(segments) != 1 or segments[0].array:
            return None
        column = _one_column(raw.schema, segments[0].name)
        if column is None or column not in pending.columns or column in values:
            return None
        value = direct_cast(column, spark_type(argument.strip()))
        if value is None:
            return None
        values[column] = value
    if not values:
        return None
    cast = raw.select(*[values[c].alias(c) if c in values else column_ref(c) for c in raw.columns])
    return pending.with_raw(cast, tuple(c for c in pending.columns if c not in values))


def _one_column(schema: StructType, name: str) -> str | None:
    """The column resolveChoice takes for ``name``: the exact one, else the only one equal ignoring case."""
    if name in schema.fieldNames():
        return name
    matches = [n for n in schema.fieldNames() if n.lower() == name.lower()]
    return matches[0] if len(matches) == 1 else None


def direct_cast(name: str, target: DataType) -> Column | None:
    """Text column ``name`` converted to ``target`` as ApplyMapping converts its typed value, with no pass.

    Each value is converted from its own kind, as the eagerly typed column holds it (its type, or its
    member of the choice): a value that reads as a long from that long, one that reads as a double from
    the double, text from the text (``double`` and ``float``: every value from the text's double, which
    is a long's double too, but for ``-0``, a long whose double is ``0.0``). That equals converting the
    eagerly typed column. None for the targets the value needs its column's type for: ``date`` (numbers
    have no date) and kept or complex types.

    Telling a value's kind costs more than the conversion, so the common values take a short way that
    gives the same result without it (``_short_way``), and only the others are told apart. The expression
    is built as SQL text, one call into the JVM (``convert_sql``).
    """
    from pyspark.sql import functions as F
    from pyspark.sql import types as st

    direct = (st.ByteType, st.ShortType, st.IntegerType, st.LongType, st.FloatType, st.DoubleType, st.DecimalType,
              st.TimestampType, st.BooleanType, st.StringType)
    if not isinstance(target, direct):
        return None
    text = quoted(name)
    string, long_type, double_type = st.StringType(), st.LongType(), st.DoubleType()
    if isinstance(target, st.DoubleType | st.FloatType):
        # a number's double is the text's double (a long's too): one cast serves every kind, but for the
        # long -0, whose double is 0.0 (the long test only runs for zeros, which only a '-' makes negative)
        double = convert_sql(text, string, double_type)
        signed = f"CASE WHEN {double} = 0.0D AND {long_value_sql(text)} IS NOT NULL THEN 0.0D ELSE {double} END"
        value = f"CASE WHEN contains({text}, '-') THEN {signed} ELSE {double} END"
        return F.expr(convert_sql(f"({value})", double_type, target))
    long, number = long_value_sql(text), number_value_sql(text)
    by_kind = (f"CASE WHEN {long} IS NOT NULL THEN {convert_sql(f'({long})', long_type, target)} "
               f"WHEN {number} IS NOT NULL THEN {convert_sql(f'({number})', double_type, target)} "
               f"ELSE {convert_sql(text, string, target)} END")
    short = _short_way(text, target)
    return F.expr(by_kind if short is None else f"coalesce({short}, {by_kind})")


def _short_way(text: str, target: DataType) -> str | None:
    """SQL: ``text`` as ``direct_cast`` converts it, for the values that need not be told apart; null for the others.

    - Integral targets: a value Spark's ``try_cast`` reads (``[sign] digits`` within white space or control
      characters; no fraction) is a long, or text that the cast from text reads the same way.
    - ``decimal``: such a value's long, exactly.
    - ``string`` and ``boolean``: a value whose first character sorts from ``:`` on is no number (a number
      starts with white space, a sign, ``.`` or a digit), so it is text.
    - ``timestamp``: a value holding ``:`` is no number, so text.
    A null here means "tell the kind": the caller falls back to the full conversion, which also gives the
    null of a value that does not convert.
    """
    from pyspark.sql import types as st

    name = target.simpleString()
    if isinstance(target, st.ByteType | st.ShortType | st.IntegerType | st.LongType):
        return f"TRY_CAST({text} AS {name})"
    if isinstance(target, st.DecimalType):
        return f"TRY_CAST(TRY_CAST({text} AS BIGINT) AS {name})"
    if isinstance(target, st.StringType):
        return f"CASE WHEN {text} >= ':' THEN {text} END"
    if isinstance(target, st.BooleanType | st.TimestampType):
        holds = f"{text} >= ':'" if isinstance(target, st.BooleanType) else f"contains({text}, ':')"
        return f"CASE WHEN {holds} THEN {convert_sql(text, st.StringType(), target)} END"
    return None


def apply_mapping(frame: DynamicFrame, mappings: Sequence[Sequence[str]], case_sensitive: bool = False,
                  transformation_ctx: str = "", stage_threshold: int = 0, total_threshold: int = 0) -> DynamicFrame:
    """ApplyMapping: select, rename, retype and restructure fields in one projection.

    Mirrors Glue: only the mapped fields are kept; a nested source (``address.city``,
    ``items[].price``) is read through structs and arrays; a dotted target
    (``customer.name``) builds structs and ``out[].x`` builds arrays of structs; names
    with dots are back-quoted; sources match case-insensitively unless
    ``case_sensitive``; values that do not convert become null (not errors); a source
    that is not there gives a null target; a choice source is cast to the target type.
    Over a raw CSV or JSON read whose typing is pending, top-level sources are converted from
    their raw values without the inference pass (:func:`pending_mapping`).
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
