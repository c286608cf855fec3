"""Glue's type system (upstream ``awsglue.gluetypes``) and its mapping to Spark types.

A DynamicFrame is a Spark DataFrame; its Glue schema is derived from the Spark
schema. A Glue ``ChoiceType`` (a field seen with more than one type) is stored
as a Spark struct whose fields are named after the member types (``long``,
``string``, ...), the ``StructField`` marked with ``CHOICE_METADATA``. An array
whose innermost element is a choice marks its field with
``ELEMENT_CHOICE_METADATA`` instead (an array element has no StructField).

Type names follow Glue: ``DataType.typeName()`` is the class name without
``Type``, lower case, except ``IntegerType`` which is ``int``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from glueball.runtime.errors import GlueRuntimeError

if TYPE_CHECKING:
    from pyspark.sql import types as st

# the Spark field metadata key that marks a choice column (a value seen with several types); the
# DynamicFrame type, its operations and the readers that infer choices share it from here
CHOICE_METADATA = "glueball.choice"
ELEMENT_CHOICE_METADATA = "glueball.choice.element"

__all__ = [
    "ArrayType", "AtomicType", "BinaryType", "BooleanType", "ByteType", "ChoiceType", "DataType", "DateType",
    "DecimalType", "DoubleType", "EntityType", "EnumType", "Field", "FloatType", "IntegerType", "LongType",
    "MapType", "NullType", "SetType", "ShortType", "StringType", "StructType", "TimestampType", "UnknownType",
    "catalog_type_to_spark", "from_spark_schema", "from_spark_type", "mergeDataTypes", "spark_type_from_glue_name",
    "to_spark_field", "to_spark_schema", "to_spark_type",
]


class DataType:
    """The base of every Glue type; ``properties`` are free-form annotations."""

    def __init__(self, properties: dict[str, Any] | None = None) -> None:
        self.properties: dict[str, Any] = dict(properties or {})

    def __eq__(self, other: object) -> bool:
        return isinstance(other, self.__class__) and self.__dict__ == other.__dict__

    def __hash__(self) -> int:
        return hash(self.__class__.__name__)

    @classmethod
    def typeName(cls) -> str:  # noqa: N802
        return cls.__name__[:-4].lower()

    def jsonValue(self) -> dict[str, Any]:  # noqa: N802
        return {"dataType": self.typeName(), "properties": self.properties}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.properties})"


class AtomicType(DataType):
    """A type without inner types."""

    @classmethod
    def fromJsonValue(cls, json_value: dict[str, Any]) -> DataType:  # noqa: N802
        return cls(properties=json_value.get("properties", {}))


class BinaryType(AtomicType):
    pass


class BooleanType(AtomicType):
    pass


class ByteType(AtomicType):
    pass


class DateType(AtomicType):
    pass


class DecimalType(AtomicType):
    """A fixed-point decimal (Glue's defaults: precision 10, scale 2)."""

    def __init__(self, precision: int = 10, scale: int = 2, properties: dict[str, Any] | None = None) -> None:
        super().__init__(properties)
        self.precision = precision
        self.scale = scale

    def __repr__(self) -> str:
        return f"DecimalType({self.precision}, {self.scale}, {self.properties})"

    def jsonValue(self) -> dict[str, Any]:  # noqa: N802
        return {**super().jsonValue(), "precision": self.precision, "scale": self.scale}

    @classmethod
    def fromJsonValue(cls, json_value: dict[str, Any]) -> DataType:  # noqa: N802
        return cls(json_value.get("precision", 10), json_value.get("scale", 2), json_value.get("properties", {}))


class DoubleType(AtomicType):
    pass


class EnumType(AtomicType):
    """A string restricted to ``options``."""

    def __init__(self, options: list[str] | None = None, properties: dict[str, Any] | None = None) -> None:
        super().__init__(properties)
        self.options = list(options or [])

    def __repr__(self) -> str:
        shown = ",".join(self.options[:3]) + (",..." if len(self.options) > 3 else "")
        return f"EnumType([{shown}], {self.properties})"

    def jsonValue(self) -> dict[str, Any]:  # noqa: N802
        return {**super().jsonValue(), "options": list(self.options)}

    @classmethod
    def fromJsonValue(cls, json_value: dict[str, Any]) -> DataType:  # noqa: N802
        return cls(json_value.get("options", []), json_value.get("properties", {}))


class FloatType(AtomicType):
    pass


class IntegerType(AtomicType):
    @classmethod
    def typeName(cls) -> str:  # noqa: N802
        return "int"


class LongType(AtomicType):
    pass


class NullType(AtomicType):
    pass


class ShortType(AtomicType):
    pass


class StringType(AtomicType):
    pass


class TimestampType(AtomicType):
    pass


class UnknownType(AtomicType):
    pass


class ArrayType(DataType):
    """A list of ``elementType`` values."""

    def __init__(self, elementType: DataType | None = None,  # noqa: N803
                 properties: dict[str, Any] | None = None) -> None:
        super().__init__(properties)
        self.elementType = elementType if elementType is not None else UnknownType()

    def __repr__(self) -> str:
        return f"ArrayType({self.elementType}, {self.properties})"

    def jsonValue(self) -> dict[str, Any]:  # noqa: N802
        return {**super().jsonValue(), "elementType": self.elementType.jsonValue()}

    @classmethod
    def fromJsonValue(cls, json_value: dict[str, Any]) -> DataType:  # noqa: N802
        return cls(_from_json_value(json_value["elementType"]), json_value.get("properties", {}))


class SetType(ArrayType):
    """A set of ``elementType`` values (stored as a Spark array)."""

    def __repr__(self) -> str:
        return f"SetType({self.elementType}, {self.properties})"


class ChoiceType(DataType):
    """A field seen with more than one type; ``choices`` maps each member's typeName to its type."""

    def __init__(self, choices: list[DataType] | None = None, properties: dict[str, Any] | None = None) -> None:
        super().__init__(properties)
        self.choices: dict[str, DataType] = {}
        for choice in choices or []:
            self.add(choice)

    def __repr__(self) -> str:
        members = ",".join(str(c) for c in sorted(self.choices.values(), key=lambda c: c.typeName()))
        return f"ChoiceType([{members}], {self.properties})"

    def add(self, new_choice: DataType) -> None:
        if new_choice.typeName() in self.choices:
            raise ValueError(f"ChoiceType already has a {new_choice.typeName()} member")
        self.choices[new_choice.typeName()] = new_choice

    def merge(self, new_choices: DataType | list[DataType]) -> None:
        for choice in new_choices if isinstance(new_choices, list) else [new_choices]:
            existing = self.choices.get(choice.typeName(), UnknownType())
            self.choices[choice.typeName()] = mergeDataTypes(existing, choice)

    def jsonValue(self) -> dict[str, Any]:  # noqa: N802
        return {**super().jsonValue(), "choices": [c.jsonValue() for c in self.choices.values()]}

    @classmethod
    def fromJsonValue(cls, json_value: dict[str, Any]) -> DataType:  # noqa: N802
        return cls([_from_json_value(c) for c in json_value["choices"]], json_value.get("properties", {}))


class MapType(DataType):
    """A map from string keys to ``valueType`` values."""

    def __init__(self, valueType: DataType | None = None,  # noqa: N803
                 properties: dict[str, Any] | None = None) -> None:
        super().__init__(properties)
        self.valueType = valueType if valueType is not None else UnknownType()

    def __repr__(self) -> str:
        return f"MapType({self.valueType}, {self.properties})"

    def jsonValue(self) -> dict[str, Any]:  # noqa: N802
        return {**super().jsonValue(), "valueType": self.valueType.jsonValue()}

    @classmethod
    def fromJsonValue(cls, json_value: dict[str, Any]) -> DataType:  # noqa: N802
        return cls(_from_json_value(json_value["valueType"]), json_value.get("properties", {}))


class Field:
    """A named field of a StructType."""

    def __init__(self, name: str, dataType: DataType,  # noqa: N803
                 properties: dict[str, Any] | None = None) -> None:
        if not isinstance(dataType, DataType):
            raise TypeError(f"dataType should be a DataType, got {type(dataType).__name__}")
        self.name = name
        self.dataType = dataType
        self.properties: dict[str, Any] = dict(properties or {})

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Field) and self.name == other.name and self.dataType == other.dataType

    def __hash__(self) -> int:
        return hash(self.name)

    def __repr__(self) -> str:
        return f"Field({self.name}, {self.dataType}, {self.properties})"

    def jsonValue(self) -> dict[str, Any]:  # noqa: N802
        return {"name": self.name, "container": self.dataType.jsonValue(), "properties": self.properties}

    @classmethod
    def fromJsonValue(cls, json_value: dict[str, Any]) -> Field:  # noqa: N802
        return cls(json_value["name"], _from_json_value(json_value["container"]), json_value.get("properties", {}))


class StructType(DataType):
    """A record type: an ordered list of Fields, also reachable by name through ``field_map``."""

    def __init__(self, fields: list[Field] | None = None, properties: dict[str, Any] | None = None) -> None:
        super().__init__(properties)
        self.fields: list[Field] = list(fields or [])
        if not all(isinstance(f, Field) for f in self.fields):
            raise TypeError("fields should be a list of Field")
        self.field_map: dict[str, Field] = {f.name: f for f in self.fields}

    def __iter__(self) -> Iterator[Field]:
        return iter(self.fields)

    def __repr__(self) -> str:
        return f"StructType([{','.join(str(f) for f in self.fields)}], {self.properties})"

    def add(self, field: Field) -> None:
        self.fields.append(field)
        self.field_map[field.name] = field

    def hasField(self, field: Field | str) -> bool:  # noqa: N802
        return (field.name if isinstance(field, Field) else field) in self.field_map

    def getField(self, field: Field | str) -> Field:  # noqa: N802
        return self.field_map[field.name if isinstance(field, Field) else field]

    def jsonValue(self) -> dict[str, Any]:  # noqa: N802
        return {**super().jsonValue(), "fields": [f.jsonValue() for f in self.fields]}

    @classmethod
    def fromJsonValue(cls, json_value: dict[str, Any]) -> DataType:  # noqa: N802
        return cls([Field.fromJsonValue(f) for f in json_value["fields"]], json_value.get("properties", {}))

    def json(self) -> str:
        return json.dumps(self.jsonValue())

    def pretty(self) -> str:
        """The schema as a tree, like Glue's ``printSchema()``:

        ``root`` then one ``|-- name: type`` line per field, nested members indented by ``|    ``.
        """
        lines = ["root"]
        for field in self.fields:
            _pretty_lines(lines, field.name, field.dataType, 0)
        return "\n".join(lines) + "\n"


class EntityType(DataType):
    """A named entity wrapping a base type (upstream leaves it unimplemented)."""

    def __init__(self, entity: str, base_type: DataType, properties: dict[str, Any] | None = None) -> None:
        super().__init__(properties)
        self.entity = entity
        self.base_type = base_type


def _pretty_lines(lines: list[str], name: str | None, data_type: DataType, depth: int) -> None:
    prefix = "|    " * depth + "|-- "
    lines.append(f"{prefix}{name}: {data_type.typeName()}" if name is not None
                 else f"{prefix}{data_type.typeName()}")
    if isinstance(data_type, StructType):
        for field in data_type.fields:
            _pretty_lines(lines, field.name, field.dataType, depth + 1)
    elif isinstance(data_type, ArrayType):
        _pretty_lines(lines, "element", data_type.elementType, depth + 1)
    elif isinstance(data_type, MapType):
        _pretty_lines(lines, "keyType", StringType(), depth + 1)
        _pretty_lines(lines, "valueType", data_type.valueType, depth + 1)
    elif isinstance(data_type, ChoiceType):
        for member in sorted(data_type.choices):
            _pretty_lines(lines, None, data_type.choices[member], depth + 1)


_ALL_TYPES: dict[str, type[DataType]] = {
    t.typeName(): t for t in (BinaryType, BooleanType, ByteType, DateType, DecimalType, DoubleType, EnumType,
                              FloatType, IntegerType, LongType, NullType, ShortType, StringType, TimestampType,
                              UnknownType, ArrayType, SetType, ChoiceType, MapType, StructType)
}


def _from_json_value(json_value: dict[str, Any]) -> DataType:
    type_class = _ALL_TYPES.get(json_value.get("dataType", ""))
    if type_class is None:
        raise GlueRuntimeError(f"Unknown Glue dataType {json_value.get('dataType')!r} in {json_value}")
    return type_class.fromJsonValue(json_value)  # type: ignore[attr-defined]


def from_json(text: str | dict[str, Any]) -> DataType:
    """A Glue type from its ``jsonValue()`` form (a dict or its JSON text), as Unbox's ``withSchema`` gives it."""
    return _from_json_value(json.loads(text) if isinstance(text, str) else text)


def mergeDataTypes(s1: DataType, s2: DataType) -> DataType:  # noqa: N802
    """Merge two Glue types as Glue does: unknown/null give way, different types become a ChoiceType."""
    if isinstance(s1, UnknownType | NullType):
        return s2
    if isinstance(s2, UnknownType | NullType):
        return s1
    if isinstance(s1, ChoiceType) or isinstance(s2, ChoiceType) or type(s1) is not type(s2):
        merged = ChoiceType(list(s1.choices.values()) if isinstance(s1, ChoiceType) else [s1], s1.properties)
        merged.merge(list(s2.choices.values()) if isinstance(s2, ChoiceType) else [s2])
        return merged
    if isinstance(s1, StructType) and isinstance(s2, StructType):
        fields = [Field(f.name, mergeDataTypes(f.dataType, s2.getField(f.name).dataType), f.properties)
                  if s2.hasField(f.name) else f for f in s1.fields]
        fields.extend(f for f in s2.fields if not s1.hasField(f.name))
        return StructType(fields, s1.properties)
    if isinstance(s1, ArrayType) and isinstance(s2, ArrayType):
        return type(s1)(mergeDataTypes(s1.elementType, s2.elementType))
    if isinstance(s1, MapType) and isinstance(s2, MapType):
        return MapType(mergeDataTypes(s1.valueType, s2.valueType))
    if isinstance(s1, EnumType) and isinstance(s2, EnumType):
        return EnumType(s1.options + [o for o in s2.options if o not in s1.options])
    return s1


# -- Spark <-> Glue ----------------------------------------------------------------------------------


def from_spark_type(spark_type: st.DataType, element_choice: bool = False) -> DataType:
    """The Glue type of a Spark type; a struct is a ChoiceType only when its field says so.

    Args:
        spark_type: the Spark type.
        element_choice: the innermost element of this (array) type is a choice struct.
    """
    from pyspark.sql import types as st

    if isinstance(spark_type, st.ArrayType):
        return ArrayType(from_spark_type(spark_type.elementType, element_choice))
    if element_choice and isinstance(spark_type, st.StructType):
        return _choice_from_spark(spark_type)
    if isinstance(spark_type, st.StructType):
        return from_spark_schema(spark_type)
    if isinstance(spark_type, st.MapType):
        return MapType(from_spark_type(spark_type.valueType))
    if isinstance(spark_type, st.DecimalType):
        return DecimalType(spark_type.precision, spark_type.scale)
    for spark_class, glue_class in _ATOMIC_FROM_SPARK:
        if isinstance(spark_type, spark_class):
            return glue_class()
    return UnknownType()


def _choice_from_spark(spark_type: st.StructType) -> ChoiceType:
    return ChoiceType([from_spark_type(f.dataType, bool(f.metadata.get(ELEMENT_CHOICE_METADATA)))
                       for f in spark_type.fields])


def from_spark_schema(schema: st.StructType) -> StructType:
    """The Glue schema of a DataFrame schema: choice-marked struct fields become ``ChoiceType``."""
    from pyspark.sql import types as st

    fields = []
    for spark_field in schema.fields:
        metadata = spark_field.metadata or {}
        if metadata.get(CHOICE_METADATA) and isinstance(spark_field.dataType, st.StructType):
            data_type: DataType = _choice_from_spark(spark_field.dataType)
        else:
            data_type = from_spark_type(spark_field.dataType, bool(metadata.get(ELEMENT_CHOICE_METADATA)))
        fields.append(Field(spark_field.name, data_type))
    return StructType(fields)


def to_spark_type(glue_type: DataType) -> st.DataType:
    """The Spark type storing a Glue type (a ChoiceType is a struct of its members, named by type name)."""
    from pyspark.sql import types as st

    if isinstance(glue_type, ChoiceType):
        members = [to_spark_field(Field(name, glue_type.choices[name])) for name in sorted(glue_type.choices)]
        return st.StructType(members)
    if isinstance(glue_type, StructType):
        return to_spark_schema(glue_type)
    if isinstance(glue_type, ArrayType):
        return st.ArrayType(to_spark_type(glue_type.elementType), True)
    if isinstance(glue_type, MapType):
        return st.MapType(st.StringType(), to_spark_type(glue_type.valueType), True)
    if isinstance(glue_type, DecimalType):
        return st.DecimalType(glue_type.precision, glue_type.scale)
    if isinstance(glue_type, EntityType):
        return to_spark_type(glue_type.base_type)
    for spark_class, glue_class in _ATOMIC_FROM_SPARK:
        if type(glue_type) is glue_class:
            return spark_class()
    if isinstance(glue_type, EnumType):
        return st.StringType()
    return st.NullType() if isinstance(glue_type, NullType) else st.StringType()


def to_spark_field(field: Field) -> st.StructField:
    """A Spark StructField for a Glue Field, carrying the choice markers in its metadata."""
    from pyspark.sql import types as st

    metadata: dict[str, Any] = {}
    if isinstance(field.dataType, ChoiceType):
        metadata[CHOICE_METADATA] = True
    else:
        inner = field.dataType
        while isinstance(inner, ArrayType):
            inner = inner.elementType
        if inner is not field.dataType and isinstance(inner, ChoiceType):
            metadata[ELEMENT_CHOICE_METADATA] = True
    return st.StructField(field.name, to_spark_type(field.dataType), True, metadata)


def to_spark_schema(schema: StructType) -> st.StructType:
    """The DataFrame schema storing a Glue StructType."""
    from pyspark.sql import types as st

    return st.StructType([to_spark_field(f) for f in schema.fields])


def _atomic_pairs() -> list[tuple[type, type[DataType]]]:
    from pyspark.sql import types as st

    return [
        (st.StringType, StringType), (st.CharType, StringType), (st.VarcharType, StringType),
        (st.IntegerType, IntegerType), (st.LongType, LongType), (st.ShortType, ShortType), (st.ByteType, ByteType),
        (st.FloatType, FloatType), (st.DoubleType, DoubleType), (st.BooleanType, BooleanType),
        (st.DateType, DateType), (st.TimestampType, TimestampType), (st.TimestampNTZType, TimestampType),
        (st.BinaryType, BinaryType), (st.NullType, NullType),
    ]


class _LazyPairs:
    """``_atomic_pairs()`` computed on first use (pyspark is imported lazily)."""

    _pairs: list[tuple[type, type[DataType]]] | None = None

    def __iter__(self) -> Iterator[tuple[Any, Any]]:
        if _LazyPairs._pairs is None:
            _LazyPairs._pairs = _atomic_pairs()
        return iter(_LazyPairs._pairs)


_ATOMIC_FROM_SPARK = _LazyPairs()


# -- type strings --------------------------------------------------------------------------------------

_TOKEN = re.compile(r"\s*(?:(`(?:[^`]|``)*`)|([A-Za-z0-9_][A-Za-z0-9_$\-.]*)|([<>(),:]))")

_SCALAR_NAMES = {
    "string": "string", "varchar": "string", "char": "string", "text": "string",
    "int": "int", "integer": "int", "bigint": "long", "long": "long", "smallint": "short", "short": "short",
    "tinyint": "byte", "byte": "byte", "float": "float", "real": "float", "double": "double",
    "boolean": "boolean", "bool": "boolean", "date": "date", "timestamp": "timestamp", "timestamp_ntz": "timestamp",
    "timestamp_ltz": "timestamp", "binary": "binary", "void": "null", "null": "null", "variant": "variant",
    "decimal": "decimal", "dec": "decimal", "numeric": "decimal",
}


class _TypeParser:
    """A recursive-descent parser of Hive/Glue/Spark type strings (``array<struct<a:int>>``, ``decimal(10,2)``).

    Also reads ``schema_of_variant`` output (``OBJECT<`a b`: BIGINT>``).
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens: list[str] = []
        pos = 0
        stripped = text.strip()
        while pos < len(stripped):
            match = _TOKEN.match(stripped, pos)
            if match is None or match.end() == pos:
                raise GlueRuntimeError(f"Cannot parse type {text!r} at {stripped[pos:]!r}")
            self.tokens.append(next(g for g in match.groups() if g is not None).strip())
            pos = match.end()
        self.pos = 0

    def parse(self) -> st.DataType:
        result = self._type()
        if self.pos != len(self.tokens):
            raise GlueRuntimeError(f"Cannot parse type {self.text!r}: unexpected {self.tokens[self.pos]!r}")
        return result

    def _peek(self) -> str | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def _take(self, expected: str | None = None) -> str:
        token = self._peek()
        if token is None or (expected is not None and token != expected):
            raise GlueRuntimeError(f"Cannot parse type {self.text!r}: expected {expected or 'more'}, got {token!r}")
        self.pos += 1
        return token

    def _type(self) -> st.DataType:
        from pyspark.sql import types as st

        name = self._take().lower()
        if name == "array":
            self._take("<")
            element = self._type()
            self._take(">")
            return st.ArrayType(element, True)
        if name == "map":
            self._take("<")
            key = self._type()
            self._take(",")
            value = self._type()
            self._take(">")
            return st.MapType(key, value, True)
        if name in ("struct", "object"):
            self._take("<")
            fields = []
            while self._peek() != ">":
                field_name = self._take()
                if field_name.startswith("`"):
                    field_name = field_name[1:-1].replace("``", "`")
                if self._peek() == ":":
                    self._take(":")
                fields.append(st.StructField(field_name, self._type(), True))
                if self._peek() == ",":
                    self._take(",")
            self._take(">")
            return st.StructType(fields)
        params: list[int] = []
        if self._peek() == "(":
            self._take("(")
            while self._peek() != ")":
                token = self._take()
                if token != ",":
                    if not token.isdigit():
                        raise GlueRuntimeError(f"Cannot parse type {self.text!r}: bad parameter {token!r}")
                    params.append(int(token))
            self._take(")")
        return _scalar(name, params, self.text)


def _scalar(name: str, params: list[int], text: str) -> st.DataType:
    from pyspark.sql import types as st

    canonical = _SCALAR_NAMES.get(name)
    if canonical is None:
        raise GlueRuntimeError(f"Unknown type {name!r} in {text!r}")
    if canonical == "decimal":
        precision = params[0] if params else 10
        scale = params[1] if len(params) > 1 else 0
        return st.DecimalType(min(precision, 38), scale)
    if canonical == "variant":
        return st.VariantType()
    simple: dict[str, st.DataType] = {
        "string": st.StringType(), "int": st.IntegerType(), "long": st.LongType(), "short": st.ShortType(),
        "byte": st.ByteType(), "float": st.FloatType(), "double": st.DoubleType(), "boolean": st.BooleanType(),
        "date": st.DateType(), "timestamp": st.TimestampType(), "binary": st.BinaryType(), "null": st.NullType(),
    }
    return simple[canonical]


def spark_type_from_glue_name(name: str) -> st.DataType:
    """The Spark type of a Glue/Hive type name, as ApplyMapping and ``resolveChoice`` ``cast:`` targets name them.

    Accepts ``string``, ``int``/``integer``, ``long``/``bigint``, ``short``/``smallint``, ``byte``/``tinyint``,
    ``float``, ``double``, ``boolean``, ``date``, ``timestamp``, ``binary``, ``decimal``/``decimal(p,s)``,
    ``array<...>``, ``struct<...>``, ``map<...>`` (case-insensitive). Raises ``GlueRuntimeError`` otherwise.
    """
    return _TypeParser(name).parse()


def catalog_type_to_spark(type_string: str) -> st.DataType:
    """The Spark type of a Data Catalog column type (Hive DDL: ``array<struct<a:int,b:string>>``,
    ``decimal(10,2)``, ``varchar(20)``, ``char(3)``; varchar and char read as strings, as Glue does)."""
    return _TypeParser(type_string).parse()


def glue_type_name(spark_type: st.DataType) -> str:
    """The Glue type name of a Spark type (``long`` for bigint, ``int`` for integer, ``struct``, ``array``...)."""
    return from_spark_type(spark_type).typeName()
