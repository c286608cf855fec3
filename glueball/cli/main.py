"""The ``glueball`` command."""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path
from typing import TextIO

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
def server(host: str, port: int, home: Path | None, store_url: str, region: str,
           access_keys: tuple[str, ...], workers: int) -> None:
    """Serve the Glue web API at POST / (AWS JSON 1.1)."""
    from glueball.api.identity import AccountDirectory, parse_key_mappings
    from glueball.api.server import serve
    from glueball.app import Glueball

    settings = Settings(home=(home or default_home()).expanduser(), store_url=store_url, region=region)
    mappings = list(access_keys) + [m for m in os.environ.get("GLUEBALL_ACCESS_KEYS", "").split(",") if m]
    try:
        directory = AccountDirectory(parse_key_mappings(mappings))
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--access-key") from exc
    glue = Glueball(settings, directory)
    log_to_home(settings)
    logging.getLogger("glueball").info("serving on %s:%s with %s worker(s), store %s", host, port, workers,
                                       glue.store.engine.url.render_as_string())
    click.echo(f"glueball {__version__} serving the Glue API on http://{host}:{port}/ "
               f"(home {settings.home}, store {glue.store.engine.url.render_as_string()}, {workers} worker(s))",
               err=True)
    serve(glue, host, port, workers)


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


def main() -> None:
    cli()


if __name__ == "__main__":
    main()
