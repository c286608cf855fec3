"""JSON records with Glue's schema semantics, inferred with Spark's VARIANT type.

Glue reads semi-structured JSON without a schema and marks a field seen with
more than one type as a *choice* (``price`` a number in some records, a string
in others) instead of giving up to ``string`` as Spark does. Here:

1. every document is parsed once into a VARIANT (``try_parse_json``; NULL means
   malformed, which becomes an error record);
2. **pass 1** — one aggregate, ``schema_of_variant_agg``, gives the merged schema;
   a field with conflicting types comes out as ``VARIANT``, numbers are widened
   to ``DECIMAL``/``DOUBLE``;
   The same aggregate collects the kinds of every top-level field's values, which
   settles top-level conflicts among atomic kinds (``long`` and ``double``, numbers
   and text) without another pass;
3. **pass 2** — only when pass 1 leaves such fields — one aggregate collects, for
   each of them, the set of Glue type names actually seen (``long``, ``double``,
   ``string``, ``struct``...) and the merged schemas of its object and array
   values. A field with one type gets it; a field with more becomes a choice
   (see ``glueball.runtime.dynamicframe``). A conflict nested inside a choice's
   struct member needs one more such pass.
4. the records are built lazily from the variant with ``try_variant_get`` casts;
   the member of a choice matching the value's actual type is set, the others
   are NULL.

JSON integers are ``long``, numbers with a fraction or exponent ``double``,
integers beyond the long range ``decimal``; JSON null never makes a choice.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from glueball.runtime.errors import GlueRuntimeError
from glueball.runtime.gluetypes import CHOICE_METADATA, ELEMENT_CHOICE_METADATA, catalog_type_to_spark

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame
    from pyspark.sql import types as st

MAX_PASSES = 6

# the first three letters of schema_of_variant -> Glue type name ("DEC0": an integer beyond the long range)
_KIND_OF_KEY = {
    "OBJ": "struct", "ARR": "array", "BIG": "long", "INT": "long", "SMA": "long", "TIN": "long", "DEC0": "decimal",
    "DEC": "double", "DOU": "double", "FLO": "double", "STR": "string", "BOO": "boolean", "DAT": "date",
    "TIM": "timestamp", "BIN": "binary",
}
_ATOMIC_DDL = {"long": "bigint", "double": "double", "decimal": "decimal(38,0)", "string": "string",
               "boolean": "boolean", "date": "date", "timestamp": "timestamp", "binary": "binary"}

Seg = tuple[str, str]  # ("field", name) | ("elem", "") | ("member", glue type name)
ELEM: Seg = ("elem", "")


@dataclass
class TypeNode:
    """An inferred type: atomic (a Glue name), struct, array, choice, or pending (needs another pass)."""

    kind: str
    name: str = ""  # atomic: glue type name; pending: "variant" | "numeric"
    fields: dict[str, TypeNode] = field(default_factory=dict)
    element: TypeNode | None = None
    members: dict[str, TypeNode] = field(default_factory=dict)

    def has_choice(self) -> bool:
        if self.kind == "choice":
            return True
        if self.kind == "struct":
            return any(f.has_choice() for f in self.fields.values())
        if self.kind == "array" and self.element is not None:
            return self.element.has_choice()
        return False


# -- Spark type <-> node ---------------------------------------------------------------------------------


def _node_from_spark(data_type: st.DataType) -> TypeNode:
    from pyspark.sql import types as st

    if isinstance(data_type, st.StructType):
        return TypeNode("struct", fields={f.name: _node_from_spark(f.dataType) for f in data_type.fields})
    if isinstance(data_type, st.ArrayType):
        return TypeNode("array", element=_node_from_spark(data_type.elementType))
    if isinstance(data_type, st.VariantType):
        return TypeNode("pending", "variant")
    if isinstance(data_type, st.DecimalType | st.DoubleType | st.FloatType):
        return TypeNode("pending", "numeric")
    if isinstance(data_type, st.LongType | st.IntegerType | st.ShortType | st.ByteType):
        return TypeNode("atomic", "long")
    if isinstance(data_type, st.BooleanType):
        return TypeNode("atomic", "boolean")
    if isinstance(data_type, st.DateType):
        return TypeNode("atomic", "date")
    if isinstance(data_type, st.TimestampType | st.TimestampNTZType):
        return TypeNode("atomic", "timestamp")
    if isinstance(data_type, st.BinaryType):
        return TypeNode("atomic", "binary")
    # strings; VOID (only nulls seen) reads as string, as Spark's JSON reader does
    return TypeNode("atomic", "string")


def _merge_spark(a: st.DataType | None, b: st.DataType | None) -> st.DataType | None:
    """Merge two pass-1 schemas the way ``schema_of_variant_agg`` does (conflicts -> VARIANT)."""
    from pyspark.sql import types as st

    if a is None or isinstance(a, st.NullType):
        return b
    if b is None or isinstance(b, st.NullType):
        return a
    if isinstance(a, st.StructType) and isinstance(b, st.StructType):
        names = list(dict.fromkeys([f.name for f in a.fields] + [f.name for f in b.fields]))
        a_map, b_map = {f.name: f.dataType for f in a.fields}, {f.name: f.dataType for f in b.fields}
        return st.StructType([st.StructField(n, _merge_spark(a_map.get(n), b_map.get(n)) or st.NullType())
                              for n in sorted(names)])
    if isinstance(a, st.ArrayType) and isinstance(b, st.ArrayType):
        return st.ArrayType(_merge_spark(a.elementType, b.elementType) or st.NullType())
    numeric = (st.DecimalType, st.DoubleType, st.LongType, st.IntegerType, st.ShortType, st.ByteType, st.FloatType)
    if isinstance(a, numeric) and isinstance(b, numeric):
        return a if a == b else st.DoubleType()
    return a if a == b else st.VariantType()


def _spark_type(node: TypeNode) -> st.DataType:
    from pyspark.sql import types as st

    if node.kind == "struct":
        return st.StructType([_spark_field(name, child) for name, child in node.fields.items()])
    if node.kind == "array":
        assert node.element is not None
        return st.ArrayType(_spark_type(node.element), True)
    if node.kind == "choice":
        return st.StructType([_spark_field(name, node.members[name]) for name in sorted(node.members)])
    return catalog_type_to_spark(_ATOMIC_DDL.get(node.name, "string"))


def _spark_field(name: str, node: TypeNode) -> st.StructField:
    from pyspark.sql import types as st

    metadata: dict[str, Any] = {}
    if node.kind == "choice":
        metadata[CHOICE_METADATA] = True
    else:
        inner = node
        while inner.kind == "array" and inner.element is not None:
            inner = inner.element
        if inner is not node and inner.kind == "choice":
            metadata[ELEMENT_CHOICE_METADATA] = True
    return st.StructField(name, _spark_type(node), True, metadata)


def ddl(data_type: st.DataType) -> str:
    """A type string ``try_variant_get``/``CAST`` accept, with field names quoted."""
    from pyspark.sql import types as st

    if isinstance(data_type, st.StructType):
        inner = ",".join(f"`{f.name.replace('`', '``')}`:{ddl(f.dataType)}" for f in data_type.fields)
        return f"struct<{inner}>"
    if isinstance(data_type, st.ArrayType):
        return f"array<{ddl(data_type.elementType)}>"
    if isinstance(data_type, st.MapType):
        return f"map<{ddl(data_type.keyType)},{ddl(data_type.valueType)}>"
    return data_type.simpleString()


# -- column expressions over variants -------------------------------------------------------------------


def json_field_path(name: str) -> str:
    if '"' in name:
        if "'" in name:
            raise GlueRuntimeError(f"JSON field name {name!r} has both quote characters; it cannot be addressed")
        return f"$['{name}']"
    return f'$["{name}"]'


def kind_of(value: Column) -> Column:
    """The Glue type name of a variant value (NULL for SQL NULL and JSON null).

    From the first three letters of ``schema_of_variant`` (no regular expression: this runs per value). The
    variant parser drops trailing zeros (``-3.0`` is ``DECIMAL(1,0)``), so only a ``DECIMAL(p,0)`` with
    ``p >= 19`` is an integer beyond the long range; any other decimal had a fraction and is a double.
    """
    from pyspark.sql import functions as F

    schema = F.schema_of_variant(value)
    precision = F.substring_index(F.substring_index(schema, ",", 1), "(", -1).cast("int")
    big_integer = schema.endswith(",0)") & (precision >= 19)
    key = F.concat(F.substring(schema, 1, 3), F.when(big_integer, F.lit("0")).otherwise(F.lit("")))
    kinds = F.create_map(*[F.lit(x) for pair in _KIND_OF_KEY.items() for x in pair])
    return F.try_element_at(kinds, key)


def is_object(value: Column) -> Column:
    from pyspark.sql import functions as F

    return F.try_variant_get(value, "$", "struct<>").isNotNull()


def _child(value: Column, seg: Seg) -> Column:
    from pyspark.sql import functions as F

    if seg[0] == "field":
        return F.variant_get(value, json_field_path(seg[1]), "variant")
    raise AssertionError(seg)


def value_at(value: Column, segs: list[Seg]) -> Column:
    for seg in segs:
        value = _child(value, seg)
    return value


def values_at(value: Column, segs: list[Seg]) -> Column:
    """array<variant> of every value at ``segs`` below ``value`` (arrays flattened, choice members filtered)."""
    from pyspark.sql import functions as F

    if not segs:
        return F.array(value)
    seg, rest = segs[0], segs[1:]
    if seg[0] == "field":
        return values_at(_child(value, seg), rest)
    if seg[0] == "member":
        return F.when(kind_of(value) == seg[1], values_at(value, rest))
    elements = F.try_variant_get(value, "$", "array<variant>")
    if not rest:
        return elements
    empty = F.array().cast("array<variant>")
    return F.flatten(F.transform(elements, lambda e: F.coalesce(values_at(e, rest), empty)))


def build(value: Column, node: TypeNode) -> Column:
    """The typed value of ``node`` read from a variant: one ``try_variant_get`` where no choice is inside."""
    from pyspark.sql import functions as F

    if not node.has_choice():
        return F.try_variant_get(value, "$", ddl(_spark_type(node)))
    if node.kind == "struct":
        members = [build(_child(value, ("field", name)), child).alias(name) for name, child in node.fields.items()]
        return F.when(is_object(value), F.struct(*members))
    if node.kind == "array":
        assert node.element is not None
        element = node.element
        return F.transform(F.try_variant_get(value, "$", "array<variant>"), lambda e: build(e, element))
    # a choice: the member named after the value's kind is set (Spark evaluates the common kind once)
    return build_choice(value, kind_of(value), node)


def build_choice(value: Column, kind: Column, node: TypeNode) -> Column:
    """A choice ``node``'s value built from a variant whose kind (``kind_of``) is ``kind``: the member of that
    kind set, the others null."""
    from pyspark.sql import functions as F

    parts = [F.when(kind == name, build(value, node.members[name])).alias(name) for name in sorted(node.members)]
    return F.when(kind.isNotNull(), F.struct(*parts))


# -- inference ---------------------------------------------------------------------------------------------


@dataclass
class Branch:
    """A kind of row holding values: rows where ``condition`` holds have their values at ``prefix`` of ``root``."""

    condition: Column
    root: Column
    prefix: list[Seg]
    objects_only: bool = False

    def values(self) -> Column:
        from pyspark.sql import functions as F

        values = values_at(self.root, self.prefix)
        if self.objects_only:
            values = F.filter(values, is_object)
        return values


def _pending(node: TypeNode, segs: list[Seg], out: list[tuple[list[Seg], TypeNode]]) -> None:
    if node.kind == "pending":
        out.append((segs, node))
    elif node.kind == "struct":
        for name, child in node.fields.items():
            _pending(child, [*segs, ("field", name)], out)
    elif node.kind == "array" and node.element is not None:
        _pending(node.element, [*segs, ELEM], out)
    elif node.kind == "choice":
        for name, member in node.members.items():
            _pending(member, [*segs, ("member", name)], out)


def _parse_schema(text: str | None) -> st.DataType | None:
    if not text:
        return None
    return catalog_type_to_spark(text)


def infer(df: DataFrame, branches: list[Branch]) -> tuple[TypeNode | None, int, list[bool]]:
    """Infer the Glue type of the values of ``branches`` over ``df``.

    Returns:
        (the type, or None without values; the aggregate passes run; whether each branch had values).
    """
    from pyspark.sql import functions as F
    from pyspark.sql import types as st

    aggregates = []
    for branch in branches:
        if not branch.prefix and not branch.objects_only:
            aggregates.append(F.schema_of_variant_agg(F.when(branch.condition, branch.root)))
        else:
            aggregates.append(F.schema_of_variant_agg(F.when(branch.condition, branch.values().cast("variant"))))
    whole = [b for b in branches if not b.prefix and not b.objects_only]
    if whole:  # the kinds of each top-level field too: no second pass for conflicts among atomic kinds
        aggregates.append(_top_level_kinds(whole[0]))
    row = df.agg(*aggregates).first()
    passes = 1
    merged: st.DataType | None = None
    present: list[bool] = []
    results = list(row) if row is not None else [None] * len(aggregates)
    top_kinds = _parse_top_level_kinds(results.pop()) if whole else None
    for branch, text in zip(branches, results, strict=True):
        parsed = _parse_schema(text)
        if parsed is not None and (branch.prefix or branch.objects_only):
            parsed = parsed.elementType if isinstance(parsed, st.ArrayType) else None
        present.append(parsed is not None and not isinstance(parsed, st.NullType))
        merged = _merge_spark(merged, parsed)
    if merged is None or isinstance(merged, st.NullType):
        return None, passes, present
    holder = TypeNode("struct", fields={"": _node_from_spark(merged)})
    branches = [b for b, p in zip(branches, present, strict=True) if p]
    if top_kinds is not None and branches == whole[:1]:
        _resolve_top_level(holder.fields[""], top_kinds)
    while passes < MAX_PASSES:
        pending: list[tuple[list[Seg], TypeNode]] = []
        _pending(holder, [], pending)
        if not pending:
            break
        _resolve_pass(df, branches, pending)
        passes += 1
    leftover: list[tuple[list[Seg], TypeNode]] = []
    _pending(holder, [], leftover)
    for _, node in leftover:  # conflicts nested deeper than MAX_PASSES: keep their JSON text
        node.kind, node.name = "atomic", "string"
    return holder.fields[""], passes, present


def _top_level_kinds(branch: Branch) -> Column:
    """An aggregate of the ``field NUL kind`` pairs seen at the top level of ``branch``'s records."""
    from pyspark.sql import functions as F

    entries = F.map_entries(F.try_variant_get(branch.root, "$", "map<string,variant>"))
    pairs = F.transform(entries, lambda e: F.concat(e["key"], F.lit("\u0000"), kind_of(e["value"])))
    return F.collect_set(F.when(branch.condition, pairs))


def _parse_top_level_kinds(sets: list[list[str | None]] | None) -> dict[str, set[str]]:
    kinds: dict[str, set[str]] = {}
    for pairs in sets or []:
        for pair in pairs or []:
            if pair is not None:  # a JSON null has no kind
                name, _, kind = pair.rpartition("\u0000")
                kinds.setdefault(name, set()).add(kind)
    return kinds


def _resolve_top_level(record: TypeNode, kinds: dict[str, set[str]]) -> None:
    """Settle the pending top-level fields whose kinds are all atomic, as a second pass would."""
    for name, node in record.fields.items():
        seen = kinds.get(name, set())
        if node.kind != "pending" or seen & {"struct", "array"}:
            continue
        members = {kind: TypeNode("atomic", kind) for kind in sorted(seen)}
        resolved = next(iter(members.values())) if len(members) == 1 else (
            TypeNode("choice", members=members) if members else TypeNode("atomic", "string"))
        node.kind, node.name, node.members = resolved.kind, resolved.name, resolved.members


def _resolve_pass(df: DataFrame, branches: list[Branch], pending: list[tuple[list[Seg], TypeNode]]) -> None:
    """One aggregate over ``df``: the Glue types seen at each pending path, and for conflicts the merged schema
    of their object and array values. The per-row values and kinds are projected once before aggregating."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as st

    projections: list[Column] = []
    aggregates: list[Column] = []
    shapes: list[bool] = []
    for i, (segs, node) in enumerate(pending):
        rel = segs[1:]  # drop the holder's field
        value_col, kind_col = F.col(f"_v{i}"), F.col(f"_k{i}")
        single = len(branches) == 1 and not branches[0].objects_only and ELEM not in [*branches[0].prefix, *rel]
        shapes.append(single)
        if single:
            branch = branches[0]
            value = F.when(branch.condition, _at_or_member(branch.root, [*branch.prefix, *rel]))
            projections += [value.alias(f"_v{i}"), kind_of(value).alias(f"_k{i}")]
            aggregates.append(F.collect_set(kind_col))
            if node.name == "variant":
                aggregates.append(F.schema_of_variant_agg(F.when(kind_col == "struct", value_col)))
                aggregates.append(F.schema_of_variant_agg(F.when(kind_col == "array", value_col)))
            continue
        per_row = None
        for branch in branches:
            branch_values = F.when(branch.condition, _values_at_branch(branch, rel))
            per_row = branch_values if per_row is None else F.coalesce(per_row, branch_values)
        assert per_row is not None
        pairs = F.transform(per_row, lambda v: F.struct(v.alias("v"), kind_of(v).alias("k")))
        projections.append(pairs.alias(f"_v{i}"))
        aggregates.append(F.flatten(F.collect_set(F.transform(value_col, lambda p: p["k"]))))
        if node.name == "variant":
            for kind in ("struct", "array"):
                chosen = F.transform(F.filter(value_col, _kind_is(kind)), lambda p: p["v"])
                aggregates.append(F.schema_of_variant_agg(
                    F.when(F.exists(value_col, _kind_is(kind)), chosen.cast("variant"))))
    row = df.select(*projections).agg(*aggregates).first()
    results = list(row or [])
    for (_, node), single in zip(pending, shapes, strict=True):
        kinds = sorted({k for k in (results.pop(0) or []) if k})
        object_type = array_type = None
        if node.name == "variant":
            object_type, array_type = _parse_schema(results.pop(0)), _parse_schema(results.pop(0))
            if not single:  # the values of a row were gathered into an array
                object_type = object_type.elementType if isinstance(object_type, st.ArrayType) else None
                array_type = array_type.elementType if isinstance(array_type, st.ArrayType) else None
        members = {kind: _member_node(kind, object_type, array_type) for kind in kinds}
        if len(members) == 1:
            resolved = next(iter(members.values()))
        elif not members:
            resolved = TypeNode("atomic", "string")
        else:
            resolved = TypeNode("choice", members=members)
        node.kind, node.name = resolved.kind, resolved.name
        node.fields, node.element, node.members = resolved.fields, resolved.element, resolved.members


def _kind_is(kind: str) -> Callable[[Column], Column]:
    return lambda pair: pair["k"] == kind


def _at_or_member(value: Column, segs: list[Seg]) -> Column:
    """The value at a path of fields and choice members (no arrays): NULL where a member does not match."""
    from pyspark.sql import functions as F

    for seg in segs:
        value = F.when(kind_of(value) == seg[1], value) if seg[0] == "member" else _child(value, seg)
    return value


def _values_at_branch(branch: Branch, rel: list[Seg]) -> Column:
    from pyspark.sql import functions as F

    if branch.objects_only:
        records = branch.values()
        if not rel:
            return records
        empty = F.array().cast("array<variant>")
        return F.flatten(F.transform(records, lambda r: F.coalesce(values_at(r, rel), empty)))
    return values_at(branch.root, [*branch.prefix, *rel])


def _member_node(kind: str, object_type: st.DataType | None, array_type: st.DataType | None) -> TypeNode:
    from pyspark.sql import types as st

    if kind == "struct":
        return _node_from_spark(object_type if isinstance(object_type, st.StructType) else st.StructType([]))
    if kind == "array":
        return _node_from_spark(array_type if isinstance(array_type, st.ArrayType) else st.ArrayType(st.NullType()))
    return TypeNode("atomic", kind)


def record_columns(record: Column, node: TypeNode) -> list[Column]:
    """The typed top-level columns of a record variant, choice markers set (nested ones through a cast)."""
    return [typed_field(name, child, build(_child(record, ("field", name)), child))
            for name, child in node.fields.items()]


def field_value(record: Column, name: str, node: TypeNode) -> Column:
    """Field ``name`` of a record variant built as type ``node`` (``build``)."""
    return build(_child(record, ("field", name)), node)


def typed_field(name: str, node: TypeNode, value: Column) -> Column:
    """``value`` (built as ``node``) as the record's column ``name``: choice markers set, nested ones through a cast."""
    spark_field = _spark_field(name, node)
    if _nested_choice(node):
        value = value.cast(spark_field.dataType)
    return value.alias(name, metadata=spark_field.metadata)


def _nested_choice(node: TypeNode) -> bool:
    if node.kind == "choice":
        return any(m.has_choice() for m in node.members.values())
    return node.has_choice() and not (node.kind == "array" and node.element is not None
                                      and node.element.kind in ("choice", "array") and not _nested_choice(node.element))


def node_schema(node: TypeNode) -> st.StructType:
    """The DataFrame schema of a record type (choices marked in field metadata)."""
    from pyspark.sql import types as st

    schema = _spark_type(node)
    assert isinstance(schema, st.StructType)
    return schema


def value_field(name: str, node: TypeNode) -> st.StructField:
    """The StructField holding a value of ``node``'s type (choice markers included)."""
    return _spark_field(name, node)
