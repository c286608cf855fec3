"""A workflow's graph: its triggers, the jobs and crawlers they start or watch, and the edges.

Glue draws a workflow as nodes (TRIGGER, JOB, CRAWLER) and edges: a trigger points to the jobs
and crawlers its actions start, and each job or crawler a CONDITIONAL trigger's predicate watches
points to that trigger. Node ids are stable for a workflow (``wnode_`` and a hash of the workflow,
the node type and name), so a node id read from one GetWorkflowRun can be given to
ResumeWorkflowRun later.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from glueball.workflows.models import Trigger

TRIGGER, JOB, CRAWLER = "TRIGGER", "JOB", "CRAWLER"


def node_id(workflow: str, node_type: str, name: str) -> str:
    digest = hashlib.sha256(f"{workflow}\x00{node_type}\x00{name}".encode()).hexdigest()
    return f"wnode_{digest[:48]}"


@dataclass(frozen=True)
class Node:
    type: str
    name: str
    unique_id: str


@dataclass
class Graph:
    """The static graph of one workflow."""

    workflow: str
    triggers: dict[str, Trigger] = field(default_factory=dict)
    nodes: dict[str, Node] = field(default_factory=dict)
    edges: list[tuple[str, str]] = field(default_factory=list)

    @classmethod
    def build(cls, workflow: str, triggers: list[Trigger]) -> Graph:
        graph = cls(workflow)
        for trigger in sorted(triggers, key=lambda t: t.name):
            graph.triggers[trigger.name] = trigger
            source = graph._node(TRIGGER, trigger.name)
            for condition in trigger.conditions:
                if condition.job_name:
                    graph._edge(graph._node(JOB, condition.job_name), source)
                elif condition.crawler_name:
                    graph._edge(graph._node(CRAWLER, condition.crawler_name), source)
            for action in trigger.actions:
                if action.get("JobName"):
                    graph._edge(source, graph._node(JOB, action["JobName"]))
                elif action.get("CrawlerName"):
                    graph._edge(source, graph._node(CRAWLER, action["CrawlerName"]))
        return graph

    def _node(self, node_type: str, name: str) -> str:
        uid = node_id(self.workflow, node_type, name)
        self.nodes.setdefault(uid, Node(node_type, name, uid))
        return uid

    def _edge(self, source: str, destination: str) -> None:
        if (source, destination) not in self.edges:
            self.edges.append((source, destination))

    def of(self, node_type: str, name: str) -> Node | None:
        return self.nodes.get(node_id(self.workflow, node_type, name))

    def downstream(self, start: set[str]) -> set[str]:
        """``start`` and every node reachable from it along the edges."""
        successors: dict[str, list[str]] = {}
        for source, destination in self.edges:
            successors.setdefault(source, []).append(destination)
        seen = set(start)
        pending = list(start)
        while pending:
            for following in successors.get(pending.pop(), []):
                if following not in seen:
                    seen.add(following)
                    pending.append(following)
        return seen

    def topological(self) -> list[Node]:
        """The nodes in an order where every edge points forward (ties by type and name)."""
        incoming = dict.fromkeys(self.nodes, 0)
        successors: dict[str, list[str]] = {}
        for source, destination in self.edges:
            incoming[destination] += 1
            successors.setdefault(source, []).append(destination)
        ready = sorted((uid for uid, count in incoming.items() if count == 0), key=self._order)
        ordered: list[Node] = []
        while ready:
            uid = ready.pop(0)
            ordered.append(self.nodes[uid])
            for following in successors.get(uid, []):
                incoming[following] -= 1
                if incoming[following] == 0:
                    ready.append(following)
                    ready.sort(key=self._order)
        placed = {node.unique_id for node in ordered}
        ordered.extend(self.nodes[uid] for uid in sorted(self.nodes, key=self._order) if uid not in placed)  # cycles
        return ordered

    def _order(self, uid: str) -> tuple[str, str]:
        node = self.nodes[uid]
        return node.type, node.name
