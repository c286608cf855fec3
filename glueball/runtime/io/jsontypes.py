"""Fields of JSON records held as variants, read for a conversion to an explicit type with no inference pass.

A JSON read keeps each record as a VARIANT until its schema is needed
(``glueball.runtime.jsonrecords``). Glue types a JSON value by what it is in its own
record: an integer is ``long``, a number with a fraction ``double``, text ``string``; a
field holding several kinds becomes a choice, and converting a choice to a type converts
each record's member. So a field converted to an explicit type needs no inference: each
value is read as its own kind and converted from that, which is what
converting the eagerly typed field gives. Values that are objects or arrays convert to
null, or to their JSON text for ``string`` (the eager conversion fails for non-string
types; its text of a struct lists the fields the merged schema has and drops nulls). The
conversion is ``glueball.runtime.ops.pending_mapping.json_field_as``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import Column
    from pyspark.sql.types import DataType


def other_case_value(record: Column, name: str) -> Column:
    """Of each record variant, the value of its first key (in name order) equal to ``name`` ignoring case.

    What a case-insensitive mapping source reads in a record without the exact key, as the source
    matches a schema's field of another case (a schema lists JSON fields in name order).
    """
    from pyspark.sql import functions as F

    lowered = name.lower()
    matching = F.map_filter(F.try_variant_get(record, "$", "map<string,variant>"),
                            lambda key, _value: F.lower(key) == F.lit(lowered))
    keys = F.array_sort(F.map_keys(matching))
    return F.when(F.size(keys) > 0, F.element_at(matching, F.element_at(keys, 1)))


def direct_target(target: DataType | None) -> bool:
    """Whether ``pending_mapping.direct_convert`` serves ``target``: atomic types (kept and complex types need
    the schema)."""
    from pyspark.sql import types as st

    return target is not None and not isinstance(target, st.StructType | st.ArrayType | st.MapType | st.NullType
                                                      | st.BinaryType)
