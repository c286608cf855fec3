"""``glueball usage``: billed DPU-seconds and estimated cost, grouped by tag, resource, kind or user.

``glueball usage --group-by tag:team --since 30d`` prints a table (``--csv`` for CSV) of the runs of
the account and region the command reaches (a server's with ``--endpoint``, else the embedded one).
"""

from __future__ import annotations

import csv
import datetime as dt
import re
import sys
from pathlib import Path

import click

from glueball.cli.console import Console, console_options, glue_error

_AGO = re.compile(r"(\d+)([dhm])")


def _moment(text: str | None) -> dt.datetime | None:
    """``30d`` / ``12h`` / ``90m`` ago, or an ISO date or time (UTC)."""
    if not text:
        return None
    found = _AGO.fullmatch(text)
    if found is not None:
        unit = {"d": "days", "h": "hours", "m": "minutes"}[found.group(2)]
        return dt.datetime.now(dt.UTC) - dt.timedelta(**{unit: int(found.group(1))})
    try:
        moment = dt.datetime.fromisoformat(text)
    except ValueError as exc:
        raise click.BadParameter(f"{text!r} is neither 30d/12h/90m nor an ISO date") from exc
    return moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)


@click.command()
@click.option("--group-by", "group_by", multiple=True, default=("resource",), show_default=True,
              help="tag:<key>, resource, kind or user (repeatable).")
@click.option("--since", default=None, help="Runs started since: 30d, 12h, 90m or an ISO date.")
@click.option("--until", default=None, help="Runs started before: 30d, 12h, 90m or an ISO date.")
@click.option("--kind", "kinds", multiple=True,
              type=click.Choice(["JOB_RUN", "CRAWL", "DATA_QUALITY_RUN", "SESSION", "ATHENA_QUERY"]),
              help="Only these kinds of runs (repeatable).")
@click.option("--csv", "as_csv", is_flag=True, help="CSV instead of a table.")
@console_options
def usage(group_by: tuple[str, ...], since: str | None, until: str | None, kinds: tuple[str, ...], as_csv: bool,
          endpoint: str, home: Path | None, store_url: str, region: str) -> None:
    """Spend by tag, resource, kind or user: DPU-seconds as Glue bills them and their list price."""
    console = Console(endpoint, home, store_url, region)
    request: dict[str, object] = {"GroupBy": list(group_by), "Kinds": list(kinds)}
    for name, value in (("Since", _moment(since)), ("Until", _moment(until))):
        if value is not None:
            request[name] = value
    try:
        answer = console.internal.get_usage(**request)
    except Exception as exc:  # ClientError: said as the service said it
        glue_error(exc)
    finally:
        console.close()
    header = [*group_by, "runs", "dpu_seconds", "dpu_hours", f"estimated_cost_{answer['Currency'].lower()}"]
    rows = [[*(g["Keys"].get(k, "") for k in group_by), str(g["Runs"]), f"{g['DpuSeconds']:.2f}",
             f"{g['DpuSeconds'] / 3600:.4f}", f"{g['EstimatedCost']:.4f}"] for g in answer["Groups"]]
    if as_csv:
        writer = csv.writer(sys.stdout)
        writer.writerow(header)
        writer.writerows(rows)
        return
    if not rows:
        click.echo("no runs")
        return
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *rows, strict=True)]
    for line in (header, *rows):
        click.echo("  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip())
    click.echo(f"(list price {answer['PricePerDpuHour']} {answer['Currency']} per DPU-hour)")
