"""A blueprint's archive: a ZIP with ``blueprint.cfg`` and the layout script it names.

``blueprint.cfg`` is JSON with ``layoutGenerator`` (the dotted path of the layout function:
``<package>.<module>.<function>``, relative to the archive's root) and ``parameterSpec`` (each
parameter's ``type``, ``collection``, ``defaultValue``, ``allowedValues``, ``description``). The
file is at the archive's root or in its one top-level folder (AWS's samples put
``compaction/blueprint.cfg`` next to ``compaction/layout.py`` with ``compaction.layout.generate_layout``).

:func:`read_archive` checks all of that when a blueprint is created or updated;
:func:`run_parameters` checks a run's parameters against the spec and fills in the defaults.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from dataclasses import dataclass
from typing import Any

from glueball.errors import InvalidInputException

CONFIG_FILE = "blueprint.cfg"
# the parameter types of blueprint.cfg -> what a value of that type is
PARAMETER_TYPES: dict[str, tuple[type, ...]] = {
    "String": (str,), "Integer": (int,), "Double": (int, float), "Boolean": (bool,), "S3Uri": (str,),
    "S3Bucket": (str,), "IAMRoleArn": (str,), "IAMRoleName": (str,),
}
_PATTERNS = {"S3Uri": re.compile(r"s3://[^/]+(/.*)?"), "S3Bucket": re.compile(r"[a-z0-9][a-z0-9.\-]{1,61}[a-z0-9]"),
             "IAMRoleArn": re.compile(r"arn:aws[^:]*:iam::\d{12}:role/.+")}
_GENERATOR = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+")


class ArchiveError(Exception):
    """What is wrong with a blueprint's archive (the blueprint becomes FAILED with it as ErrorMessage)."""


@dataclass(frozen=True)
class BlueprintArchive:
    """A checked archive: its bytes, the layout function's dotted path, and the parameter spec (JSON text)."""

    data: bytes
    layout_generator: str
    parameter_spec: str

    @property
    def parameters(self) -> dict[str, Any]:
        spec: dict[str, Any] = json.loads(self.parameter_spec)
        return spec


def _check_parameter(name: str, spec: Any) -> None:
    if not isinstance(spec, dict):
        raise ArchiveError(f"parameterSpec.{name} must be an object")
    kind = spec.get("type")
    if kind not in PARAMETER_TYPES:
        raise ArchiveError(f"parameterSpec.{name}.type must be one of {', '.join(PARAMETER_TYPES)}, got {kind!r}")
    if "defaultValue" in spec:
        problem = _value_problem(spec, spec["defaultValue"], patterns=False)
        if problem:
            raise ArchiveError(f"parameterSpec.{name}.defaultValue: {problem}")
    allowed = spec.get("allowedValues")
    if allowed is not None and not isinstance(allowed, list):
        raise ArchiveError(f"parameterSpec.{name}.allowedValues must be a list")
    for index, value in enumerate(allowed or []):
        problem = _value_problem({**spec, "collection": False}, value, patterns=False)
        if problem:
            raise ArchiveError(f"parameterSpec.{name}.allowedValues[{index}]: {problem}")


def read_archive(data: bytes) -> BlueprintArchive:
    """Check a blueprint archive.

    Raises:
        ArchiveError: not a ZIP, no blueprint.cfg, malformed JSON, no layout module for ``layoutGenerator``, or a
            malformed parameter spec.
    """
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise ArchiveError("the blueprint archive is not a ZIP file") from exc
    names = set(archive.namelist())
    configs = sorted(n for n in names if n == CONFIG_FILE or (n.count("/") == 1 and n.endswith("/" + CONFIG_FILE)))
    if len(configs) != 1:
        raise ArchiveError(f"the blueprint archive must hold one {CONFIG_FILE} at its root or in its top-level "
                           f"folder, found {len(configs)}")
    try:
        config = json.loads(archive.read(configs[0]))
    except ValueError as exc:
        raise ArchiveError(f"{configs[0]} is not valid JSON: {exc}") from exc
    if not isinstance(config, dict):
        raise ArchiveError(f"{configs[0]} must be a JSON object")
    generator = config.get("layoutGenerator")
    if not isinstance(generator, str) or _GENERATOR.fullmatch(generator) is None:
        raise ArchiveError(f"{configs[0]}: layoutGenerator must be the dotted path of the layout function "
                           f"(module.function), got {generator!r}")
    module = generator.rpartition(".")[0].replace(".", "/")
    if f"{module}.py" not in names and f"{module}/__init__.py" not in names:
        raise ArchiveError(f"{configs[0]}: layoutGenerator {generator} names module {module}.py, which the archive "
                           "does not hold")
    parameters = config.get("parameterSpec", {})
    if not isinstance(parameters, dict):
        raise ArchiveError(f"{configs[0]}: parameterSpec must be a JSON object")
    for name, spec in parameters.items():
        _check_parameter(name, spec)
    return BlueprintArchive(data, generator, json.dumps(parameters))


def _value_problem(spec: dict[str, Any], value: Any, patterns: bool = True) -> str | None:
    """What is wrong with ``value`` for a parameter of ``spec`` (its type; with ``patterns``, the form of S3 URIs,
    bucket names and role ARNs), or None."""
    kind = spec["type"]
    values = value if spec.get("collection") else [value]
    if spec.get("collection") and not isinstance(value, list):
        return f"expected a list of {kind}, got {value!r}"
    for item in values:
        if isinstance(item, bool) and kind != "Boolean" or not isinstance(item, PARAMETER_TYPES[kind]):
            return f"expected {kind}, got {item!r}"
        pattern = _PATTERNS.get(kind) if patterns else None
        if pattern is not None and pattern.fullmatch(str(item)) is None:
            return f"{item!r} is not a valid {kind}"
    return None


def run_parameters(parameter_spec: dict[str, Any], text: str | None) -> dict[str, Any]:
    """A run's parameters (StartBlueprintRun's JSON text) checked against the spec, defaults filled in.

    Raises:
        InvalidInputException: not a JSON object, a parameter the spec does not declare, a required one missing,
            or a value of the wrong type or outside ``allowedValues``.
    """
    try:
        given = json.loads(text) if text else {}
    except ValueError as exc:
        raise InvalidInputException(f"Parameters must be a JSON object: {exc}") from exc
    if not isinstance(given, dict):
        raise InvalidInputException("Parameters must be a JSON object")
    unknown = sorted(set(given) - set(parameter_spec))
    if unknown:
        raise InvalidInputException(f"Parameters: the blueprint declares no parameter {', '.join(unknown)}")
    values: dict[str, Any] = {}
    for name, spec in parameter_spec.items():
        if name not in given:
            if "defaultValue" not in spec:
                raise InvalidInputException(f"Parameters: the required parameter {name} is missing")
            values[name] = spec["defaultValue"]
            continue
        value = given[name]
        problem = _value_problem(spec, value)
        if problem:
            raise InvalidInputException(f"Parameters: {name}: {problem}")
        allowed = spec.get("allowedValues")
        for item in value if spec.get("collection") else [value]:
            if allowed is not None and item not in allowed:
                raise InvalidInputException(f"Parameters: {name}: {item!r} is not one of {allowed}")
        values[name] = value
    return values
