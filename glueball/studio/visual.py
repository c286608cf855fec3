"""Code of ``DynamicTransform`` nodes: the ten built-in visual transforms and custom visual transforms.

Glue Studio keeps both as ``DynamicTransform`` nodes whose ``Path`` names the transform's Python
file. The built-in ones live in an AWS bucket (``s3://aws-glue-studio-transforms-.../gs_concat.py``);
glueball has them as ``gs_*`` modules, so any path whose file is ``gs_<name>.py`` of a built-in
one, outside an assets bucket, means glueball's own. Any other path is a custom transform: its
definition is read and checked, the node's parameters are checked against it, and its file is
added to the job's ``--extra-py-files`` so ``import <module>`` finds it.
"""

from __future__ import annotations

from typing import Any

from glueball.studio.custom import BUILT_IN_DEFINITIONS, Definition, TransformFileError, arguments
from glueball.studio.emitting import Script, call, lit
from glueball.studio.job_graph import Node


def built_in_name(path: str) -> str | None:
    """The built-in visual transform a ``Path`` names, if it names one."""
    bucket = path.split("://", 1)[-1].split("/", 1)[0]
    module = path.rsplit("/", 1)[-1].removesuffix(".py")
    if bucket.startswith("aws-glue-assets-") or module not in BUILT_IN_DEFINITIONS:
        return None
    return module


def _definition(script: Script, node: Node) -> tuple[Definition, str, bool]:
    path = node.body["Path"]
    built_in = built_in_name(path)
    if built_in is not None:
        return BUILT_IN_DEFINITIONS[built_in], built_in, True
    if script.custom_transforms is None:
        raise node.refuse(f"custom visual transform {path} cannot be read here")
    try:
        definition = script.custom_transforms(path)
    except TransformFileError as exc:
        raise node.refuse(f"custom visual transform: {exc}") from exc
    module = path.rsplit("/", 1)[-1].removesuffix(".py")
    if not module.isidentifier():
        raise node.refuse(f"custom visual transform {path}: the file name must be a Python module name")
    return definition, module, False


def dynamic_transform_call(script: Script, node: Node, var: str) -> list[str]:
    """``import <module>`` (once) and ``<var> = <input>.<functionName>(parameters...)``."""
    definition, module, built_in = _definition(script, node)
    if node.body["FunctionName"] != definition.function:
        raise node.refuse(f"FunctionName {node.body['FunctionName']} is not the function of {definition.name} "
                          f"({definition.function})")
    try:
        values: dict[str, Any] = arguments(definition, list(node.body.get("Parameters") or []),
                                           f"node {node.label()}")
    except TransformFileError as exc:
        raise node.refuse(str(exc).split(": ", 1)[1]) from exc
    script.need(f"import {module}")
    if not built_in and node.body["Path"] not in script.extra_py_files:
        script.extra_py_files.append(node.body["Path"])
    ordered = {p.name: lit(values[p.name]) for p in definition.parameters if p.name in values}
    return [f"{var} = " + call(f"{script.var(node.inputs[0])}.{definition.function}", **ordered)]
