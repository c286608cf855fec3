"""``glueball crawl NAME``: run a crawler now, in this process, with its progress."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TextIO

import click

from glueball.config import Settings, default_home


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


@click.command()
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
    glue.reconcile()
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


