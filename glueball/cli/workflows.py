"""``glueball workflows``: list workflows, start a run and follow it, show a run's graph, list runs.

Against a server (``--endpoint``) these are plain Glue calls; the server's scheduler drives the run.
Embedded (no server), ``start`` runs the scheduler in its own process until the run ends.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any, TextIO

import click

from glueball.cli.console import Console, console_options, glue_error, items, when
from glueball.workflows.report import render_graph

_ENDED = ("COMPLETED", "STOPPED", "ERROR")


@click.group()
def workflows() -> None:
    """Glue workflows: list them, start runs (with progress), show a run's graph, list runs."""


@workflows.command("list")
@console_options
def workflows_list(endpoint: str, home: Path | None, store_url: str, region: str) -> None:
    """List the workflows with their latest run."""
    console = Console(endpoint, home, store_url, region)
    try:
        names = list(items(console.glue, "list_workflows", "Workflows"))
        if not names:
            click.echo("no workflows")
        for name in names:
            workflow = console.glue.get_workflow(Name=name)["Workflow"]
            last = workflow.get("LastRun")
            latest = (f"{last['Status']} {last['WorkflowRunId']} started {when(last.get('StartedOn'))}"
                      if last else "never run")
            click.echo(f"{name}\t{latest}")
    except Exception as exc:
        glue_error(exc)
    finally:
        console.close()


def follow(glue: Any, name: str, run_id: str, stream: TextIO, poll: float = 0.5) -> dict[str, Any]:
    """Poll a workflow run to its end, printing each node's state as it changes; the ended run (with graph)."""
    seen: dict[str, str] = {}
    while True:
        run: dict[str, Any] = glue.get_workflow_run(Name=name, RunId=run_id, IncludeGraph=True)["Run"]
        for node in run.get("Graph", {}).get("Nodes", []):
            runs = (node.get("JobDetails") or {}).get("JobRuns") or (node.get("CrawlerDetails") or {}).get("Crawls")
            if not runs:
                continue
            state = runs[0].get("JobRunState") or runs[0].get("State") or ""
            if seen.get(node["UniqueId"]) != state:
                seen[node["UniqueId"]] = state
                stream.write(f"  {time.strftime('%H:%M:%S')}  {node['Type'].lower():8} {node['Name']:28} {state}\n")
                stream.flush()
        if run["Status"] in _ENDED:
            return run
        time.sleep(poll)


def _parse_properties(items: tuple[str, ...]) -> dict[str, str]:
    parsed: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise click.BadParameter(f"expected KEY=VALUE, got {item!r}", param_hint="--property")
        parsed[key] = value
    return parsed


@workflows.command("start")
@click.argument("name")
@click.option("--property", "properties", multiple=True, metavar="KEY=VALUE",
              help="A run property (repeatable), merged over the workflow's DefaultRunProperties.")
@click.option("--wait", is_flag=True, help="Follow the run to its end and show its graph (always so embedded).")
@console_options
def workflows_start(name: str, properties: tuple[str, ...], wait: bool, endpoint: str, home: Path | None,
                    store_url: str, region: str) -> None:
    """Start a run of the workflow NAME (StartWorkflowRun) and print its run id."""
    console = Console(endpoint, home, store_url, region)
    try:
        if console.app is not None:
            console.app.start_scheduler()  # embedded: this process drives the run
            wait = True
        request: dict[str, Any] = {"Name": name}
        if properties:
            request["RunProperties"] = _parse_properties(properties)
        run_id = console.glue.start_workflow_run(**request)["RunId"]
        click.echo(run_id)
        if wait:
            run = follow(console.glue, name, run_id, sys.stderr)
            click.echo(render_graph(run), err=True)
            if run["Status"] != "COMPLETED" or any(run["Statistics"].get(k) for k in (
                    "FailedActions", "TimeoutActions", "ErroredActions", "StoppedActions")):
                raise SystemExit(1)
    except SystemExit:
        raise
    except KeyboardInterrupt:
        if "run_id" in locals():
            console.glue.stop_workflow_run(Name=name, RunId=locals()["run_id"])
            click.echo("stop requested", err=True)
        raise SystemExit(130) from None
    except Exception as exc:
        glue_error(exc)
    finally:
        console.close()


@workflows.command("show")
@click.argument("name")
@click.option("--run", "run_id", default=None, help="A run id [default: the latest run].")
@console_options
def workflows_show(name: str, run_id: str | None, endpoint: str, home: Path | None, store_url: str,
                   region: str) -> None:
    """Show a run of the workflow NAME: its nodes in order with state and time, and its statistics."""
    console = Console(endpoint, home, store_url, region)
    try:
        if run_id is None:
            last = console.glue.get_workflow(Name=name)["Workflow"].get("LastRun")
            if last is None:
                click.echo(f"workflow {name} has never run")
                return
            run_id = last["WorkflowRunId"]
        run = console.glue.get_workflow_run(Name=name, RunId=run_id, IncludeGraph=True)["Run"]
        click.echo(render_graph(run))
    except Exception as exc:
        glue_error(exc)
    finally:
        console.close()


@workflows.command("runs")
@click.argument("name")
@click.option("--max", "limit", type=click.IntRange(1, 1000), default=20, show_default=True,
              help="How many runs to show, newest first.")
@console_options
def workflows_runs(name: str, limit: int, endpoint: str, home: Path | None, store_url: str, region: str) -> None:
    """List the runs of the workflow NAME, newest first, with their status and statistics."""
    console = Console(endpoint, home, store_url, region)
    try:
        runs = console.glue.get_workflow_runs(Name=name, MaxResults=min(limit, 1000))["Runs"]
        if not runs:
            click.echo(f"workflow {name} has never run")
        for run in runs:
            stats = run.get("Statistics") or {}
            previous = f"  resumed from {run['PreviousRunId']}" if run.get("PreviousRunId") else ""
            click.echo(f"{run['WorkflowRunId']}  {run['Status']:9}  started {when(run.get('StartedOn'))}  "
                       f"actions {stats.get('TotalActions', 0)} (succeeded {stats.get('SucceededActions', 0)}, "
                       f"failed {stats.get('FailedActions', 0)}){previous}")
    except Exception as exc:
        glue_error(exc)
    finally:
        console.close()
