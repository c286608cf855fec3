"""How a crawler turns classified folders into tables and partitions.

Glue's rule ("How does a crawler determine when to create partitions?"): starting from the include
path, the crawler finds the root of each table in the folder tree. Folders whose data has the same
format (classification, compression, delimiter, header) and whose schemas are *similar* — the
majority of sibling schemas at a folder level are at least 70% alike — are partitions
of one table rooted at their parent; otherwise each folder roots its own table. Hive-style folder
names (``year=2026``) give partition keys named after them, other layouts ``partition_0..n``; keys
are strings. ``TableGroupingPolicy: CombineCompatibleSchemas`` drops the similarity test (one table
per include path when the data is compatible); ``TableLevelConfiguration: N`` places every table at
absolute level N of the path, counting the bucket as level 1.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

Columns = list[tuple[str, str]]
Merge = Callable[[Columns, Columns], "Columns | None"]


@dataclass
class Unit:
    """A set of compatible data objects in one folder (normally all of the folder's files).

    ``file_level`` marks files of a folder that split off: another format than the folder's main
    one, or schemas not similar enough to the others (:func:`file_groups`). Each such group is a
    table of its own, named after its first file, as Glue does for mixed files in one folder.
    """

    folder: str                 # relative to the include path, "" for the include path itself
    key: tuple[str, ...]        # what must be equal to share a table: classification, compression, ...
    columns: Columns
    name: str = ""              # first file's name (file-level tables are named after it)
    file_level: bool = False
    data: Any = None            # the engine's payload (files, classification, statistics)

    @property
    def parts(self) -> list[str]:
        return self.folder.split("/") if self.folder else []


@dataclass
class TableGroup:
    """One table: its root folder (relative), its units (one per partition) and its partitioning."""

    root: str
    units: list[Unit]
    depth: int                  # number of partition levels under the root
    columns: Columns
    file_level: bool = False
    partition_keys: list[str] = field(default_factory=list)

    def partition_parts(self, unit: Unit) -> list[str]:
        """The folder names below the root that make ``unit`` a partition."""
        root_len = len(self.root.split("/")) if self.root else 0
        return unit.parts[root_len:root_len + self.depth]

    def partition_values(self, unit: Unit) -> list[str]:
        """Partition values of ``unit``: the text after ``=`` of Hive-style names, else the whole name."""
        values = []
        for index, part in enumerate(self.partition_parts(unit)):
            hive = "=" in part and not self.partition_keys[index].startswith("partition_")
            values.append(part.split("=", 1)[1] if hive else part)
        return values


def sanitize_name(name: str) -> str:
    """A catalog name as Glue derives it from a folder or file name: lowercase, ``[^a-z0-9_]`` → ``_``."""
    return re.sub(r"[^a-z0-9_]", "_", name.lower())


def union_columns(schemas: list[Columns], merge: Merge) -> Columns:
    """All columns of the schemas, first seen first; a column seen with two types gets the type the
    classifiers' ``merge`` widens them to (``string`` when they are of different kinds)."""
    merged: dict[str, tuple[str, str]] = {}
    for schema in schemas:
        for name, type_ in schema:
            key = name.lower()
            if key not in merged:
                merged[key] = (name, type_)
            elif merged[key][1] != type_:
                widened = merge([merged[key]], [(name, type_)])
                merged[key] = (merged[key][0], widened[0][1] if widened else "string")
    return list(merged.values())


def mostly_similar(schemas: list[Columns], merge: Merge) -> bool:
    """Whether the majority of ``schemas`` are similar to one of them (Glue's "majority of schemas").

    Two schemas are similar when the classifiers' ``merge`` accepts them (at least 70% alike).
    """
    if len(schemas) <= 1:
        return True
    best = max(sum(1 for other in schemas if other is schema or merge(schema, other) is not None)
               for schema in schemas)
    return best * 2 > len(schemas)


def file_groups(schemas: list[Columns], merge: Merge, combine_compatible: bool = False) -> tuple[bool, list[list[int]]]:
    """Glue's similarity rule applied to the files of one format in one folder.

    When the majority of the files' schemas are similar (or ``CombineCompatibleSchemas`` is set) the
    folder's files are one unit of data named after the folder, like the majority rule for folders;
    otherwise the crawler "is not able to determine a similar schema" and makes tables named after
    the files: files similar among themselves share one (named after the first of them).

    Returns:
        Whether the files are the folder's unit, and the groups of file indexes (one group when they are).
    """
    if combine_compatible or mostly_similar(schemas, merge):
        return True, [list(range(len(schemas)))]
    clusters: list[tuple[Columns, list[int]]] = []
    for index, schema in enumerate(schemas):
        for position, (columns, members) in enumerate(clusters):
            merged = merge(columns, schema)
            if merged is not None:
                clusters[position] = (merged, [*members, index])
                break
        else:
            clusters.append((schema, [index]))
    return False, [members for _, members in clusters]


def partition_keys(parts_per_unit: list[list[str]], depth: int) -> list[str]:
    """Partition key names: the Hive name when every folder at a level is ``name=value`` with one name."""
    keys = []
    for index in range(depth):
        names = {part.split("=", 1)[0] if "=" in part else None for parts in parts_per_unit for part in parts[index:
                                                                                                          index + 1]}
        name = next(iter(names)) if len(names) == 1 else None
        keys.append(sanitize_name(name) if name else f"partition_{index}")
    return keys


@dataclass
class _Subtree:
    units: list[Unit]
    depth: int
    key: tuple[str, ...]
    columns: Columns


class Grouper:
    """Find table roots among classified units (one crawl of one include path)."""

    def __init__(self, merge: Merge, combine_compatible: bool = False) -> None:
        self.merge = merge
        self.combine_compatible = combine_compatible
        self._memo: dict[str, _Subtree | None] = {}

    def group(self, units: list[Unit]) -> list[TableGroup]:
        """Tables for ``units`` by Glue's default rule (or CombineCompatibleSchemas)."""
        self._memo.clear()
        groups: list[TableGroup] = []
        self._emit("", units, groups)
        return groups

    def _resolve(self, node: str, units: list[Unit]) -> _Subtree | None:
        if node in self._memo:
            return self._memo[node]
        result = self._resolve_uncached(node, units)
        self._memo[node] = result
        return result

    def _resolve_uncached(self, node: str, units: list[Unit]) -> _Subtree | None:
        direct = [u for u in units if u.folder == node]
        children = _children(node, units)
        if not children:
            if len(direct) == 1 and not direct[0].file_level:
                return _Subtree(direct, 0, direct[0].key, direct[0].columns)
            return None
        if direct:
            return None  # objects beside folders: the folder level is not a partition level
        subtrees = [self._resolve(child, child_units) for child, child_units in children.items()]
        if any(sub is None for sub in subtrees):
            return None
        subs = [sub for sub in subtrees if sub is not None]
        if len({sub.depth for sub in subs}) != 1 or len({sub.key for sub in subs}) != 1:
            return None
        if not self.combine_compatible and not mostly_similar([sub.columns for sub in subs], self.merge):
            return None
        merged = union_columns([sub.columns for sub in subs], self.merge)
        return _Subtree([u for sub in subs for u in sub.units], subs[0].depth + 1, subs[0].key, merged)

    def _emit(self, node: str, units: list[Unit], groups: list[TableGroup]) -> None:
        subtree = self._resolve(node, units)
        if subtree is not None:
            groups.append(_table(node, subtree.units, subtree.depth, subtree.columns))
            return
        for unit in (u for u in units if u.folder == node):
            if unit.file_level:
                root = f"{node}/{unit.name}" if node else unit.name
                groups.append(TableGroup(root, [unit], 0, unit.columns, file_level=True))
            else:
                groups.append(_table(node, [unit], 0, unit.columns))
        for child, child_units in _children(node, units).items():
            self._emit(child, child_units, groups)


def _children(node: str, units: list[Unit]) -> dict[str, list[Unit]]:
    depth = len(node.split("/")) if node else 0
    children: dict[str, list[Unit]] = {}
    for unit in units:
        parts = unit.parts
        if len(parts) > depth and (not node or unit.folder.startswith(node + "/")):
            children.setdefault("/".join(parts[:depth + 1]), []).append(unit)
    return children


def _table(root: str, units: list[Unit], depth: int, columns: Columns) -> TableGroup:
    group = TableGroup(root, sorted(units, key=lambda u: u.folder), depth, columns)
    group.partition_keys = partition_keys([group.partition_parts(u) for u in group.units], depth)
    return group


def group_at_level(units: list[Unit], level: int, include_level: int, merge: Merge) -> tuple[list[TableGroup],
                                                                                              list[Unit]]:
    """Tables rooted at absolute path level ``level`` (``TableLevelConfiguration``; the bucket is level 1).

    Args:
        units: the classified units of one include path.
        level: the configured table level.
        include_level: the include path's own level (1 for ``s3://bucket/``).
        merge: the schema merge of the classifiers.

    Returns:
        The tables, and the units left out (another format or partition depth than the rest of their table).
    """
    relative_depth = max(level - include_level, 0)
    by_root: dict[str, list[Unit]] = {}
    for unit in units:
        by_root.setdefault("/".join(unit.parts[:relative_depth]), []).append(unit)
    groups: list[TableGroup] = []
    rejected: list[Unit] = []
    for root, members in sorted(by_root.items()):
        root_len = len(root.split("/")) if root else 0
        key = Counter(u.key for u in members).most_common(1)[0][0]
        same_key = [u for u in members if u.key == key]
        depth = Counter(len(u.parts) - root_len for u in same_key).most_common(1)[0][0]
        chosen: list[Unit] = []
        for unit in members:
            if unit.key != key or len(unit.parts) - root_len != depth or unit.file_level:
                rejected.append(unit)
            else:
                chosen.append(unit)
        if chosen:
            groups.append(_table(root, chosen, depth, union_columns([u.columns for u in chosen], merge)))
    return groups, rejected
