"""``resolveChoice`` and ``unbox``: Glue's choice resolution and string unboxing, as lazy DataFrame operations.

A choice column is a struct of its member types (see ``glueball.runtime.dynamicframe``). Resolving it is a
projection: ``cast:`` coalesces the members cast to one type, ``project:`` keeps one member, ``make_cols``
spreads the members into ``<name>_<type>`` columns, ``make_struct`` keeps the struct as a plain struct and
``match_catalog`` casts to the type of the same column in a Data Catalog table.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from glueball.runtime.errors import GlueRuntimeError, error_schema
from glueball.runtime.gluetypes import (
    CHOICE_METADATA,
    ELEMENT_CHOICE_METADATA,
    catalog_type_to_spark,
    from_json,
    glue_type_name,
    spark_type_from_glue_name,
    to_spark_type,
)
from glueball.runtime.ops.pending_mapping import pending_resolve

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame
    from pyspark.sql import types as st

    from glueball.runtime.dynamicframe import DynamicFrame

ELEM = "[]"
ACTIONS = ("cast", "project", "make_cols", "make_struct", "match_catalog")


class ResolveOption:
    """A ``(path, action)`` pair for ``DynamicFrame.toDF(options)`` (upstream ``awsglue.dynamicframe.ResolveOption``).

    Args:
        path: the choice column (``a.b``, ``items[].price``).
        action: ``cast:<type>``, ``project:<type>``, ``make_cols``, ``make_struct`` or ``match_catalog``.
        target: unused, kept for upstream's signature.
    """

    def __init__(self, path: str, action: str, target: Any = None) -> None:
        self.path = path
        self.action = action
        self.target = target

    def __repr__(self) -> str:
        return f"ResolveOption({self.path!r}, {self.action!r})"


# -- paths ---------------------------------------------------------------------------------------------


def parse_path(path: str) -> list[str]:
    """``a.b``, ``items[].price``, ```a.b`.c`` -> segments; ``[]`` is an array's elements."""
    segments: list[str] = []
    current = ""
    quoted = False
    i = 0
    while i < len(path):
        char = path[i]
        if char == "`":
            quoted = not quoted
        elif char == "." and not quoted:
            segments.append(current)
            current = ""
        elif not quoted and path.startswith("[]", i):
            segments.append(current)
            current = ELEM
            i += 1
        else:
            current += char
        i += 1
    segments.append(current)
    if quoted:
        raise GlueRuntimeError(f"Unbalanced backtick in path {path!r}")
    result = [s for s in segments if s != ""]
    if not result:
        raise GlueRuntimeError(f"Empty path {path!r}")
    return result


def _quote(name: str) -> str:
    return f"`{name}`" if "." in name else name


def field_paths(schema: st.StructType, prefix: str = "") -> list[str]:
    """Every path of a schema (``a``, ``a.b``, ``items[].price``), for messages."""
    from pyspark.sql import types as st

    out: list[str] = []

    def walk(data_type: st.DataType, path: str) -> None:
        if isinstance(data_type, st.StructType):
            for f in data_type.fields:
                child = f"{path}.{_quote(f.name)}" if path else _quote(f.name)
                out.append(child)
                walk(f.dataType, child)
        elif isinstance(data_type, st.ArrayType):
            walk(data_type.elementType, path + ELEM)

    walk(schema, prefix)
    return out


def choice_paths(schema: st.StructType) -> list[str]:
    """The paths of the choice columns (outermost only): ``price``, ``a.b``, ``items[].p``, ``tags[]``."""
    from pyspark.sql import types as st

    out: list[str] = []

    def walk(data_type: st.DataType, path: str) -> None:
        if isinstance(data_type, st.ArrayType):
            walk(data_type.elementType, path + ELEM)
        elif isinstance(data_type, st.StructType):
            for f in data_type.fields:
                child = f"{path}.{_quote(f.name)}" if path else _quote(f.name)
                if f.metadata.get(CHOICE_METADATA):
                    out.append(child)
                elif f.metadata.get(ELEMENT_CHOICE_METADATA):
                    inner, suffix = f.dataType, ""
                    while isinstance(inner, st.ArrayType):
                        inner, suffix = inner.elementType, suffix + ELEM
                    out.append(child + suffix)
                else:
                    walk(f.dataType, child)

    walk(schema, "")
    return out


# -- actions -----------------------------------------------------------------------------------------------


def _cast_value(value: Column, from_type: st.DataType, to_type: st.DataType) -> Column:
    """A value cast as Glue casts: NULL where it cannot be (``"abc"`` to int), JSON text for complex to string."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as st

    complex_types = (st.StructType, st.ArrayType, st.MapType)
    if from_type == to_type:
        return value
    if isinstance(from_type, complex_types):
        if isinstance(to_type, st.StringType):
            return F.to_json(value)
        if isinstance(to_type, complex_types) and type(from_type) is type(to_type):
            return value.try_cast(to_type)
        return F.lit(None).cast(to_type)
    if isinstance(to_type, complex_types) or isinstance(from_type, st.NullType):
        return F.lit(None).cast(to_type)
    return value.try_cast(to_type)


class _Action:
    def __init__(self, text: str, path: str) -> None:
        name, _, argument = text.strip().partition(":")
        self.name = name.strip().lower()
        self.argument = argument.strip()
        self.text = text
        if self.name not in ACTIONS:
            raise GlueRuntimeError(f"Unknown resolveChoice action {text!r} for {path!r}; use one of "
                                   "cast:<type>, project:<type>, make_cols, make_struct, match_catalog")
        if self.name in ("cast", "project") and not self.argument:
            raise GlueRuntimeError(f"resolveChoice action {text!r} for {path!r} needs a type, e.g. {self.name}:int")
        self.target = spark_type_from_glue_name(self.argument) if self.argument else None


Produced = list[tuple["Column", "st.StructField"]]


def _is_choice(spark_field: st.StructField) -> bool:
    from pyspark.sql import types as st

    return bool(spark_field.metadata.get(CHOICE_METADATA)) and isinstance(spark_field.dataType, st.StructType)


def _apply(value: Column, spark_field: st.StructField, action: _Action) -> Produced:
    """The columns that replace one field under ``action``."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as st

    name, data_type = spark_field.name, spark_field.dataType
    plain = {k: v for k, v in spark_field.metadata.items() if k not in (CHOICE_METADATA, ELEMENT_CHOICE_METADATA)}
    if not _is_choice(spark_field):
        if action.name == "cast":
            assert action.target is not None
            return [(_cast_value(value, data_type, action.target), st.StructField(name, action.target, True, plain))]
        if action.name == "project":
            assert action.target is not None
            same = glue_type_name(data_type) == glue_type_name(action.target)
            result = value if same else F.lit(None).cast(action.target)
            return [(result, st.StructField(name, data_type if same else action.target, True, plain))]
        return [(value, spark_field)]
    assert isinstance(data_type, st.StructType)
    members = data_type.fields
    if action.name == "cast":
        assert action.target is not None
        casts = [_cast_value(value[m.name], m.dataType, action.target) for m in members]
        result = F.coalesce(*casts) if len(casts) > 1 else casts[0]
        return [(result, st.StructField(name, action.target, True, plain))]
    if action.name == "project":
        assert action.target is not None
        wanted = glue_type_name(action.target)
        for member in members:
            if member.name == wanted:
                return [(value[member.name], st.StructField(name, member.dataType, True, {**plain, **member.metadata}))]
        return [(F.lit(None).cast(action.target), st.StructField(name, action.target, True, plain))]
    if action.name == "make_cols":
        return [(value[m.name], st.StructField(f"{name}_{m.name}", m.dataType, True, m.metadata)) for m in members]
    if action.name == "make_struct":
        return [(value, st.StructField(name, data_type, True, plain))]
    raise GlueRuntimeError(f"resolveChoice action {action.text!r} was not resolved for {name!r}")


def _apply_elements(value: Column, element_type: st.DataType, element_choice: bool, action: _Action,
                    path: str) -> tuple[Column, st.DataType]:
    """``action`` on each element of an array (``tags[]``)."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as st

    if action.name == "make_cols":
        raise GlueRuntimeError(f"make_cols cannot spread the elements of array {path!r} into columns; "
                               "use cast:<type>, project:<type> or make_struct")
    if isinstance(element_type, st.ArrayType):
        holder: list[st.DataType] = []

        def inner(e: Column) -> Column:
            result, new_type = _apply_elements(e, element_type.elementType, element_choice, action, path)
            holder.append(new_type)
            return result

        column = F.transform(value, inner)
        return column, st.ArrayType(holder[0] if holder else element_type.elementType, True)
    metadata = {CHOICE_METADATA: True} if element_choice else {}
    element_field = st.StructField("element", element_type, True, metadata)
    produced: list[Produced] = []
    column = F.transform(value, lambda e: _record(produced, _apply(e, element_field, action))[0][0])
    return column, produced[0][0][1].dataType if produced else element_type


def _record(store: list[Produced], produced: Produced) -> Produced:
    store.append(produced)
    return produced


def _rewrite_fields(getter: Callable[[str], Column], fields: Sequence[st.StructField], segments: list[str],
                    action: _Action, path: str, available: Callable[[], list[str]]) -> Produced:
    """The fields of a struct with the field at ``segments`` rewritten under ``action``."""
    from pyspark.sql import types as st

    target = _find_field(fields, segments[0], path, available)
    out: Produced = []
    for spark_field in fields:
        if spark_field is not target:
            out.append((getter(spark_field.name), spark_field))
        elif len(segments) == 1 and not spark_field.metadata.get(ELEMENT_CHOICE_METADATA):
            out.extend(_apply(getter(spark_field.name), spark_field, action))
        else:
            rest = segments[1:] or _element_segments(spark_field.dataType)  # `tags` of array<choice>: `tags[]`
            column, new_type = _descend(getter(spark_field.name), spark_field, rest, action, path, available)
            resolved = _with_type(spark_field, new_type)
            if all(s == ELEM for s in rest):  # the element choice is resolved
                resolved = st.StructField(resolved.name, new_type, True, {
                    k: v for k, v in spark_field.metadata.items() if k != ELEMENT_CHOICE_METADATA})
            out.append((column, resolved))
    return out


def _element_segments(data_type: st.DataType) -> list[str]:
    from pyspark.sql import types as st

    segments = []
    while isinstance(data_type, st.ArrayType):
        segments.append(ELEM)
        data_type = data_type.elementType
    return segments


def _with_type(spark_field: st.StructField, data_type: st.DataType) -> st.StructField:
    from pyspark.sql import types as st

    return st.StructField(spark_field.name, data_type, True, spark_field.metadata)


def _find_field(fields: Sequence[st.StructField], name: str, path: str,
                available: Callable[[], list[str]]) -> st.StructField:
    for spark_field in fields:
        if spark_field.name == name:
            return spark_field
    matches = [f for f in fields if f.name.lower() == name.lower()]
    if len(matches) == 1:
        return matches[0]
    raise GlueRuntimeError(f"resolveChoice: no field {name!r} for path {path!r}; "
                           f"available columns: {', '.join(available())}")


def _descend(value: Column, spark_field: st.StructField, segments: list[str], action: _Action, path: str,
             available: Callable[[], list[str]]) -> tuple[Column, st.DataType]:
    from pyspark.sql import functions as F
    from pyspark.sql import types as st

    data_type = spark_field.dataType
    if segments[0] == ELEM:
        if not isinstance(data_type, st.ArrayType):
            raise GlueRuntimeError(f"resolveChoice: {path!r} uses [] on {spark_field.name!r}, which is not an array")
        rest = segments[1:]
        element_choice = bool(spark_field.metadata.get(ELEMENT_CHOICE_METADATA))
        if not rest:
            return _apply_elements(value, data_type.elementType, element_choice, action, path)
        element_field = st.StructField("element", data_type.elementType, True)
        types: list[st.DataType] = []

        def each(e: Column) -> Column:
            column, new_type = _descend(e, element_field, rest, action, path, available)
            types.append(new_type)
            return column

        column = F.transform(value, each)
        return column, st.ArrayType(types[0] if types else data_type.elementType, True)
    if isinstance(data_type, st.ArrayType):
        raise GlueRuntimeError(f"resolveChoice: {spark_field.name!r} in {path!r} is an array; "
                               f"address its elements with {spark_field.name}[]")
    if not isinstance(data_type, st.StructType):
        raise GlueRuntimeError(f"resolveChoice: {spark_field.name!r} in {path!r} is not a struct; "
                               f"available columns: {', '.join(available())}")
    produced = _rewrite_fields(lambda n: value[n], data_type.fields, segments, action, path, available)
    struct = F.struct(*[c.alias(f.name) for c, f in produced])
    return F.when(value.isNull(), F.lit(None)).otherwise(struct), st.StructType([f for _, f in produced])


def _has_nested_metadata(data_type: st.DataType) -> bool:
    from pyspark.sql import types as st

    if isinstance(data_type, st.StructType):
        return any(f.metadata or _has_nested_metadata(f.dataType) for f in data_type.fields)
    if isinstance(data_type, st.ArrayType):
        return _has_nested_metadata(data_type.elementType)
    if isinstance(data_type, st.MapType):
        return _has_nested_metadata(data_type.valueType)
    return False


def resolve_path(df: DataFrame, path: str, action_text: str) -> DataFrame:
    """``df`` with the (choice) column at ``path`` resolved by one action."""
    from pyspark.sql import functions as F

    action = _Action(action_text, path)
    schema = df.schema
    produced = _rewrite_fields(lambda n: F.col(f"`{n.replace('`', '``')}`"), schema.fields, parse_path(path),
                               action, path, lambda: field_paths(schema))
    columns = []
    for column, spark_field in produced:
        if _has_nested_metadata(spark_field.dataType):
            column = column.cast(spark_field.dataType)  # carries nested choice markers
        columns.append(column.alias(spark_field.name, metadata=spark_field.metadata))
    return df.select(*columns)


# -- match_catalog -------------------------------------------------------------------------------------------


def _catalog_schema(glue_ctx: Any, database: str | None, table_name: str | None,
                    catalog_id: str | None) -> st.StructType:
    from botocore.exceptions import ClientError
    from pyspark.sql import types as st

    if not database or not table_name:
        raise GlueRuntimeError("resolveChoice match_catalog needs database and table_name")
    request: dict[str, Any] = {"DatabaseName": database, "Name": table_name}
    if catalog_id:
        request["CatalogId"] = catalog_id
    try:
        table = glue_ctx.glue_client.get_table(**request)["Table"]
    except ClientError as err:
        raise GlueRuntimeError(f"resolveChoice match_catalog cannot read table {database}.{table_name}: "
                               f"{err.response['Error'].get('Message', err)}") from err
    columns = [*table.get("StorageDescriptor", {}).get("Columns", []), *table.get("PartitionKeys", [])]
    return st.StructType([st.StructField(c["Name"], catalog_type_to_spark(c.get("Type", "string")), True)
                          for c in columns])


def _type_at(schema: st.StructType, segments: list[str]) -> st.DataType | None:
    from pyspark.sql import types as st

    current: st.DataType = schema
    for segment in segments:
        if segment == ELEM:
            if not isinstance(current, st.ArrayType):
                return None
            current = current.elementType
            continue
        if not isinstance(current, st.StructType):
            return None
        found = [f for f in current.fields if f.name.lower() == segment.lower()]
        if not found:
            return None
        current = found[0].dataType
    return current


def _ddl(data_type: st.DataType) -> str:
    from glueball.runtime.inference import ddl

    return ddl(data_type)


# -- resolveChoice ---------------------------------------------------------------------------------------------


def resolve_choice(frame: DynamicFrame, specs: list[tuple[str, str]] | None, choice: str, database: str | None,
                   table_name: str | None, transformation_ctx: str, stage_threshold: int, total_threshold: int,
                   catalog_id: str | None) -> DynamicFrame:
    """Resolve choice columns (``DynamicFrame.resolveChoice``), as Glue does.

    Args:
        frame: the DynamicFrame.
        specs: ``(path, action)`` pairs; paths are dotted (``a.b``) with ``[]`` for array elements
            (``items[].price``); actions ``cast:<type>``, ``project:<type>``, ``make_cols``, ``make_struct``,
            ``match_catalog``. ``cast`` also casts a column that is not a choice.
        choice: the action for every choice column not named in ``specs``.
        database, table_name, catalog_id: the Data Catalog table for ``match_catalog``.
        transformation_ctx, stage_threshold, total_threshold: as for every transformation.

    Raises:
        GlueRuntimeError: neither specs nor choice, an unknown action or path, or match_catalog without a table.
    """
    if specs is None and not choice:
        raise GlueRuntimeError("resolveChoice needs specs or choice (both are missing)")
    if isinstance(specs, tuple) and len(specs) == 2 and all(isinstance(s, str) for s in specs):
        specs = [specs]
    pairs = [(str(path), str(action)) for path, action in (specs or [])]
    catalog: st.StructType | None = None
    explicit = {path for path, _ in (specs or [])}

    def catalog_action(path: str, action: str) -> str | None:
        """``action``, with match_catalog as the cast to the catalog column's type (None: no such column)."""
        nonlocal catalog
        if action.strip().lower() != "match_catalog":
            return action
        if catalog is None:
            catalog = _catalog_schema(frame.glue_ctx, database, table_name, catalog_id)
        target = _type_at(catalog, parse_path(path))
        if target is None:
            if path in explicit:
                raise GlueRuntimeError(f"resolveChoice match_catalog: table {database}.{table_name} has no "
                                       f"column {path!r}")
            return None
        return f"cast:{_ddl(target)}"

    kw: dict[str, Any] = {"transformation_ctx": transformation_ctx, "stage_threshold": stage_threshold,
                          "total_threshold": total_threshold}
    pending = frame.pending_typing
    if pending is not None and not choice:
        casts = [(path, catalog_action(path, action)) for path, action in pairs]
        for path, action in casts:
            if action is not None:
                _Action(action, path)  # an unknown action or type fails as it does over the typed frame
        cast = pending_resolve(pending, [(path, action) for path, action in casts if action is not None])
        if cast is not None:
            return frame.derive_pending(cast, **kw)
    df = frame._df
    named = {tuple(parse_path(path)) for path, _ in pairs}
    if choice:
        pairs += [(path, choice) for path in choice_paths(df.schema) if tuple(parse_path(path)) not in named]
    for path, action in pairs:
        resolved_action = catalog_action(path, action)
        if resolved_action is not None:
            df = resolve_path(df, path, resolved_action)
    return frame.derive(df, **kw)


# -- unbox ------------------------------------------------------------------------------------------------------


def unbox(frame: DynamicFrame, path: str, format: str, options: dict[str, Any],  # noqa: A002
          transformation_ctx: str, stage_threshold: int, total_threshold: int) -> DynamicFrame:
    """Parse the string field at ``path`` into a typed value in place (``DynamicFrame.unbox``).

    Args:
        frame: the DynamicFrame.
        path: the string field (``a.b`` for nested fields).
        format: ``json`` (schema inferred as Glue infers it, choices included) or ``csv`` (fields ``col0``,
            ``col1``...; strings).
        options: ``withSchema`` (a Glue ``StructType.json()`` string; skips inference), and for csv
            ``separator`` (default ``,``) and ``escaper``; ``withHeader``/``skipFirst`` True are rejected.
        transformation_ctx, stage_threshold, total_threshold: as for every transformation.

    Values that are not valid JSON become error records (and leave the frame); unbox costs one inference
    pass over the field (two when its values have conflicting types) unless ``withSchema`` is given.
    """
    from pyspark.sql import functions as F

    fmt = (format or "").lower()
    df = frame._df
    segments = parse_path(path)
    if ELEM in segments:
        raise GlueRuntimeError(f"unbox: path {path!r} goes through an array; unbox a field of a struct")
    raw = F.col(".".join(f"`{s}`" for s in segments))
    _find_string_field(df.schema, segments, path)
    schema_json = options.get("withSchema")
    errors = None
    if fmt == "json":
        parsed = F.try_parse_json(raw)
        if schema_json:
            value = F.try_variant_get(parsed, "$", _ddl(to_spark_type(from_json(schema_json))))
            metadata: dict[str, Any] = {}
        else:
            value, metadata = _inferred_json_value(df, raw)
        bad = raw.isNotNull() & parsed.isNull()
        errors = _unbox_errors(df, bad, path, transformation_ctx)
        df = df.where(~bad | bad.isNull())
    elif fmt == "csv":
        for unsupported in ("withHeader", "skipFirst"):
            if str(options.get(unsupported, "false")).lower() == "true":
                raise GlueRuntimeError(f"unbox csv: {unsupported}=True is not supported (each value is one line)")
        separator = str(options.get("separator", options.get("sep", ",")))
        csv_options = {"sep": separator}
        if options.get("escaper"):
            csv_options["escape"] = str(options["escaper"])
        if schema_json:
            ddl_text = _ddl(to_spark_type(from_json(schema_json)))
        else:
            import re

            widest = df.select(F.max(F.size(F.split(raw, re.escape(separator))))).first()
            width = max(int(widest[0] or 1), 1) if widest else 1
            ddl_text = ", ".join(f"col{i} string" for i in range(width))
        value, metadata = F.from_csv(raw, ddl_text, csv_options), {}
    else:
        raise GlueRuntimeError(f"unbox: unsupported format {format!r}; use json or csv")
    replaced = _replace(df, segments, value, metadata)
    return frame.derive(replaced, stage_errors=errors, transformation_ctx=transformation_ctx,
                        stage_threshold=stage_threshold, total_threshold=total_threshold)


def _find_string_field(schema: st.StructType, segments: list[str], path: str) -> None:
    from pyspark.sql import types as st

    found = _type_at(schema, segments)
    if found is None:
        raise GlueRuntimeError(f"unbox: no field {path!r}; available columns: {', '.join(field_paths(schema))}")
    if not isinstance(found, st.StringType):
        raise GlueRuntimeError(f"unbox: {path!r} is a {found.simpleString()}, not a string")


def _inferred_json_value(df: DataFrame, raw: Column) -> tuple[Column, dict[str, Any]]:
    from pyspark.sql import functions as F

    from glueball.runtime.inference import Branch, build, infer, value_field

    values = df.select(F.try_parse_json(raw).alias("_u"))
    node, _, _ = infer(values, [Branch(F.col("_u").isNotNull(), F.col("_u"), [])])
    if node is None:
        return F.lit(None).cast("string"), {}
    parsed = F.try_parse_json(raw)
    spark_field = value_field("value", node)
    column = build(parsed, node)
    if _has_nested_metadata(spark_field.dataType):
        column = column.cast(spark_field.dataType)
    return column, dict(spark_field.metadata)


def _unbox_errors(df: DataFrame, bad: Column, path: str, transformation_ctx: str) -> DataFrame:
    from pyspark.sql import functions as F

    record = F.to_json(F.struct(*[F.col(f"`{c}`") for c in df.columns]))
    return df.where(bad).select(
        F.lit(f"unbox: the value of {path} is not valid JSON").alias("error_message"),
        F.lit("unbox").alias("error_stage"), record.alias("error_input"),
        F.lit(transformation_ctx or None).cast("string").alias("error_source"),
    ).select(*[f.name for f in error_schema().fields])


def _replace(df: DataFrame, segments: list[str], value: Column, metadata: dict[str, Any]) -> DataFrame:
    from pyspark.sql import functions as F

    if len(segments) == 1:
        columns = [value.alias(c, metadata=metadata) if c == segments[0] else F.col(f"`{c}`") for c in df.columns]
        return df.select(*columns)
    top = segments[0]
    nested = F.col(f"`{top}`").withField(".".join(f"`{s}`" for s in segments[1:]), value)
    return df.withColumn(top, nested)
