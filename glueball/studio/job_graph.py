"""A job graph (``CodeGenConfigurationNodes``): its nodes, their order, and the checks Glue Studio makes.

A graph is a map from node id to a ``CodeGenConfigurationNode``, a union with exactly one member
set (``{"S3JsonSource": {...}}``). Each node names its parents by id in ``Inputs``; sources have
none. :func:`ordered` refuses a graph that cannot become a script — a cycle, an input that is
no node, the wrong number of inputs, a target used as an input, a frame given where a
collection is needed and the reverse — with ``InvalidInputException`` naming the node, and
answers the nodes parents first, ties broken by node id, so a graph always yields the same
script.
"""

from __future__ import annotations

import functools
import heapq
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import botocore.session

from glueball.errors import InvalidInputException

# nodes whose output is a DynamicFrameCollection; SelectFromCollection takes one, nothing else does
COLLECTION_KINDS = frozenset({"SplitFields", "CustomCode"})
COLLECTION_INPUT_KINDS = frozenset({"SelectFromCollection"})


@functools.cache
def _node_shapes() -> dict[str, Any]:
    model = botocore.session.Session().get_service_model("glue")
    return dict(model.shape_for("CodeGenConfigurationNode").members)


def input_bounds(kind: str) -> tuple[int, int | None]:
    """How many inputs a node of ``kind`` takes: (least, most); most None is unbounded, (0, 0) a source."""
    shape = _node_shapes()[kind]
    member = shape.members.get("Inputs")
    if member is None:
        return 0, 0
    metadata = member.metadata
    return int(metadata.get("min", 0)), (int(metadata["max"]) if "max" in metadata else None)


def is_target(kind: str) -> bool:
    """A node that writes its input and gives nothing to others."""
    return kind.endswith("Target")


@dataclass(frozen=True)
class Node:
    """One node of a graph: its id, its kind (the union member set) and that member's structure."""

    id: str
    kind: str
    body: Mapping[str, Any]

    @property
    def name(self) -> str:
        return str(self.body.get("Name", self.id))

    @property
    def inputs(self) -> list[str]:
        return [str(i) for i in self.body.get("Inputs") or []]

    def label(self) -> str:
        """How messages name the node: ``'Join' (node-3)``."""
        return f"{self.name!r} ({self.id})"

    def refuse(self, why: str) -> InvalidInputException:
        return InvalidInputException(f"CodeGenConfigurationNodes: node {self.label()}: {why}")


def parse(nodes: Mapping[str, Mapping[str, Any]]) -> dict[str, Node]:
    """The nodes of a ``CodeGenConfigurationNodes`` map.

    Raises:
        InvalidInputException: a node with no member, or more than one, set.
    """
    if not nodes:
        raise InvalidInputException("CodeGenConfigurationNodes: the graph has no nodes")
    parsed: dict[str, Node] = {}
    for node_id, union in nodes.items():
        members = [k for k, v in union.items() if v is not None]
        if len(members) != 1:
            what = "none" if not members else ", ".join(sorted(members))
            raise InvalidInputException(f"CodeGenConfigurationNodes: node {node_id} must set exactly one node type, "
                                        f"got {what}")
        kind = members[0]
        if kind not in _node_shapes():
            raise InvalidInputException(f"CodeGenConfigurationNodes: node {node_id}: unknown node type {kind}")
        parsed[node_id] = Node(node_id, kind, union[kind])
    return parsed


def _check_inputs(node: Node, graph: Mapping[str, Node]) -> None:
    least, most = input_bounds(node.kind)
    count = len(node.inputs)
    if most == 0 and count:
        raise node.refuse(f"a {node.kind} is a source and takes no inputs, got {count}")
    if count < least or (most is not None and count > most):
        wanted = str(least) if least == most else (f"{least} or more" if most is None else f"{least} to {most}")
        raise node.refuse(f"a {node.kind} takes {wanted} input(s), got {count}")
    if len(set(node.inputs)) != count:
        raise node.refuse(f"an input is named twice ({', '.join(node.inputs)})")
    for parent_id in node.inputs:
        parent = graph.get(parent_id)
        if parent is None:
            raise node.refuse(f"input {parent_id} is not a node of the graph")
        if is_target(parent.kind):
            raise node.refuse(f"input {parent.label()} is a {parent.kind}, which gives no data to other nodes")
        collection = parent.kind in COLLECTION_KINDS
        if node.kind in COLLECTION_INPUT_KINDS and not collection:
            raise node.refuse(f"a {node.kind} needs a collection (from SplitFields or CustomCode), "
                              f"but input {parent.label()} is a single frame")
        if collection and node.kind not in COLLECTION_INPUT_KINDS:
            raise node.refuse(f"input {parent.label()} gives a collection of frames; "
                              "put a SelectFromCollection between them")


def ordered(graph: Mapping[str, Node]) -> list[Node]:
    """The nodes parents first (ties by id), after checking every node's inputs.

    Raises:
        InvalidInputException: naming the node with bad inputs, or the nodes of a cycle.
    """
    for node in graph.values():
        _check_inputs(node, graph)
    waiting = {node_id: len(node.inputs) for node_id, node in graph.items()}
    children: dict[str, list[str]] = {node_id: [] for node_id in graph}
    for node in graph.values():
        for parent in node.inputs:
            children[parent].append(node.id)
    ready = [node_id for node_id, count in waiting.items() if count == 0]
    heapq.heapify(ready)
    order: list[Node] = []
    while ready:
        node_id = heapq.heappop(ready)
        order.append(graph[node_id])
        for child in children[node_id]:
            waiting[child] -= 1
            if waiting[child] == 0:
                heapq.heappush(ready, child)
    if len(order) < len(graph):
        stuck = sorted(node_id for node_id, count in waiting.items() if count > 0)
        cycle = ", ".join(graph[n].label() for n in stuck)
        raise InvalidInputException(f"CodeGenConfigurationNodes: the graph has a cycle through node(s) {cycle}")
    return order
