"""JSON lines typed as the eager typing types them, from one scan, read by Spark's JSON reader.

Typing JSON records eagerly (``glueball.runtime.inference``) parses every record into a VARIANT,
aggregates the variants' schemas (one pass, more for conflicts nested inside choices) and builds each
field from the parsed variant again. For JSON lines (no ``jsonPath``, not ``multiline``) the JVM
scanner finds the same types in one pass (``rawkinds.json_shapes``: the kinds of the values at every
place of the records, malformed lines left out), and Spark's JSON reader reads each top-level field as
its type straight from the text, as ``spark.read.json`` does after its own inference. A field with a
choice inside (a place holding values of several kinds), or a negative zero in decimal form (``-0.0``,
``0.0`` to the variant parser), is read as a VARIANT and built as the eager typing builds it.

The types follow the eager typing's rules: integers are ``long``, fractions ``double``, a place with
values of several kinds a choice of them, a place only ever null ``string``, fields in name order. What
the scan does not settle goes the eager way: lines holding arrays, a record repeating a key, numbers
whose kind the variant parser's decimal limits decide (integers beyond the long range, fractions of 20
characters or more), choices nested deeper than the eager typing's passes resolve, top-level keys that
differ only in case.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from glueball.runtime.inference import (
    MAX_PASSES,
    TypeNode,
    build,
    build_choice,
    field_value,
    kind_of,
    typed_field,
    value_field,
)
from glueball.runtime.io import rawkinds
from glueball.runtime.io.csvtypes import column_ref
from glueball.runtime.io.jsonfields import MALFORMED, column, records_of

if TYPE_CHECKING:
    from pyspark.sql import DataFrame
    from pyspark.sql.types import DataType

    from glueball.runtime.io.jsonfields import JsonFields

_ATOMIC = ((rawkinds.BOOLEAN, "boolean"), (rawkinds.DOUBLE, "double"), (rawkinds.LONG, "long"),
           (rawkinds.STRING, "string"))
_KIND = "__glueball_kind{}"
_UNSETTLED = rawkinds.ARRAY_LINE | rawkinds.DUPLICATE_KEY | rawkinds.UNSETTLED_NUMBER


def _name_order(name: str) -> bytes:
    """The order of variant object fields: Java's ``String.compareTo``, by UTF-16 code units."""
    return name.encode("utf-16-be", "surrogatepass")


def node_of(shape: dict[str, Any]) -> TypeNode:
    """The Glue type of the values at a place of the records, as the eager typing infers it."""
    kinds = int(shape.get("k", 0))
    members: dict[str, TypeNode] = {name: TypeNode("atomic", name) for bit, name in _ATOMIC if kinds & bit}
    if kinds & rawkinds.OBJECT:
        fields = shape.get("f") or {}
        members["struct"] = TypeNode("struct", fields={name: node_of(fields[name])
                                                       for name in sorted(fields, key=_name_order)})
    if kinds & rawkinds.ARRAY:
        element = shape.get("e")
        members["array"] = TypeNode("array", element=node_of(element) if element else TypeNode("atomic", "string"))
    if not members:  # only ever null
        return TypeNode("atomic", "string")
    if len(members) == 1:
        return next(iter(members.values()))
    return TypeNode("choice", members=dict(sorted(members.items())))


def _below(node: TypeNode) -> list[TypeNode]:
    """The types directly inside ``node``: a struct's fields, a choice's members, an array's element."""
    return [*node.fields.values(), *node.members.values(), *([node.element] if node.element else [])]


def _choice_depth(node: TypeNode) -> int:
    """The most choices on one path down ``node``: each needs one more of the eager typing's passes."""
    deepest = max((_choice_depth(child) for child in _below(node)), default=0)
    return deepest + (1 if node.kind == "choice" else 0)


def _by_decimal(shape: dict[str, Any]) -> bool:
    """Whether a value at or below this place has its double from its decimal (``-0.0``)."""
    if int(shape.get("k", 0)) & rawkinds.BY_DECIMAL:
        return True
    children = [*(shape.get("f") or {}).values(), *([shape["e"]] if shape.get("e") else [])]
    return any(_by_decimal(child) for child in children)


def _case_collision(node: TypeNode) -> bool:
    """Whether a struct at or below ``node`` has fields whose names differ only in case (Spark's reader refuses a
    schema with them)."""
    if node.kind == "struct" and len({name.lower() for name in node.fields}) < len(node.fields):
        return True
    return any(_case_collision(child) for child in _below(node))


def typed_records(reader: JsonFields) -> DataFrame | None:
    """The records of ``reader``'s files typed as the eager typing types them, or None where the scan does not
    settle the types (the caller then types the parsed records)."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as st

    shapes = reader.shapes()
    if shapes is None or shapes.has(_UNSETTLED):
        return None
    fields = shapes.root.get("f") or {}
    names = sorted((name for name in fields if name not in reader.carried), key=_name_order)
    if not names or len({name.lower() for name in names}) < len(names):
        return None  # (no field: Spark refuses a scan of the malformed-line column alone)
    nodes = {name: node_of(fields[name]) for name in names}
    if any(_choice_depth(node) >= MAX_PASSES for node in nodes.values()):
        return None
    # a field is read as its own type where nothing in it needs the variant: a choice, a -0.0, case-colliding names
    native = {name: not node.has_choice() and not _by_decimal(fields[name]) and not _case_collision(node)
              for name, node in nodes.items()}
    types: dict[str, DataType] = {
        name: value_field(name, node).dataType if native[name]
        else st.VariantType() for name, node in nodes.items()}
    rows = reader.read(types)
    line = F.col(MALFORMED)
    record = F.try_parse_json(line)  # a refused line, parsed as the records path parses it (they are rare)
    rows = records_of(rows, record)
    # the kind of a choice's value, told once in a projection of its own (Spark keeps an expensive expression
    # from being repeated in every member's condition when it would merge the two projections)
    choices = [i for i, name in enumerate(names) if nodes[name].kind == "choice"]
    carried = [column_ref(c) for c in reader.carried]
    kinds = [kind_of(F.col(column(i))).alias(_KIND.format(i)) for i in choices]
    rows = rows.select(*[F.col(column(i)) for i in range(len(names))], line, *kinds, *carried)
    columns = []
    for i, name in enumerate(names):
        node, value = nodes[name], F.col(column(i))
        if native[name]:
            read = value
        elif i in choices:
            read = build_choice(value, F.col(_KIND.format(i)), node)
        else:
            read = build(value, node)
        columns.append(typed_field(name, node, F.when(line.isNull(), read).otherwise(field_value(record, name, node))))
    return rows.select(*columns, *carried)

