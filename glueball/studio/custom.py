"""Custom visual transforms: a JSON definition and a Python file, checked before a job uses them.

Glue Studio finds them under ``s3://aws-glue-assets-<account>-<region>/transforms/``: for each
transform a ``<name>.json`` definition and a ``<name>.py`` whose function ``functionName`` is
attached to ``DynamicFrame`` (``DynamicFrame.<functionName> = <functionName>``). The definition:

```json
{"name": "...", "displayName": "...", "description": "...", "functionName": "...",
 "parameters": [{"name": "...", "displayName": "...", "type": "str|int|float|bool|list",
                 "listType": "str|int|float|bool", "isOptional": false, "description": "...",
                 "validationType": "RegularExpression", "validationRule": "^...$",
                 "validationMessage": "...", "listOptions": [{"label": "...", "value": "..."}] | "column"}]}
```

A definition that is not JSON, lacks a member, names a function the Python file does not define,
or has a bad parameter is refused with the file and the reason (:class:`TransformFileError`). The
built-in ten visual transforms have definitions here too, so a ``DynamicTransform`` node's
parameters are checked the same way for both.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from glueball.objects.access import Objects

PARAM_TYPES = ("str", "int", "float", "bool", "list", "complex", "null")
TRANSFORMS_PREFIX = "transforms/"


class TransformFileError(ValueError):
    """A custom visual transform's files cannot be used: the message names the file and the reason."""


def assets_bucket(account_id: str, region: str) -> str:
    """Glue's assets bucket of an account and region (scripts, temporary files, custom transforms)."""
    return f"aws-glue-assets-{account_id}-{region}"


@dataclass(frozen=True)
class Parameter:
    """One parameter of a visual transform's definition."""

    name: str
    type: str
    optional: bool = False
    list_type: str | None = None
    rule: str | None = None
    message: str | None = None
    options: tuple[str, ...] | None = None  # allowed values; None when free (or "column")


@dataclass(frozen=True)
class Definition:
    """A visual transform's definition: what its JSON says."""

    name: str
    function: str
    parameters: tuple[Parameter, ...]
    display_name: str = ""
    description: str = ""

    def parameter(self, name: str) -> Parameter | None:
        return next((p for p in self.parameters if p.name == name), None)


def _parameter(raw: Any, where: str) -> Parameter:
    if not isinstance(raw, dict):
        raise TransformFileError(f"{where}: each parameter must be an object, got {json.dumps(raw)}")
    name = raw.get("name")
    if not isinstance(name, str) or not name.isidentifier():
        raise TransformFileError(f"{where}: a parameter's name must be a Python identifier, got {json.dumps(name)}")
    kind = raw.get("type")
    if kind not in PARAM_TYPES:
        raise TransformFileError(f"{where}: parameter {name}: type must be one of {', '.join(PARAM_TYPES)}, "
                                 f"got {json.dumps(kind)}")
    list_type = raw.get("listType")
    if list_type is not None and list_type not in PARAM_TYPES:
        raise TransformFileError(f"{where}: parameter {name}: listType {json.dumps(list_type)} is not a type")
    rule = raw.get("validationRule")
    if raw.get("validationType") not in (None, "RegularExpression"):
        raise TransformFileError(f"{where}: parameter {name}: validationType must be RegularExpression, "
                                 f"got {json.dumps(raw.get('validationType'))}")
    if rule is not None:
        try:
            re.compile(rule)
        except (re.error, TypeError) as exc:
            raise TransformFileError(f"{where}: parameter {name}: validationRule {json.dumps(rule)} is not a "
                                     f"regular expression ({exc})") from exc
    choices = raw.get("listOptions")
    options: tuple[str, ...] | None = None
    if isinstance(choices, list):
        try:
            options = tuple(str(c["value"]) if isinstance(c, dict) else str(c) for c in choices)
        except KeyError as exc:
            raise TransformFileError(f"{where}: parameter {name}: each listOptions entry needs a value") from exc
    elif choices not in (None, "column"):
        raise TransformFileError(f"{where}: parameter {name}: listOptions must be a list or \"column\"")
    optional = raw.get("isOptional", False)
    if not isinstance(optional, bool):
        raise TransformFileError(f"{where}: parameter {name}: isOptional must be true or false")
    return Parameter(name, kind, optional, list_type, rule, raw.get("validationMessage"), options)


def parse_definition(text: str, where: str) -> Definition:
    """A definition from its JSON text; ``where`` names the file in messages.

    Raises:
        TransformFileError: not JSON, or a member missing or wrong.
    """
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise TransformFileError(f"{where}: not valid JSON ({exc})") from exc
    if not isinstance(raw, dict):
        raise TransformFileError(f"{where}: the definition must be a JSON object")
    for member in ("name", "functionName"):
        if not isinstance(raw.get(member), str) or not raw[member]:
            raise TransformFileError(f"{where}: {member} is required (a non-empty string)")
    if not raw["functionName"].isidentifier():
        raise TransformFileError(f"{where}: functionName {raw['functionName']!r} is not a Python identifier")
    parameters = raw.get("parameters", [])
    if not isinstance(parameters, list):
        raise TransformFileError(f"{where}: parameters must be a list")
    parsed = tuple(_parameter(p, where) for p in parameters)
    seen: set[str] = set()
    for parameter in parsed:
        if parameter.name in seen:
            raise TransformFileError(f"{where}: parameter {parameter.name} is defined twice")
        seen.add(parameter.name)
    return Definition(raw["name"], raw["functionName"], parsed, str(raw.get("displayName", "")),
                      str(raw.get("description", "")))


def check_source(source: str, function: str, where: str) -> None:
    """The Python file must parse and define ``function`` at its top level.

    Raises:
        TransformFileError: a syntax error, or no such function.
    """
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        raise TransformFileError(f"{where}: not valid Python (line {exc.lineno}: {exc.msg})") from exc
    defined = [n.name for n in tree.body if isinstance(n, ast.FunctionDef)]
    if function not in defined:
        raise TransformFileError(f"{where}: defines no function {function} (functionName); it defines "
                                 f"{', '.join(defined) or 'no functions'}")


def read_transform(python_path: Path, uri: str) -> tuple[Definition, str]:
    """The definition and source of the transform whose Python file is ``python_path`` (``uri`` in messages).

    Raises:
        TransformFileError: a file is missing or invalid.
    """
    if not uri.endswith(".py"):
        raise TransformFileError(f"{uri}: a custom visual transform's Path names its .py file")
    definition_path = python_path.with_suffix(".json")
    definition_uri = uri[:-3] + ".json"
    if not python_path.is_file():
        raise TransformFileError(f"{uri}: no such file")
    if not definition_path.is_file():
        raise TransformFileError(f"{definition_uri}: no such file (the definition of {uri})")
    definition = parse_definition(definition_path.read_text(encoding="utf-8"), definition_uri)
    source = python_path.read_text(encoding="utf-8")
    check_source(source, definition.function, uri)
    return definition, source


def read_transform_object(objects: Objects, uri: str) -> tuple[Definition, str]:
    """The definition and source of the transform whose Python file is the object ``uri``.

    Raises:
        TransformFileError: an object is missing or invalid.
    """
    if not uri.endswith(".py"):
        raise TransformFileError(f"{uri}: a custom visual transform's Path names its .py file")
    definition_uri = uri[:-3] + ".json"
    try:
        source = objects.read_text(uri)
    except FileNotFoundError:
        raise TransformFileError(f"{uri}: no such file") from None
    try:
        definition = parse_definition(objects.read_text(definition_uri), definition_uri)
    except FileNotFoundError:
        raise TransformFileError(f"{definition_uri}: no such file (the definition of {uri})") from None
    check_source(source, definition.function, uri)
    return definition, source


def discover(folder: Path, base_uri: str) -> tuple[list[Definition], list[str]]:
    """The valid transforms under ``folder`` (``transforms/`` of an assets bucket), and why others are not."""
    found, problems = [], []
    for definition_path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        uri = f"{base_uri.rstrip('/')}/{definition_path.with_suffix('.py').name}"
        try:
            found.append(read_transform(definition_path.with_suffix(".py"), uri)[0])
        except TransformFileError as exc:
            problems.append(str(exc))
    return found, problems


def _converted(value: str, kind: str | None, label: str) -> Any:
    try:
        if kind == "int":
            return int(value)
        if kind == "float":
            return float(value)
    except ValueError as exc:
        raise TransformFileError(f"{label}: {value!r} is not a{'n int' if kind == 'int' else ' float'}") from exc
    if kind == "bool":
        if value.lower() not in ("true", "false"):
            raise TransformFileError(f"{label}: {value!r} is not true or false")
        return value.lower() == "true"
    return value


def arguments(definition: Definition, given: list[dict[str, Any]], node_label: str) -> dict[str, Any]:
    """A ``DynamicTransform`` node's ``Parameters`` checked against the definition, as Python values.

    Raises:
        TransformFileError: an unknown parameter, a required one missing, a value of the wrong type,
            failing its validation rule or not among its options.
    """
    values: dict[str, Any] = {}
    for entry in given:
        name = entry.get("Name", "")
        parameter = definition.parameter(name)
        label = f"{node_label}: parameter {name}"
        if parameter is None:
            known = ", ".join(p.name for p in definition.parameters) or "none"
            raise TransformFileError(f"{label}: {definition.name} has no such parameter (parameters: {known})")
        raw = [str(v) for v in entry.get("Value") or []]
        if not raw:
            continue
        for text in raw:
            if parameter.rule is not None and not re.search(parameter.rule, text):
                raise TransformFileError(f"{label}: {text!r} fails its validation rule {parameter.rule!r}"
                                         + (f": {parameter.message}" if parameter.message else ""))
            if parameter.options is not None and text not in parameter.options:
                raise TransformFileError(f"{label}: {text!r} is not one of {', '.join(parameter.options)}")
        if parameter.type == "list":
            values[name] = [_converted(t, parameter.list_type, label) for t in raw]
        else:
            values[name] = _converted(raw[0], parameter.type, label)
    missing = [p.name for p in definition.parameters if not p.optional and p.name not in values]
    if missing:
        raise TransformFileError(f"{node_label}: {definition.name} needs parameter(s) {', '.join(missing)}")
    return values


def _built_in(name: str, *parameters: Parameter) -> Definition:
    return Definition(name, name, parameters)


_S, _L = "str", "list"
BUILT_IN_DEFINITIONS = {d.name: d for d in (
    _built_in("gs_concat", Parameter("colName", _S), Parameter("colList", _L, list_type=_S),
              Parameter("spacer", _S, True), Parameter("nullValue", _S, True)),
    _built_in("gs_split", Parameter("colName", _S), Parameter("pattern", _S), Parameter("newColName", _S, True)),
    _built_in("gs_array_to_cols", Parameter("colName", _S), Parameter("colList", _S),
              Parameter("indexes", _S, True)),
    _built_in("gs_now", Parameter("colName", _S), Parameter("dateFormat", _S, True)),
    _built_in("gs_pivot", Parameter("aggCol", _S), Parameter("aggFunction", _S),
              Parameter("colList", _L, list_type=_S)),
    _built_in("gs_unpivot", Parameter("unpivotColName", _S), Parameter("unpivotValueColName", _S),
              Parameter("colList", _L, list_type=_S)),
    _built_in("gs_lookup", Parameter("lookupTable", _S, rule=r"^[^.]+\.[^.]+$", message="database.table"),
              Parameter("keyColumns", _S), Parameter("columnsToTake", _S)),
    _built_in("gs_explode", Parameter("colName", _S), Parameter("newCol", _S, True), Parameter("outer", "bool", True)),
    _built_in("gs_derived", Parameter("colName", _S), Parameter("expr", _S)),
    _built_in("gs_repartition", Parameter("numPartitionsStr", _S, True, rule=r"^[1-9][0-9]*$",
                                          message="a whole number of partitions, 1 or more")),
)}
