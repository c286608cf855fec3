"""Unknown columns, where the graph lets them be known.

A node's columns are known when a source declares ``OutputSchemas`` and the transforms after it
change columns in ways the graph states (mappings, selections, renames, the visual transforms'
new columns, joins). Where the columns are unknown (a catalog source without schema, SQL or
custom code without ``OutputSchemas``, a pivot) nothing is checked below that node. A node
naming a column its input does not have is refused, naming the node, the column and the columns
there are.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from glueball.studio.job_graph import Node

Columns = list[str] | None  # None: not knowable here


def _top(path: list[str] | str) -> str:
    if isinstance(path, str):
        return path.strip("`").split(".")[0] if not path.startswith("`") else path.strip("`")
    return path[0] if path else ""


def _schema(node: Node) -> Columns:
    schemas = node.body.get("OutputSchemas")
    if not schemas:
        return None
    return [c["Name"] for c in schemas[0].get("Columns") or []]


def _require(node: Node, columns: Columns, names: list[str], member: str) -> None:
    if columns is None:
        return
    for name in names:
        if name and name not in columns:
            raise node.refuse(f"{member} names column {name!r}, which its input does not have "
                              f"(columns: {', '.join(columns) or 'none'})")


def _list(value: Any) -> list[str]:
    if isinstance(value, list):
        return [str(v).strip() for v in value]
    return [part.strip() for part in str(value).split(",") if part.strip()]


def _dynamic(node: Node, columns: Columns) -> Columns:
    params = {p["Name"]: list(p.get("Value") or []) for p in node.body.get("Parameters") or []}

    def one(name: str) -> str | None:
        values = params.get(name)
        return values[0] if values else None

    def many(name: str) -> list[str]:
        values = params.get(name) or []
        return [v.strip() for value in values for v in _list(value)]

    def check(names: list[str | None], member: str) -> None:  # `a.b` is one column, a.b a field of a
        _require(node, columns, [_top(n) for n in names if n], member)

    transform = node.body.get("TransformName", "")
    if transform in ("gs_concat", "gs_now", "gs_derived"):
        if transform == "gs_concat":
            check(list(many("colList")), "parameter colList")
        new = one("colName")
        return None if columns is None else [*columns, *([new] if new and new not in columns else [])]
    if transform == "gs_split":
        check([one("colName")], "parameter colName")
        new = one("newColName")
        return None if columns is None else [*columns, *([new] if new and new not in columns else [])]
    if transform == "gs_array_to_cols":
        check([one("colName")], "parameter colName")
        return None if columns is None else [*columns, *[c for c in many("colList") if c not in columns]]
    if transform == "gs_unpivot":
        unpivoted = many("colList")
        check(list(unpivoted), "parameter colList")
        if columns is None:
            return None
        return [*[c for c in columns if c not in unpivoted], one("unpivotColName") or "",
                one("unpivotValueColName") or ""]
    if transform == "gs_explode":
        check([one("colName")], "parameter colName")
        new = one("newCol")
        return None if columns is None else [*columns, *([new] if new and new not in columns else [])]
    if transform == "gs_repartition":
        return columns
    if transform == "gs_pivot":
        check([one("aggCol"), *many("colList")], "parameter aggCol/colList")
        return None  # the new columns are the data's values
    if transform == "gs_lookup":
        keys = [k.split("=")[0].strip() for k in many("keyColumns")]
        check(list(keys), "parameter keyColumns")
        return None if columns is None else [*columns, *[c for c in many("columnsToTake") if c not in columns]]
    return _schema(node)


def _apply_mapping(node: Node, columns: Columns) -> Columns:
    mappings = node.body["Mapping"]
    _require(node, columns, [_top(m.get("FromPath") or []) for m in mappings], "Mapping")
    return [m.get("ToKey") or _top(m.get("FromPath") or []) for m in mappings if not m.get("Dropped")]


def _paths(node: Node, member: str) -> list[str]:
    return [_top(p) for p in node.body.get(member) or []]


def _select(node: Node, columns: Columns) -> Columns:
    paths = _paths(node, "Paths")
    _require(node, columns, paths, "Paths")
    return paths


def _drop(node: Node, columns: Columns) -> Columns:
    paths = _paths(node, "Paths")
    _require(node, columns, paths, "Paths")
    return None if columns is None else [c for c in columns if c not in paths]


def _rename(node: Node, columns: Columns) -> Columns:
    old, new = _top(node.body["SourcePath"]), _top(node.body["TargetPath"])
    _require(node, columns, [old], "SourcePath")
    return None if columns is None else [new if c == old else c for c in columns]


def _keep(member: str) -> Callable[[Node, Columns], Columns]:
    def check(node: Node, columns: Columns) -> Columns:
        _require(node, columns, _paths(node, member), member)
        return columns
    return check


def _aggregate(node: Node, columns: Columns) -> Columns:
    groups = _paths(node, "Groups")
    _require(node, columns, [*groups, *(_top(a["Column"]) for a in node.body["Aggs"])], "Groups/Aggs")
    return [*groups, *(f"{a['AggFunc']}({_top(a['Column'])})" for a in node.body["Aggs"])]


def _fill(node: Node, columns: Columns) -> Columns:
    _require(node, columns, [_top(node.body["ImputedPath"])], "ImputedPath")
    filled = node.body.get("FilledPath") or f"{node.body['ImputedPath']}_filled"
    return None if columns is None else [*columns, filled]


def _pii(node: Node, columns: Columns) -> Columns:
    if columns is None or node.body.get("PiiType") != "RowAudit":
        return columns
    return [*columns, node.body.get("OutputColumnName") or "DetectedEntities"]


SINGLE: dict[str, Callable[[Node, Columns], Columns]] = {
    "PIIDetection": _pii,
    "ApplyMapping": _apply_mapping, "SelectFields": _select, "DropFields": _drop, "RenameField": _rename,
    "Spigot": lambda node, columns: columns, "DropDuplicates": _keep("Columns"), "Aggregate": _aggregate,
    "FillMissingValues": _fill, "DynamicTransform": _dynamic, "DropNullFields": lambda node, columns: None,
}


def _join(node: Node, known: Mapping[str, Columns]) -> Columns:
    for column in node.body["Columns"]:
        _require(node, known.get(column["From"]), [_top(k) for k in column["Keys"]], f"Columns (of {column['From']})")
    left, right = (known.get(i) for i in node.inputs)
    if left is None or right is None:
        return None
    return [*left, *[c for c in right if c not in left]]


def check_columns(order: list[Node]) -> None:
    """Refuse a node that names a column its input is known not to have.

    Raises:
        InvalidInputException: naming the node, the column and the input's columns.
    """
    known: dict[str, Columns] = {}
    for node in order:
        inputs = [known.get(i) for i in node.inputs]
        if not node.inputs:
            known[node.id] = _schema(node)
        elif node.kind in SINGLE:
            known[node.id] = SINGLE[node.kind](node, inputs[0])
        elif node.kind == "Join":
            known[node.id] = _join(node, known)
        elif node.kind in ("Filter", "EvaluateDataQuality") and node.body.get("Output") != "EvaluationResults":
            if node.kind == "Filter":
                extracted = [(v.get("Value") or [""])[0] for f in node.body["Filters"] for v in f["Values"]
                             if v["Type"] == "COLUMNEXTRACTED"]
                _require(node, inputs[0], extracted, "Filters")
            known[node.id] = inputs[0]
        elif node.kind == "Recipe":
            known[node.id] = None
        else:
            known[node.id] = _schema(node)
