"""Text for workflow runs and query results: a run as a chain of steps (`glueball workflows show`, the demo), a table.

``render_graph`` takes what Glue's ``GetWorkflowRun`` answers with ``IncludeGraph=True`` —
the ``Run`` member, shaped as boto3 returns it (``StartedOn`` and ``CompletedOn`` as
``datetime`` objects) — and shows the run's nodes in the order the workflow runs them (a
topological order of ``Graph.Edges``), each with its kind, name, state and duration, then
the run's ``Status`` and ``Statistics``. Pure functions: no client, no I/O.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal
from typing import Any

_KINDS = {"TRIGGER": "trigger", "JOB": "job", "CRAWLER": "crawler"}
# Glue's WorkflowRunStatistics members, in the order they are shown
_STATISTICS = (("TotalActions", "total"), ("SucceededActions", "succeeded"), ("FailedActions", "failed"),
               ("StoppedActions", "stopped"), ("TimeoutActions", "timed out"), ("ErroredActions", "errored"),
               ("RunningActions", "running"), ("WaitingActions", "waiting"))
NOT_RUN = "-"


def _moment(value: Any) -> dt.datetime | None:
    """A timestamp as boto3 gives it (datetime), or epoch seconds, or ISO text; None if absent."""
    if value is None or value == "":
        return None
    if isinstance(value, dt.datetime):
        moment = value
    elif isinstance(value, (int, float, Decimal)) and not isinstance(value, bool):
        moment = dt.datetime.fromtimestamp(float(value), dt.UTC)
    else:
        moment = dt.datetime.fromisoformat(str(value))
    return moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)


def _seconds(started: Any, completed: Any) -> float | None:
    start, end = _moment(started), _moment(completed)
    if start is None or end is None:
        return None
    return max(0.0, (end - start).total_seconds())


def format_duration(seconds: float | None) -> str:
    """``4.2 s``, ``3 min 05 s``, ``1 h 02 min``; ``-`` when unknown."""
    if seconds is None:
        return "-"
    if seconds < 60:
        return f"{seconds:.1f} s"
    whole = round(seconds)
    if whole < 3600:
        return f"{whole // 60} min {whole % 60:02d} s"
    return f"{whole // 3600} h {whole % 3600 // 60:02d} min"


def _latest(runs: Sequence[Mapping[str, Any]]) -> Mapping[str, Any] | None:
    """The most recent run of a node (a retried job has one per attempt)."""
    if not runs:
        return None
    epoch = dt.datetime.min.replace(tzinfo=dt.UTC)
    return max(enumerate(runs), key=lambda item: (_moment(item[1].get("StartedOn")) or epoch, item[0]))[1]


def _node_line(node: Mapping[str, Any]) -> tuple[str, str, str, str, str | None]:
    """(kind, name, state, detail, error message) of one graph node."""
    kind = str(node.get("Type", ""))
    name = str(node.get("Name", ""))
    label = _KINDS.get(kind, kind.lower() or "?")
    if kind == "TRIGGER":
        trigger = (node.get("TriggerDetails") or {}).get("Trigger") or {}
        return label, name, str(trigger.get("State") or NOT_RUN), str(trigger.get("Type") or ""), None
    if kind == "JOB":
        run = _latest((node.get("JobDetails") or {}).get("JobRuns") or [])
        if run is None:
            return label, name, NOT_RUN, "", None
        seconds = _seconds(run.get("StartedOn"), run.get("CompletedOn"))
        if seconds is None and run.get("ExecutionTime"):
            seconds = float(run["ExecutionTime"])
        detail = format_duration(seconds)
        if run.get("Attempt"):
            detail += f" (attempt {int(run['Attempt']) + 1})"
        return label, name, str(run.get("JobRunState") or NOT_RUN), detail, run.get("ErrorMessage")
    if kind == "CRAWLER":
        crawl = _latest((node.get("CrawlerDetails") or {}).get("Crawls") or [])
        if crawl is None:
            return label, name, NOT_RUN, "", None
        return (label, name, str(crawl.get("State") or NOT_RUN),
                format_duration(_seconds(crawl.get("StartedOn"), crawl.get("CompletedOn"))), crawl.get("ErrorMessage"))
    return label, name, NOT_RUN, "", None


def topological_order(nodes: Sequence[Mapping[str, Any]], edges: Iterable[Mapping[str, Any]]) -> list[int]:
    """Indexes of ``nodes`` with every edge's source before its destination (Kahn's algorithm).

    Ties keep the order of ``nodes``; edges naming unknown ids are ignored, and nodes on a
    cycle (a workflow has none) come last in their original order.
    """
    index = {str(n.get("UniqueId", "")): i for i, n in enumerate(nodes)}
    successors: dict[int, list[int]] = {i: [] for i in range(len(nodes))}
    incoming = [0] * len(nodes)
    for edge in edges:
        source, target = index.get(str(edge.get("SourceId"))), index.get(str(edge.get("DestinationId")))
        if source is None or target is None or source == target:
            continue
        successors[source].append(target)
        incoming[target] += 1
    ready = sorted(i for i in range(len(nodes)) if incoming[i] == 0)
    order: list[int] = []
    while ready:
        current = ready.pop(0)
        order.append(current)
        for target in successors[current]:
            incoming[target] -= 1
            if incoming[target] == 0:
                ready.append(target)
                ready.sort()
    placed = set(order)
    return order + [i for i in range(len(nodes)) if i not in placed]


def statistics_line(statistics: Mapping[str, Any] | None) -> str:
    """``actions: 4 total, 4 succeeded, 0 failed, ...`` from a run's ``Statistics``."""
    stats = statistics or {}
    parts = [f"{int(stats[key])} {label}" for key, label in _STATISTICS if stats.get(key) is not None]
    return "actions: " + (", ".join(parts) if parts else "none recorded")


def render_graph(run: Mapping[str, Any]) -> str:
    """A workflow run (GetWorkflowRun's ``Run`` with ``Graph``) as readable text.

    The first line names the workflow, the run id, its ``Status`` and how long it took;
    then one line per node in topological order — kind, name, state and the duration of
    the node's latest job run or crawl (a trigger shows its type instead); a failed node's
    ``ErrorMessage`` follows on its own line; the last line is the ``Statistics``.
    """
    header = f"workflow {run.get('Name', '?')} run {run.get('WorkflowRunId', '?')}: {run.get('Status', '?')}"
    took = _seconds(run.get("StartedOn"), run.get("CompletedOn"))
    if took is not None:
        header += f" in {format_duration(took)}"
    lines = [header]
    if run.get("ErrorMessage"):
        lines.append(f"  error: {run['ErrorMessage']}")
    graph = run.get("Graph") or {}
    nodes = list(graph.get("Nodes") or [])
    rows = [_node_line(nodes[i]) for i in topological_order(nodes, graph.get("Edges") or [])]
    if rows:
        name_width = max(len(r[1]) for r in rows)
        state_width = max(len(r[2]) for r in rows)
        for kind, name, state, detail, error in rows:
            lines.append(f"  {kind:<7}  {name:<{name_width}}  {state:<{state_width}}  {detail}".rstrip())
            if error:
                lines.append(f"           {error}")
    else:
        lines.append("  (no graph)")
    lines.append(statistics_line(run.get("Statistics")))
    return "\n".join(lines)


def _cell(value: Any, max_width: int) -> str:
    if value is None:
        text = "NULL"
    elif isinstance(value, dt.datetime):
        text = value.isoformat(sep=" ")
    elif isinstance(value, float):
        text = f"{value:.6g}"
    else:
        text = str(value)
    text = text.replace("\n", " ")
    return text if len(text) <= max_width else text[:max_width - 1] + "…"


def _numeric(value: Any) -> bool:
    return isinstance(value, (int, float, Decimal)) and not isinstance(value, bool)


def render_table(columns: Sequence[str], rows: Iterable[Sequence[Any]], limit: int = 10,
                 max_width: int = 40) -> str:
    """An SQL result as a text table: a header, a rule, at most ``limit`` rows, and how many were left out.

    Numbers are right-aligned, NULL is shown as ``NULL``, cells longer than ``max_width``
    are cut with ``…``. ``rows`` are sequences in column order (Spark ``Row`` objects are).
    """
    all_rows = [tuple(r) for r in rows]
    shown = all_rows[:max(0, limit)]
    cells = [[_cell(v, max_width) for v in row] for row in shown]
    widths = [len(str(c)) for c in columns]
    for row in cells:
        for i, text in enumerate(row[:len(widths)]):
            widths[i] = max(widths[i], len(text))
    right = [any(_numeric(row[i]) for row in shown if i < len(row)) for i in range(len(columns))]

    def line(texts: Sequence[str]) -> str:
        out = [t.rjust(widths[i]) if right[i] else t.ljust(widths[i]) for i, t in enumerate(texts[:len(widths)])]
        return " | ".join(out).rstrip()

    lines = [line([str(c) for c in columns]), "-+-".join("-" * w for w in widths)]
    lines += [line(row) for row in cells]
    if not all_rows:
        lines.append("(no rows)")
    elif len(all_rows) > len(shown):
        more = len(all_rows) - len(shown)
        lines.append(f"({len(all_rows)} rows, {more} not shown)")
    else:
        lines.append(f"({len(all_rows)} row{'s' if len(all_rows) != 1 else ''})")
    return "\n".join(lines)
