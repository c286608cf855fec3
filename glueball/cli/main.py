"""The ``glueball`` command."""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path
from typing import Any, NoReturn, TextIO

import click

from glueball import __version__
from glueball.config import Settings, default_home, log_to_home


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def cli() -> None:
    """glueball: a self-hosted AWS Glue on Apache Spark."""


@cli.command()
def version() -> None:
    """Print glueball's version and the Glue API version it serves."""
    from glueball.api.model import service_model

    api = service_model().api_version
    click.echo(f"glueball {__version__} (AWS Glue API {api})")


@cli.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=9400, show_default=True, type=int, help="Port to listen on.")
@click.option("--home", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="GLUEBALL_HOME: database, object store, logs [default: $GLUEBALL_HOME or ~/.glueball].")
@click.option("--store", "store_url", default="", envvar="GLUEBALL_STORE",
              help="Store URL, e.g. postgresql://user@host/db [default: SQLite under the home].")
@click.option("--region", default="us-east-1", show_default=True,
              help="Region for requests that carry no SigV4 credential scope.")
@click.option("--access-key", "access_keys", multiple=True, metavar="KEY=ACCOUNT",
              help="Map an access key id to a 12-digit account id (repeatable; also GLUEBALL_ACCESS_KEYS, "
                   "comma-separated). Unknown keys use the default account 123456789012.")
@click.option("--workers", default=1, show_default=True, type=click.IntRange(1, 64),
              help="Server processes sharing the port (the store keeps them consistent).")
@click.option("--scheduler/--no-scheduler", default=True, show_default=True,
              help="Run the scheduler (trigger schedules, crawler schedules, workflow runs) in this server.")
@click.option("--clock-file", type=click.Path(dir_okay=False), default=None, envvar="GLUEBALL_CLOCK_FILE",
              help="Decide schedules by the epoch seconds written in this file instead of the wall clock "
                   "(tests and rehearsals).")
def server(host: str, port: int, home: Path | None, store_url: str, region: str,
           access_keys: tuple[str, ...], workers: int, scheduler: bool, clock_file: str | None) -> None:
    """Serve the Glue web API at POST / (AWS JSON 1.1)."""
    from glueball.api.identity import AccountDirectory, parse_key_mappings
    from glueball.api.server import serve
    from glueball.app import Glueball

    own_host = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host
    own_host = f"[{own_host}]" if ":" in own_host else own_host
    settings = Settings(home=(home or default_home()).expanduser(), store_url=store_url, region=region,
                        endpoint=f"http://{own_host}:{port}")
    mappings = list(access_keys) + [m for m in os.environ.get("GLUEBALL_ACCESS_KEYS", "").split(",") if m]
    try:
        directory = AccountDirectory(parse_key_mappings(mappings))
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--access-key") from exc
    if clock_file:
        os.environ["GLUEBALL_CLOCK_FILE"] = clock_file  # the scheduler's clock, in every worker process
    glue = Glueball(settings, directory)
    log_to_home(settings)
    logging.getLogger("glueball").info("serving on %s:%s with %s worker(s), store %s", host, port, workers,
                                       glue.store.engine.url.render_as_string())
    click.echo(f"glueball {__version__} serving the Glue API on http://{host}:{port}/ "
               f"(home {settings.home}, store {glue.store.engine.url.render_as_string()}, {workers} worker(s))",
               err=True)
    serve(glue, host, port, workers, scheduler)


@cli.command(context_settings={"ignore_unknown_options": True, "allow_extra_args": True,
                               "allow_interspersed_args": False})
@click.argument("script")
@click.argument("script_args", nargs=-1, type=click.UNPROCESSED)
def run(script: str, script_args: tuple[str, ...]) -> None:
    """Run a Glue ETL script unchanged: glueball run SCRIPT [--JOB_NAME name] [--key value ...].

    Runner options, anywhere among the arguments: --spark-master URL (default local[*]),
    --conf key=value (repeatable), --extra-py-files a.py,b.zip. Everything else reaches the
    script's sys.argv, as on AWS Glue. The catalog is the embedded one of GLUEBALL_HOME,
    or a server's with GLUEBALL_ENDPOINT=http://host:9400.
    """
    from glueball.runtime.runner import parse_run_args
    from glueball.runtime.runner import run as run_script

    try:
        plan = parse_run_args(script, list(script_args))
    except ValueError as exc:
        raise click.UsageError(str(exc)) from exc
    raise SystemExit(run_script(plan))


class _ProgressLine:
    """One live line on a terminal (``stage done/total``); one line per stage elsewhere."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.live = stream.isatty()
        self.stage = ""
        self.width = 0

    def update(self, stage: str, done: int, total: int) -> None:
        text = f"{stage}: {done}/{total}" if total else f"{stage}: {done}"
        if self.live:
            self.stream.write("\r" + text.ljust(self.width))
            self.width = len(text)
        elif stage != self.stage or done == total:
            self.stream.write(text + "\n")
        self.stage = stage
        self.stream.flush()

    def finish(self) -> None:
        if self.live and self.width:
            self.stream.write("\n")
            self.stream.flush()


@cli.command()
@click.argument("name")
@click.option("--home", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="GLUEBALL_HOME: database, object store, logs [default: $GLUEBALL_HOME or ~/.glueball].")
@click.option("--store", "store_url", default="", envvar="GLUEBALL_STORE",
              help="Store URL, e.g. postgresql://user@host/db [default: SQLite under the home].")
@click.option("--region", default="us-east-1", show_default=True, help="Region of the crawler.")
def crawl(name: str, home: Path | None, store_url: str, region: str) -> None:
    """Run the crawler NAME now, in this process, on the embedded catalog (like StartCrawler).

    Shows the crawl's progress on stderr and a summary at the end; exits 1 if the crawl fails
    or cannot start.
    """
    from glueball.app import Glueball
    from glueball.catalog.models import Scope
    from glueball.crawlers.models import LastCrawlStatus
    from glueball.errors import GlueError

    settings = Settings(home=(home or default_home()).expanduser(), store_url=store_url, region=region)
    glue = Glueball(settings)
    line = _ProgressLine(sys.stderr)
    try:
        result = glue.crawls.run(Scope(glue.accounts.default_account, region), None, name, line.update)
    except GlueError as err:
        click.echo(f"glueball crawl: {err.code}: {err.message}", err=True)
        raise SystemExit(1) from err
    finally:
        line.finish()
        glue.close()
    stats = result.stats
    click.echo(f"crawl {result.crawl_id} of crawler {name}: {result.status.value}", err=True)
    click.echo(f"  tables: {stats.tables_created} created, {stats.tables_updated} updated, "
               f"{stats.tables_deleted} deleted", err=True)
    click.echo(f"  partitions: {stats.partitions_created} created, {stats.partitions_updated} updated, "
               f"{stats.partitions_deleted} deleted", err=True)
    if result.error:
        click.echo(f"  error: {result.error}", err=True)
    click.echo(f"  log: {result.log_file}", err=True)
    if result.status is not LastCrawlStatus.SUCCEEDED:
        raise SystemExit(1)


# ---------------------------------------------------------------- jobs

_HOME_HELP = "GLUEBALL_HOME: database, object store, logs [default: $GLUEBALL_HOME or ~/.glueball]."
_ENDED_STATES = ("STOPPED", "SUCCEEDED", "FAILED", "TIMEOUT", "ERROR", "EXPIRED")


class _JobsConsole:
    """The Glue calls of ``glueball jobs``: a server's (``--endpoint``) or the embedded catalog's."""

    def __init__(self, endpoint: str, home: Path | None, store_url: str, region: str) -> None:
        self.endpoint = endpoint
        self.region = region
        self.settings = Settings(home=(home or default_home()).expanduser(), store_url=store_url, region=region)
        self.app: Any = None
        if endpoint:
            import boto3
            import botocore.config

            self.glue: Any = boto3.client(
                "glue", endpoint_url=endpoint, region_name=region,
                aws_access_key_id=os.environ.get("AWS_ACCESS_KEY_ID", "glueball"),
                aws_secret_access_key=os.environ.get("AWS_SECRET_ACCESS_KEY", "glueball"),
                config=botocore.config.Config(retries={"max_attempts": 2}))
        else:
            from glueball.api.client import GlueClient
            from glueball.app import Glueball

            self.app = Glueball(self.settings)
            self.glue = GlueClient(self.app, region=region)

    def metrics(self, name: str, run_id: str) -> dict[str, Any]:
        """glueball's ``GetJobRunMetrics`` of a run ({} if the server does not answer it)."""
        request = {"JobName": name, "RunId": run_id}
        if self.app is not None:
            from glueball.api.identity import Caller
            from glueball.jobs.handlers import get_job_run_metrics

            caller = Caller(None, self.app.accounts.default_account, self.region)
            return dict(get_job_run_metrics(self.app, caller, request))
        import json as json_

        import urllib3

        response = urllib3.PoolManager().request(
            "POST", self.endpoint.rstrip("/") + "/", body=json_.dumps(request).encode(),
            headers={"X-Amz-Target": "Glueball.GetJobRunMetrics", "Content-Type": "application/x-amz-json-1.1"})
        answer: dict[str, Any] = json_.loads(response.data or b"{}") if response.status == 200 else {}
        return answer

    def close(self) -> None:
        if self.app is not None:
            self.app.close()


def _console_options(command: Any) -> Any:
    command = click.option("--region", default="us-east-1", show_default=True, help="Region of the jobs.")(command)
    command = click.option("--store", "store_url", default="", envvar="GLUEBALL_STORE",
                           help="Store URL of the embedded catalog [default: SQLite under the home].")(command)
    command = click.option("--home", type=click.Path(file_okay=False, path_type=Path), default=None,
                           help=_HOME_HELP)(command)
    command = click.option("--endpoint", default="", envvar="GLUEBALL_ENDPOINT",
                           help="A glueball server's URL, e.g. http://127.0.0.1:9400 [default: the embedded "
                                "catalog].")(command)
    return command


def _glue_error(exc: Exception) -> NoReturn:
    from botocore.exceptions import ClientError

    if isinstance(exc, ClientError):
        error = exc.response.get("Error", {})
        click.echo(f"glueball jobs: {error.get('Code')}: {error.get('Message')}", err=True)
        raise SystemExit(1) from exc
    raise exc


def _when(value: Any) -> str:
    return value.strftime("%Y-%m-%d %H:%M:%S") if hasattr(value, "strftime") else str(value or "")


def _size(value: Any) -> str:
    if value is None:
        return "-"
    number = float(value)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if number < 1024 or unit == "GiB":
            return f"{number:.0f} {unit}" if unit == "B" else f"{number:.1f} {unit}"
        number /= 1024
    return str(value)


@cli.group()
def jobs() -> None:
    """Glue jobs: list them, start runs (with progress), see runs, logs and metrics, stop runs."""


@jobs.command("list")
@_console_options
def jobs_list(endpoint: str, home: Path | None, store_url: str, region: str) -> None:
    """List the jobs with their kind and their latest run."""
    console = _JobsConsole(endpoint, home, store_url, region)
    try:
        found = [job for page in _pages(console.glue.get_jobs, "Jobs") for job in page]
        if not found:
            click.echo("no jobs")
        for job in found:
            runs = console.glue.get_job_runs(JobName=job["Name"], MaxResults=1)["JobRuns"]
            latest = f"{runs[0]['JobRunState']} {runs[0]['Id']}" if runs else "never run"
            click.echo(f"{job['Name']}\t{job['Command']['Name']}\t{job['Command'].get('ScriptLocation', '')}\t"
                       f"{latest}")
    except Exception as exc:
        _glue_error(exc)
    finally:
        console.close()


def _pages(call: Any, member: str, **params: Any) -> Any:
    token = None
    while True:
        answer = call(**params, **({"NextToken": token} if token else {}))
        yield answer[member]
        token = answer.get("NextToken")
        if not token:
            return


def _parse_args(args: tuple[str, ...]) -> dict[str, str]:
    parsed: dict[str, str] = {}
    for item in args:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise click.BadParameter(f"expected KEY=VALUE, got {item!r}", param_hint="--arg")
        parsed[key if key.startswith("--") else f"--{key}"] = value
    return parsed


def _wait(console: _JobsConsole, name: str, run_id: str, stream: TextIO) -> dict[str, Any]:
    """Poll the run (and its retries) to its end, showing its state and elapsed time; the last attempt."""
    import time

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
        if state in _ENDED_STATES:
            if live:
                stream.write("\n")
            retry = _next_attempt(console, name, run) if state in ("FAILED", "TIMEOUT") else None
            if retry is None:
                return run
            run_id, shown = retry, ""
            stream.write(f"retrying as {run_id}\n")
            continue
        time.sleep(0.5)


def _next_attempt(console: _JobsConsole, name: str, run: dict[str, Any]) -> str | None:
    import time

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


def _start_detached(console: _JobsConsole, name: str, request: dict[str, Any]) -> str:
    """Embedded start without --wait: a detached process starts the run and watches it to its end."""
    import json as json_
    import subprocess

    settings = console.settings
    console.close()
    proc = subprocess.Popen(
        [sys.executable, "-m", "glueball.jobs.runner", str(settings.home), settings.store_url, console.region,
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
@_console_options
def jobs_start(name: str, args: tuple[str, ...], timeout: int | None, wait: bool, endpoint: str,
               home: Path | None, store_url: str, region: str) -> None:
    """Start a run of the job NAME (StartJobRun) and print its run id."""
    request: dict[str, Any] = {"JobName": name}
    if args:
        request["Arguments"] = _parse_args(args)
    if timeout is not None:
        request["Timeout"] = timeout
    console = _JobsConsole(endpoint, home, store_url, region)
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
        _glue_error(exc)
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


def _print_run(console: _JobsConsole, name: str, run: dict[str, Any], stream: TextIO) -> None:
    extra = console.metrics(name, run["Id"])
    metrics = extra.get("Metrics") or {}
    lines = [f"{run['Id']}  attempt {run['Attempt']}  {run['JobRunState']}",
             f"  started {_when(run.get('StartedOn'))}  completed {_when(run.get('CompletedOn')) or '-'}  "
             f"execution time {run.get('ExecutionTime', 0)} s  DPU-seconds {run.get('DPUSeconds', '-')}"]
    if metrics:
        lines.append(f"  rows read {metrics.get('records_read', '-')}  written {metrics.get('records_written', '-')}"
                     f"  bytes read {_size(metrics.get('bytes_read'))}  written "
                     f"{_size(metrics.get('bytes_written'))}")
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
@_console_options
def jobs_runs(name: str, limit: int, endpoint: str, home: Path | None, store_url: str, region: str) -> None:
    """Show the runs of the job NAME, newest first, with their metrics."""
    console = _JobsConsole(endpoint, home, store_url, region)
    try:
        shown = 0
        for page in _pages(console.glue.get_job_runs, "JobRuns", JobName=name):
            for run in page:
                if shown == limit:
                    return
                _print_run(console, name, run, sys.stdout)
                shown += 1
        if not shown:
            click.echo(f"job {name} has no runs")
    except Exception as exc:
        _glue_error(exc)
    finally:
        console.close()


@jobs.command("stop")
@click.argument("name")
@click.argument("run_ids", nargs=-1, required=True)
@_console_options
def jobs_stop(name: str, run_ids: tuple[str, ...], endpoint: str, home: Path | None, store_url: str,
              region: str) -> None:
    """Stop runs of the job NAME (BatchStopJobRun); exit 1 if one could not be stopped."""
    console = _JobsConsole(endpoint, home, store_url, region)
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
        _glue_error(exc)
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
@click.option("--home", type=click.Path(file_okay=False, path_type=Path), default=None, help=_HOME_HELP)
def jobs_logs(run_id: str, home: Path | None) -> None:
    """Print the output and error logs of the job run RUN_ID, with their paths."""
    _show_logs(run_id, home)


@cli.command("logs")
@click.argument("run_id")
@click.option("--home", type=click.Path(file_okay=False, path_type=Path), default=None, help=_HOME_HELP)
def logs(run_id: str, home: Path | None) -> None:
    """Print the output and error logs of the job run RUN_ID, with their paths."""
    _show_logs(run_id, home)


import glueball.cli.workflows  # noqa: E402,F401  (registers `glueball workflows`)


def main() -> None:
    cli()


if __name__ == "__main__":
    main()
