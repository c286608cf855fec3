"""A job graph as a PySpark Glue script, the way Glue Studio writes it.

Each node becomes one block headed ``# Script generated for node <Name>`` that assigns a variable
named after the node (``AmazonS3_node1700000000000`` for node ``node-1700000000000`` named
"Amazon S3") and passes that name as ``transformation_ctx``, so job bookmarks keep one state per
node. Imports, helper functions (``sparkSqlQuery``, ``sparkUnion``, ``sparkAggregate``, custom
code classes) come first, only those the graph needs; the nodes follow parents first. The same
graph always gives the same text.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import glueball.studio.io_nodes  # noqa: F401 - registers the sources and targets
import glueball.studio.transform_nodes  # noqa: F401 - registers the transforms
from glueball.studio.emitting import EMITTERS, CustomTransforms, Script, variable_of
from glueball.studio.graph_columns import check_columns
from glueball.studio.job_graph import ordered, parse


def generate(nodes: Mapping[str, Mapping[str, Any]], custom_transforms: CustomTransforms | None = None) -> Script:
    """The script of ``nodes`` (a ``CodeGenConfigurationNodes`` map), checked and ordered.

    ``custom_transforms`` reads custom visual transforms (see :mod:`glueball.studio.custom`).

    Raises:
        InvalidInputException: the graph is invalid or uses a node type glueball cannot run; the
            message names the node.
    """
    graph = parse(nodes)
    order = ordered(graph)
    for node in order:
        if node.kind not in EMITTERS:
            raise node.refuse(f"{node.kind} nodes are not supported by glueball (supported: "
                              f"{', '.join(sorted(EMITTERS))})")
    check_columns(order)
    script = Script(graph, custom_transforms=custom_transforms)
    taken: set[str] = set()
    for node in order:
        name = variable_of(node)
        while name in taken:
            name += "_"
        taken.add(name)
        script.variables[node.id] = name
    for node in order:
        var = script.var(node.id)
        script.blocks.append([f"# Script generated for node {_one_line(node.name)}",
                              *EMITTERS[node.kind](script, node, var)])
    return script


def _one_line(text: str) -> str:
    return " ".join(text.split())
