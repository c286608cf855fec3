"""The demo's report helpers on hand-built GetWorkflowRun answers and SQL results."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

from glueball.workflows.report import format_duration, render_graph, render_table, topological_order

T0 = dt.datetime(2026, 6, 2, 6, 0, 0, tzinfo=dt.UTC)


def at(seconds: float) -> dt.datetime:
    return T0 + dt.timedelta(seconds=seconds)


def trigger(name: str, kind: str, state: str = "ACTIVATED") -> dict[str, Any]:
    return {"Type": "TRIGGER", "Name": name, "UniqueId": f"id-{name}",
            "TriggerDetails": {"Trigger": {"Name": name, "Type": kind, "State": state}}}


def job(name: str, *runs: dict[str, Any]) -> dict[str, Any]:
    return {"Type": "JOB", "Name": name, "UniqueId": f"id-{name}", "JobDetails": {"JobRuns": list(runs)}}


def crawler(name: str, *crawls: dict[str, Any]) -> dict[str, Any]:
    return {"Type": "CRAWLER", "Name": name, "UniqueId": f"id-{name}", "CrawlerDetails": {"Crawls": list(crawls)}}


def edge(source: str, destination: str) -> dict[str, str]:
    return {"SourceId": f"id-{source}", "DestinationId": f"id-{destination}"}


def daily_run() -> dict[str, Any]:
    """start -> raw crawler -> transform -> curated crawler -> aggregate, nodes listed out of order."""
    nodes = [
        job("demo-aggregate", {"Id": "jr_3", "JobRunState": "SUCCEEDED", "StartedOn": at(50), "CompletedOn": at(73.5),
                               "ExecutionTime": 23}),
        trigger("after-transform", "CONDITIONAL"),
        crawler("demo-raw-crawler", {"State": "SUCCEEDED", "StartedOn": at(0.5), "CompletedOn": at(4.7)}),
        trigger("demo-start", "ON_DEMAND"),
        job("demo-transform", {"Id": "jr_1", "JobRunState": "SUCCEEDED", "StartedOn": at(5), "CompletedOn": at(37.1),
                               "ExecutionTime": 32}),
        trigger("after-raw-crawl", "CONDITIONAL"),
        crawler("demo-curated-crawler", {"State": "SUCCEEDED", "StartedOn": at(38), "CompletedOn": at(39.5)}),
        trigger("after-curated-crawl", "CONDITIONAL"),
    ]
    edges = [edge("demo-start", "demo-raw-crawler"), edge("demo-raw-crawler", "after-raw-crawl"),
             edge("after-raw-crawl", "demo-transform"), edge("demo-transform", "after-transform"),
             edge("after-transform", "demo-curated-crawler"), edge("demo-curated-crawler", "after-curated-crawl"),
             edge("after-curated-crawl", "demo-aggregate")]
    return {"Name": "demo-daily-orders", "WorkflowRunId": "wr_0123", "Status": "COMPLETED", "StartedOn": T0,
            "CompletedOn": at(74), "Statistics": {"TotalActions": 4, "TimeoutActions": 0, "FailedActions": 0,
                                                  "StoppedActions": 0, "SucceededActions": 4, "RunningActions": 0,
                                                  "ErroredActions": 0, "WaitingActions": 0},
            "Graph": {"Nodes": nodes, "Edges": edges}}


def test_the_chain_is_shown_in_topological_order_with_states_and_durations() -> None:
    lines = render_graph(daily_run()).splitlines()
    assert lines[0] == "workflow demo-daily-orders run wr_0123: COMPLETED in 1 min 14 s"
    assert [line.split()[:2] for line in lines[1:-1]] == [
        ["trigger", "demo-start"], ["crawler", "demo-raw-crawler"], ["trigger", "after-raw-crawl"],
        ["job", "demo-transform"], ["trigger", "after-transform"], ["crawler", "demo-curated-crawler"],
        ["trigger", "after-curated-crawl"], ["job", "demo-aggregate"]]
    by_name = {line.split()[1]: line for line in lines[1:-1]}
    assert by_name["demo-raw-crawler"].split()[2:] == ["SUCCEEDED", "4.2", "s"]
    assert by_name["demo-transform"].split()[2:] == ["SUCCEEDED", "32.1", "s"]
    assert by_name["demo-aggregate"].split()[2:] == ["SUCCEEDED", "23.5", "s"]
    assert by_name["demo-start"].split()[2:] == ["ACTIVATED", "ON_DEMAND"]
    # the columns line up
    assert len({line.index("SUCCEEDED") for line in lines[1:-1] if "SUCCEEDED" in line}) == 1
    assert lines[-1] == ("actions: 4 total, 4 succeeded, 0 failed, 0 stopped, 0 timed out, 0 errored, "
                         "0 running, 0 waiting")


def test_a_failed_run_shows_the_error_the_latest_attempt_and_nodes_that_never_ran() -> None:
    run = daily_run()
    nodes = run["Graph"]["Nodes"]
    nodes[4] = job("demo-transform",
                   {"Id": "jr_1", "Attempt": 0, "JobRunState": "FAILED", "StartedOn": at(5), "CompletedOn": at(20),
                    "ErrorMessage": "ValueError: first attempt"},
                   {"Id": "jr_2", "Attempt": 1, "JobRunState": "FAILED", "StartedOn": at(21), "CompletedOn": at(30),
                    "ErrorMessage": "AnalysisException: column amount not found"})
    nodes[0] = job("demo-aggregate")
    nodes[6] = crawler("demo-curated-crawler")
    run.update(Status="COMPLETED", Statistics={"TotalActions": 2, "SucceededActions": 1, "FailedActions": 1})
    text = render_graph(run)
    lines = text.splitlines()
    transform = next(i for i, line in enumerate(lines) if "demo-transform" in line)
    assert lines[transform].split()[2:] == ["FAILED", "9.0", "s", "(attempt", "2)"]
    assert lines[transform + 1].strip() == "AnalysisException: column amount not found"
    assert "first attempt" not in text
    assert next(line for line in lines if "demo-aggregate" in line).split()[2:] == ["-"]
    assert next(line for line in lines if "demo-curated-crawler" in line).split()[2:] == ["-"]
    assert lines[-1] == "actions: 2 total, 1 succeeded, 1 failed"


def test_a_running_node_has_no_duration_yet_and_execution_time_is_the_fallback() -> None:
    run = {"Name": "wf", "WorkflowRunId": "wr_1", "Status": "RUNNING", "StartedOn": T0,
           "Graph": {"Nodes": [crawler("c", {"State": "RUNNING", "StartedOn": at(1)}),
                               job("j", {"JobRunState": "SUCCEEDED", "ExecutionTime": 75})],
                     "Edges": [edge("c", "j")]}}
    lines = render_graph(run).splitlines()
    assert lines[0] == "workflow wf run wr_1: RUNNING"
    assert lines[1].split()[1:] == ["c", "RUNNING", "-"]
    assert lines[2].split()[1:] == ["j", "SUCCEEDED", "1", "min", "15", "s"]
    assert lines[3] == "actions: none recorded"


def test_topological_order_keeps_listed_order_for_ties_and_survives_cycles() -> None:
    nodes = [{"UniqueId": u} for u in ("a", "b", "c", "d")]
    assert topological_order(nodes, [{"SourceId": "c", "DestinationId": "a"}]) == [1, 2, 0, 3]
    assert topological_order(nodes, [{"SourceId": "a", "DestinationId": "b"},
                                     {"SourceId": "b", "DestinationId": "a"},
                                     {"SourceId": "x", "DestinationId": "c"}]) == [2, 3, 0, 1]


def test_durations() -> None:
    assert [format_duration(s) for s in (None, 0.04, 4.25, 59.9, 60, 185, 3725)] == [
        "-", "0.0 s", "4.2 s", "59.9 s", "1 min 00 s", "3 min 05 s", "1 h 02 min"]


def test_render_table_aligns_limits_and_marks_nulls() -> None:
    rows = [("2026-06-01", "consumer", 120, Decimal("3050.10")), ("2026-06-01", "smb", 7, None),
            ("2026-06-02", "enterprise", 1234, Decimal("12.00"))]
    text = render_table(["day", "segment", "orders", "revenue"], rows, limit=2)
    assert text.splitlines() == [
        "day        | segment  | orders | revenue",
        "-----------+----------+--------+--------",
        "2026-06-01 | consumer |    120 | 3050.10",
        "2026-06-01 | smb      |      7 |    NULL",
        "(3 rows, 1 not shown)",
    ]
    assert render_table(["day", "segment", "orders", "revenue"], rows).splitlines()[-1] == "(3 rows)"
    assert render_table(["x"], [(1,)]).splitlines()[-1] == "(1 row)"


def test_render_table_without_rows_and_with_long_cells() -> None:
    assert render_table(["a", "b"], []).splitlines() == ["a | b", "--+--", "(no rows)"]
    text = render_table(["note", "at"], [("x" * 100, dt.datetime(2026, 6, 1, 12, 30))], max_width=19)
    assert text.splitlines()[2] == "x" * 18 + "… | 2026-06-01 12:30:00"
