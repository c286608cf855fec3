"""What the node types' code is written into: the script being built, literals, and the emitter registry.

``io_nodes``, ``transform_nodes`` and ``visual`` register one function per node type with
:func:`emitter`; :mod:`glueball.studio.codegen` drives them over a checked graph.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from glueball.studio.custom import Definition
from glueball.studio.job_graph import Node

# a custom visual transform's checked definition by the .py path a DynamicTransform names (raises
# glueball.studio.custom.TransformFileError)
CustomTransforms = Callable[[str], "Definition"]

PREAMBLE = ["import sys", "from awsglue.transforms import *", "from awsglue.utils import getResolvedOptions",
            "from pyspark.context import SparkContext", "from awsglue.context import GlueContext",
            "from awsglue.job import Job"]
SETUP = ["args = getResolvedOptions(sys.argv, [\"JOB_NAME\"])", "sc = SparkContext.getOrCreate()",
         "glueContext = GlueContext(sc)", "spark = glueContext.spark_session", "job = Job(glueContext)",
         "job.init(args[\"JOB_NAME\"], args)"]


def lit(value: Any) -> str:
    """``value`` as a Python literal: strings in double quotes, True/False/None, lists and dicts in order."""
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, tuple):
        return "(" + ", ".join(lit(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    if isinstance(value, list):
        return "[" + ", ".join(lit(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{lit(k)}: {lit(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"no literal for {type(value).__name__}")


def call(function: str, *positional: str, **keywords: str) -> str:
    """``function(a, b, k=v)`` from already-rendered arguments."""
    parts = [*positional, *(f"{k}={v}" for k, v in keywords.items())]
    return f"{function}({', '.join(parts)})"


def path_name(path: list[str] | None) -> str:
    """A Glue Studio path (``["address", "city"]``) as Glue's dotted name, backquoting parts with dots."""
    return ".".join(f"`{p}`" if "." in p else p for p in path or [])


def variable_of(node: Node) -> str:
    """Studio's variable name: the node's name without non-alphanumerics, ``_``, the id without ``-``."""
    stem = re.sub(r"[^0-9A-Za-z]", "", node.name)
    suffix = re.sub(r"[^0-9A-Za-z_]", "", node.id)
    if not suffix.startswith("node"):
        suffix = "node" + suffix
    name = f"{stem}_{suffix}" if stem else suffix
    return name if not name[0].isdigit() else "n" + name


@dataclass
class Script:
    """What a graph's nodes contribute to the script, in the order they are emitted."""

    nodes: Mapping[str, Node]
    variables: dict[str, str] = field(default_factory=dict)
    imports: list[str] = field(default_factory=list)
    helpers: dict[str, str] = field(default_factory=dict)
    blocks: list[list[str]] = field(default_factory=list)
    extra_py_files: list[str] = field(default_factory=list)
    custom_transforms: CustomTransforms | None = None
    counters: dict[str, int] = field(default_factory=dict)

    def need(self, line: str) -> None:
        """Add an import line once."""
        if line not in self.imports:
            self.imports.append(line)

    def helper(self, name: str, code: str) -> None:
        """Add a helper function (or class) once, by name."""
        self.helpers.setdefault(name, code)

    def count(self, kind: str) -> int:
        """0, 1, 2 ... for successive calls with ``kind`` (numbered names such as ``SqlQuery0``)."""
        self.counters[kind] = self.counters.get(kind, -1) + 1
        return self.counters[kind]

    def var(self, node_id: str) -> str:
        return self.variables[node_id]

    def text(self) -> str:
        lines = [*PREAMBLE, *self.imports, ""]
        for code in self.helpers.values():
            lines += [code.rstrip("\n"), ""]
        lines += [*SETUP, ""]
        for block in self.blocks:
            lines += [*block, ""]
        lines.append("job.commit()")
        return "\n".join(lines) + "\n"


Emitter = Callable[[Script, Node, str], list[str]]
EMITTERS: dict[str, Emitter] = {}


def emitter(*kinds: str) -> Callable[[Emitter], Emitter]:
    """Register the function writing the code of nodes of ``kinds``."""
    def register(function: Emitter) -> Emitter:
        for kind in kinds:
            EMITTERS[kind] = function
        return function
    return register
