"""Field paths of Glue transforms, and the Spark expressions that read and rewrite them.

Glue names a field inside a record by its path: ``address.city`` walks into a
struct, ``items[].price`` (or, as Glue also accepts, ``items.price``) walks into
the elements of an array of structs, and a name that itself holds a dot is
back-quoted: ```this.old.name``` . The helpers here parse such paths, resolve them
against a Spark schema (case-insensitively unless asked otherwise) and build
lazy Column expressions that read, replace, rename, keep or drop nested fields —
through structs and arrays of structs — so every transform stays one projection
with no Python per record.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Union

from glueball.runtime.errors import GlueRuntimeError

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame
    from pyspark.sql.types import DataType, StructType

__all__ = [
    "ELEMENTS",
    "FieldPath",
    "PathTree",
    "ResolvedPath",
    "Segment",
    "column_ref",
    "drop_paths",
    "format_path",
    "get_field",
    "is_choice_field",
    "keep_paths",
    "modify_field",
    "parse_path",
    "path_tree",
    "quote_name",
    "read_resolved",
    "reader",
    "resolve_path",
    "select_as",
]

ELEMENTS = "[]"
"""A step of a resolved path that walks into the elements of an array."""


@dataclass(frozen=True)
class Segment:
    """One name of a path; ``array`` is set when ``[]`` follows it (walk into the elements)."""

    name: str
    array: bool = False


FieldPath = tuple[Segment, ...]


@dataclass(frozen=True)
class ResolvedPath:
    """A path matched against a schema.

    Attributes:
        steps: the actual field names (as spelled in the schema) and ``ELEMENTS``
            wherever the path walks into an array.
        data_type: the type at the end of the path (of one element when the path
            went through arrays).
    """

    steps: tuple[str, ...]
    data_type: DataType
    metadata: tuple[tuple[str, object], ...] = ()

    @property
    def is_choice(self) -> bool:
        """Whether the field at the end of the path is a choice (a struct marked with ``CHOICE_METADATA``)."""
        return is_choice_field(dict(self.metadata))

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(step for step in self.steps if step != ELEMENTS)

    @property
    def through_arrays(self) -> int:
        return sum(1 for step in self.steps if step == ELEMENTS)


def parse_path(path: str) -> FieldPath:
    """Split a Glue field path into segments.

    ``a.b`` → ``a``, ``b``; ``items[].price`` → ``items`` (array), ``price``;
    ```a.b`.c`` → ``a.b``, ``c`` (a doubled back-quote inside back-quotes is a literal one).

    Raises:
        GlueRuntimeError: an empty path, an empty segment or an unclosed back-quote.
    """
    if not path:
        raise GlueRuntimeError("A field path must not be empty")
    segments: list[Segment] = []
    i, n = 0, len(path)
    while True:
        name_chars: list[str] = []
        quoted = False
        if i < n and path[i] == "`":
            quoted = True
            i += 1
            while True:
                if i >= n:
                    raise GlueRuntimeError(f"Unclosed back-quote in field path {path!r}")
                if path[i] == "`":
                    if i + 1 < n and path[i + 1] == "`":
                        name_chars.append("`")
                        i += 2
                        continue
                    i += 1
                    break
                name_chars.append(path[i])
                i += 1
        else:
            while i < n and path[i] != "." and not path.startswith(ELEMENTS, i):
                name_chars.append(path[i])
                i += 1
        name = "".join(name_chars)
        if not name and not quoted:
            raise GlueRuntimeError(f"Empty name in field path {path!r}")
        array = False
        while path.startswith(ELEMENTS, i):
            if array:
                # a[][] : an array of arrays; keep the extra levels as unnamed steps
                segments.append(Segment(name, True))
                name = ""
            array = True
            i += len(ELEMENTS)
        segments.append(Segment(name, array))
        if i >= n:
            break
        if path[i] != ".":
            raise GlueRuntimeError(f"Unexpected {path[i]!r} at position {i} in field path {path!r}")
        i += 1
        if i >= n:
            raise GlueRuntimeError(f"Field path {path!r} ends with '.'")
    return tuple(segments)


def quote_name(name: str) -> str:
    """A name as it appears in a Glue path: back-quoted when it holds a dot, back-quote or brackets."""
    if any(ch in name for ch in ".`[]") or not name:
        return "`" + name.replace("`", "``") + "`"
    return name


def format_path(segments: Iterable[Segment]) -> str:
    """The text of a parsed path (inverse of ``parse_path``)."""
    return ".".join(quote_name(s.name) + (ELEMENTS if s.array else "") for s in segments)


def column_ref(name: str) -> Column:
    """A top-level column by its literal name (dots, spaces and back-quotes are not interpreted)."""
    from pyspark.sql import functions as F

    return F.col("`" + name.replace("`", "``") + "`")


def is_choice_field(metadata: dict[str, object] | None) -> bool:
    """Whether a StructField's metadata marks it as a choice (see ``dynamicframe.CHOICE_METADATA``)."""
    from glueball.runtime.gluetypes import CHOICE_METADATA

    return bool(metadata and metadata.get(CHOICE_METADATA))


def _match(struct: StructType, name: str, case_sensitive: bool) -> str | None:
    names = struct.fieldNames()
    if name in names:
        return name
    if case_sensitive:
        return None
    lowered = name.lower()
    for candidate in names:
        if candidate.lower() == lowered:
            return candidate
    return None


def resolve_path(schema: StructType, path: str | FieldPath, case_sensitive: bool = False) -> ResolvedPath | None:
    """Match ``path`` against ``schema``; None when some name is not there.

    Arrays are walked into where the path says ``[]`` and also, as Glue does,
    where a name follows an array of structs (``items.price``). Names match
    case-insensitively unless ``case_sensitive`` (an exact match wins).
    """
    from pyspark.sql.types import ArrayType, StructType

    segments = parse_path(path) if isinstance(path, str) else path
    steps: list[str] = []
    current: DataType = schema
    metadata: dict[str, object] = {}
    for segment in segments:
        if segment.name:
            while isinstance(current, ArrayType) and isinstance(current.elementType, (StructType, ArrayType)):
                steps.append(ELEMENTS)
                current = current.elementType
            if not isinstance(current, StructType):
                return None
            actual = _match(current, segment.name, case_sensitive)
            if actual is None:
                return None
            steps.append(actual)
            metadata = dict(current[actual].metadata or {})
            current = current[actual].dataType
        if segment.array:
            if not isinstance(current, ArrayType):
                return None
            steps.append(ELEMENTS)
            metadata = {}
            current = current.elementType
    if not steps:
        return None
    return ResolvedPath(tuple(steps), current, tuple(sorted(metadata.items())))


def reader(steps: Sequence[str]) -> Callable[[Column], Column]:
    """A function reading ``steps`` (field names and ``ELEMENTS``) from a column holding the first of them."""
    from pyspark.sql import functions as F

    if not steps:
        return lambda column: column
    head, rest = steps[0], reader(steps[1:])
    if head == ELEMENTS:
        return lambda column: F.transform(column, rest)
    return lambda column: rest(column.getField(head))


def get_field(schema: StructType, path: str | FieldPath,
              case_sensitive: bool = False) -> tuple[Column, ResolvedPath] | None:
    """An expression reading ``path`` (an array of values when it goes through arrays), or None if absent.

    Example: ``items[].price`` on ``items: array<struct<price: double>>`` reads
    ``transform(items, x -> x.price)``.
    """
    resolved = resolve_path(schema, path, case_sensitive)
    if resolved is None:
        return None
    return read_resolved(resolved), resolved


def read_resolved(resolved: ResolvedPath) -> Column:
    """The expression reading an already resolved path (see ``get_field``)."""
    return reader(resolved.steps[1:])(column_ref(resolved.steps[0]))


# -- rewriting ------------------------------------------------------------------------------------

LeafRewrite = Callable[["Column", "DataType", str], list[tuple[str, "Column"]]]
"""Given the field's column, type and name, what to put in its place: ``[]`` drops it."""


def _null_safe_struct(source: Column, fields: list[tuple[str, Column]]) -> Column:
    from pyspark.sql import functions as F

    built = F.struct(*[column.alias(name) for name, column in fields])
    return F.when(source.isNull(), F.lit(None)).otherwise(built)


def _rewrite(column: Column, data_type: DataType, steps: Sequence[str], leaf: LeafRewrite) -> Column | None:
    """``column`` (of ``data_type``) with the field at ``steps`` rewritten; None when nothing is left of it."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import ArrayType, StructType

    head, rest = steps[0], steps[1:]
    if head == ELEMENTS:
        assert isinstance(data_type, ArrayType)
        element_type = data_type.elementType
        probe = _rewrite(F.lit(None).cast(element_type), element_type, rest, leaf)
        if probe is None:
            return None
        return F.transform(column, lambda element: _rewrite(element, element_type, rest, leaf))  # type: ignore[arg-type,return-value]
    assert isinstance(data_type, StructType)
    fields = _rewrite_fields([(f.name, column.getField(f.name), f.dataType) for f in data_type.fields],
                             head, rest, leaf)
    if not fields:
        return None
    return _null_safe_struct(column, fields)


def _rewrite_fields(fields: list[tuple[str, Column, DataType]], head: str, rest: Sequence[str],
                    leaf: LeafRewrite) -> list[tuple[str, Column]]:
    out: list[tuple[str, Column]] = []
    for name, column, data_type in fields:
        if name != head:
            out.append((name, column))
        elif not rest:
            out.extend(leaf(column, data_type, name))
        else:
            rewritten = _rewrite(column, data_type, rest, leaf)
            if rewritten is not None:
                out.append((name, rewritten))
    return out


def modify_field(schema: StructType, resolved: ResolvedPath, leaf: LeafRewrite) -> list[tuple[str, Column]]:
    """The top-level projection of ``schema`` with the field at ``resolved`` rewritten by ``leaf``.

    Structs on the way are rebuilt (a null struct stays null), arrays are rewritten
    element by element, and a struct left without fields disappears with it.
    """
    return _rewrite_fields(_top_level(schema), resolved.steps[0], resolved.steps[1:], leaf)


# -- keeping and dropping many paths at once -------------------------------------------------------

PathTree = dict[str, Union["PathTree", None]]
"""Field name → the sub-paths under it, or None for the whole field."""


def path_tree(resolved: Iterable[ResolvedPath]) -> PathTree:
    """Merge resolved paths into a tree of names (array steps are implied by the schema)."""
    tree: PathTree = {}
    for path in resolved:
        node = tree
        names = path.names
        for i, name in enumerate(names):
            if i == len(names) - 1:
                node[name] = None
                break
            child = node.get(name, {})
            if child is None:  # the whole field is already named
                break
            node[name] = child
            node = child
    return tree


def _project(column: Column, data_type: DataType, tree: PathTree, keep: bool) -> Column | None:
    from pyspark.sql import functions as F
    from pyspark.sql.types import ArrayType, StructType

    if isinstance(data_type, ArrayType):
        element_type = data_type.elementType
        if _project(F.lit(None).cast(element_type), element_type, tree, keep) is None:
            return None
        return F.transform(column, lambda element: _project(element, element_type, tree, keep))  # type: ignore[arg-type,return-value]
    if not isinstance(data_type, StructType):
        return column if not keep else None
    fields = _project_fields([(f.name, column.getField(f.name), f.dataType) for f in data_type.fields], tree, keep)
    if not fields:
        return None
    return _null_safe_struct(column, fields)


def _project_fields(fields: list[tuple[str, Column, DataType]], tree: PathTree,
                    keep: bool) -> list[tuple[str, Column]]:
    out: list[tuple[str, Column]] = []
    for name, column, data_type in fields:
        if name not in tree:
            if not keep:
                out.append((name, column))
            continue
        sub = tree[name]
        if sub is None:
            if keep:
                out.append((name, column))
            continue
        projected = _project(column, data_type, sub, keep)
        if projected is not None:
            out.append((name, projected))
    return out


def _top_level(schema: StructType) -> list[tuple[str, Column, DataType]]:
    return [(f.name, column_ref(f.name), f.dataType) for f in schema.fields]


def keep_paths(schema: StructType, paths: Iterable[ResolvedPath]) -> list[tuple[str, Column]]:
    """A projection keeping only ``paths`` (with the structs and arrays that hold them), in schema order."""
    return _project_fields(_top_level(schema), path_tree(paths), keep=True)


def drop_paths(schema: StructType, paths: Iterable[ResolvedPath]) -> list[tuple[str, Column]]:
    """A projection without ``paths``; a struct left empty is dropped too."""
    return _project_fields(_top_level(schema), path_tree(paths), keep=False)


def select_as(df: DataFrame, columns: Sequence[tuple[str, Column]]) -> DataFrame:
    """``df.select`` of (name, expression) pairs, safe when a name is also an input column.

    Spark resolves a name inside a lambda (``transform(items, x -> ...)``) against
    the aliases earlier in the same select ("lateral column alias") before the
    input columns, so ``select(transform(items, ...) AS items, transform(items, ...)
    AS other)`` would read the first output in the second. Projecting to private
    names first and renaming in a second select avoids that; Spark's optimizer
    merges the two into one projection.
    """
    staged = df.select(*[column.alias(f"__glueball_col_{i}") for i, (_, column) in enumerate(columns)])
    return staged.select(*[column_ref(f"__glueball_col_{i}").alias(name) for i, (name, _) in enumerate(columns)])
