"""``glueball jobs`` (list, start with progress, runs, stop, logs) and ``glueball logs``."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any, TextIO

import click

from glueball.cli.console import (
    ENDED_STATES,
    HOME_HELP,
    Console,
    console_options,
    glue_error,
    items,
    size,
    when,
)
from glueball.config import default_home


@click.group()
def jobs() -> None:
    """Glue jobs: list them, start runs (with progress), see runs, logs and metrics, stop runs."""


@jobs.command("list")
@console_options
def jobs_list(endpoint: str, home: Path | None, store_url: str, region: str) -> None:
    """List the jobs with their kind and their latest run."""
    console = Console(endpoint, home, store_url, region)
    try:
        found = list(items(console.glue, "get_jobs", "Jobs"))
        if not found:
            click.echo("no jobs")
        for job in found:
            runs = console.glue.get_job_runs(JobName=job["Name"], MaxResults=1)["JobRuns"]
            latest = f"{runs[0]['JobRunState']} {runs[0]['Id']}" if runs else "never run"
            click.echo(f"{job['Name']}\t{job['Command']['Name']}\t{job['Command'].get('ScriptLocation', '')}\t"
                       f"{latest}")
    except Exception as exc:
        glue_error(exc)
    finally:
        console.close()


def _parse_args(args: tuple[str, ...]) -> dict[str, str]:
    parsed: dict[str, str] = {}
    for item in args:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise click.BadParameter(f"expected KEY=VALUE, got {item!r}", param_hint="--arg")
        parsed[key if key.startswith("--") else f"--{key}"] = value
    return parsed


def _wait(console: Console, name: str, run_id: str, stream: TextIO) -> dict[str, Any]:
    """Poll the run (and its retries) to its end, showing its state and elapsed time; the last attempt."""

    live = stream.isatty()
    shown = ""
    while True:
        run: dict[str, Any] = console.glue.get_job_run(JobName=name, RunId=run_id)["JobRun"]
        state = run["JobRunState"]
        text = f"job run {run_id} (attempt {run['Attempt']}): {state} {run.get('ExecutionTime', 0)}s"
        if live:
            stream.write("\r" + text.ljust(len(shown)))
            shown = text
        elif state != shown:
            stream.write(text + "\n")
            shown = state
        stream.flush()
        if state in ENDED_STATES:
            if live:
                stream.write("\n")
            retry = _next_attempt(console, name, run) if state in ("FAILED", "TIMEOUT") else None
            if retry is None:
                return run
            run_id, shown = retry, ""
            stream.write(f"retrying as {run_id}\n")
            continue
        time.sleep(0.5)


def _next_attempt(console: Console, name: str, run: dict[str, Any]) -> str | None:

    job = console.glue.get_job(JobName=name)["Job"]
    if run["Attempt"] >= job.get("MaxRetries", 0):
        return None
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        for other in console.glue.get_job_runs(JobName=name, MaxResults=20)["JobRuns"]:
            if other.get("PreviousRunId") == run["Id"]:
                return str(other["Id"])
        time.sleep(0.2)
    return None


def _start_detached(console: Console, name: str, request: dict[str, Any]) -> str:
    """Embedded start without --wait: a detached process starts the run and watches it to its end."""
    import json as json_
    import subprocess

    settings = console.settings
    console.close()
    proc = subprocess.Popen(
        [sys.executable, "-m", "glueball.cli.detached", str(settings.home), settings.store_url, console.region,
         name, json_.dumps(request)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, start_new_session=True)
    assert proc.stdout is not None
    line = proc.stdout.readline().decode() or "{}"
    answer = json_.loads(line)
    if "JobRunId" not in answer:
        click.echo(f"glueball jobs: {answer.get('Code', 'InternalServiceException')}: "
                   f"{answer.get('Message', 'the job run could not be started')}", err=True)
        raise SystemExit(1)
    return str(answer["JobRunId"])


@jobs.command("start")
@click.argument("name")
@click.option("--arg", "args", multiple=True, metavar="KEY=VALUE",
              help="A run argument (repeatable); KEY gets a leading -- if it has none.")
@click.option("--timeout", type=int, default=None, help="The run's Timeout in minutes.")
@click.option("--wait", is_flag=True, help="Wait for the run to end, showing its progress; exit 1 unless it "
                                           "SUCCEEDED.")
@console_options
def jobs_start(name: str, args: tuple[str, ...], timeout: int | None, wait: bool, endpoint: str,
               home: Path | None, store_url: str, region: str) -> None:
    """Start a run of the job NAME (StartJobRun) and print its run id."""
    request: dict[str, Any] = {"JobName": name}
    if args:
        request["Arguments"] = _parse_args(args)
    if timeout is not None:
        request["Timeout"] = timeout
    console = Console(endpoint, home, store_url, region)
    try:
        if not endpoint and not wait:
            click.echo(_start_detached(console, name, request))
            return
        run_id = console.glue.start_job_run(**request)["JobRunId"]
        click.echo(run_id)
        if wait:
            run = _wait(console, name, run_id, sys.stderr)
            _print_run(console, name, run, sys.stderr)
            if run["JobRunState"] != "SUCCEEDED":
                raise SystemExit(1)
    except SystemExit:
        raise
    except KeyboardInterrupt:
        if wait and "run_id" in locals():
            console.glue.batch_stop_job_run(JobName=name, JobRunIds=[locals()["run_id"]])
            click.echo("stop requested", err=True)
        raise SystemExit(130) from None
    except Exception as exc:
        glue_error(exc)
    finally:
        console.close()


def _streaming_line(streaming: dict[str, Any]) -> str:
    """A streaming run's batches: how many, and the latest one's rows, rates, duration and consumer lag."""
    last = streaming.get("LastBatch") or {}

    def rate(value: Any) -> str:
        return "-" if value is None else f"{value:,.0f}/s"

    lag = last.get("consumerLag")
    return (f"  streaming: {streaming.get('Batches', 0)} batches, {streaming.get('InputRows', 0)} rows; "
            f"last batch {last.get('batchId', '-')}: {last.get('numInputRows', 0)} rows, "
            f"input {rate(last.get('inputRowsPerSecond'))}, processed {rate(last.get('processedRowsPerSecond'))}, "
            f"{last.get('batchDurationMs', 0)} ms, consumer lag {'-' if lag is None else lag}")


def _print_run(console: Console, name: str, run: dict[str, Any], stream: TextIO) -> None:
    extra = console.metrics(name, run["Id"])
    metrics = extra.get("Metrics") or {}
    lines = [f"{run['Id']}  attempt {run['Attempt']}  {run['JobRunState']}",
             f"  started {when(run.get('StartedOn'))}  completed {when(run.get('CompletedOn')) or '-'}  "
             f"execution time {run.get('ExecutionTime', 0)} s  DPU-seconds {run.get('DPUSeconds', '-')}"]
    if metrics:
        lines.append(f"  rows read {metrics.get('records_read', '-')}  written {metrics.get('records_written', '-')}"
                     f"  bytes read {size(metrics.get('bytes_read'))}  written "
                     f"{size(metrics.get('bytes_written'))}")
    streaming = extra.get("StreamingMetrics")
    if streaming:
        lines.append(_streaming_line(streaming))
    if run.get("PreviousRunId"):
        lines.append(f"  previous run {run['PreviousRunId']}")
    if run.get("ErrorMessage"):
        lines.append(f"  error: {run['ErrorMessage']}")
    if extra.get("LogDirectory"):
        lines.append(f"  logs: {extra['LogDirectory']}")
    stream.write("\n".join(lines) + "\n")


@jobs.command("runs")
@click.argument("name")
@click.option("--max", "limit", type=click.IntRange(1, 1000), default=20, show_default=True,
              help="How many runs, newest first.")
@console_options
def jobs_runs(name: str, limit: int, endpoint: str, home: Path | None, store_url: str, region: str) -> None:
    """Show the runs of the job NAME, newest first, with their metrics."""
    console = Console(endpoint, home, store_url, region)
    try:
        shown = 0
        for run in items(console.glue, "get_job_runs", "JobRuns", JobName=name):
            if shown == limit:
                return
            _print_run(console, name, run, sys.stdout)
            shown += 1
        if not shown:
            click.echo(f"job {name} has no runs")
    except Exception as exc:
        glue_error(exc)
    finally:
        console.close()


@jobs.command("stop")
@click.argument("name")
@click.argument("run_ids", nargs=-1, required=True)
@console_options
def jobs_stop(name: str, run_ids: tuple[str, ...], endpoint: str, home: Path | None, store_url: str,
              region: str) -> None:
    """Stop runs of the job NAME (BatchStopJobRun); exit 1 if one could not be stopped."""
    console = Console(endpoint, home, store_url, region)
    try:
        answer = console.glue.batch_stop_job_run(JobName=name, JobRunIds=list(run_ids))
        for done in answer["SuccessfulSubmissions"]:
            click.echo(f"{done['JobRunId']}: stopping")
        for error in answer["Errors"]:
            detail = error["ErrorDetail"]
            click.echo(f"{error['JobRunId']}: {detail['ErrorCode']}: {detail['ErrorMessage']}", err=True)
        if answer["Errors"]:
            raise SystemExit(1)
    except SystemExit:
        raise
    except Exception as exc:
        glue_error(exc)
    finally:
        console.close()


def _show_logs(run_id: str, home: Path | None) -> None:
    from glueball.jobs.logs import find_run_logs, read_text

    found = find_run_logs((home or default_home()).expanduser(), run_id)
    if found is None:
        click.echo(f"glueball logs: no logs of job run {run_id} under {(home or default_home()).expanduser()}",
                   err=True)
        raise SystemExit(1)
    for title, path in (("output", found.output), ("error", found.error)):
        click.echo(f"==> {title} log of job {found.job_name} run {run_id}: {path} <==")
        text = read_text(path)
        click.echo(text, nl=not text.endswith("\n") and bool(text))


@jobs.command("logs")
@click.argument("run_id")
@click.option("--home", type=click.Path(file_okay=False, path_type=Path), default=None, help=HOME_HELP)
def jobs_logs(run_id: str, home: Path | None) -> None:
    """Print the output and error logs of the job run RUN_ID, with their paths."""
    _show_logs(run_id, home)


@click.command("logs")
@click.argument("run_id")
@click.option("--home", type=click.Path(file_okay=False, path_type=Path), default=None, help=HOME_HELP)
def logs(run_id: str, home: Path | None) -> None:
    """Print the output and error logs of the job run RUN_ID, with their paths."""
    _show_logs(run_id, home)


