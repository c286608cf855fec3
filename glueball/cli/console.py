"""What the ``glueball`` command groups share: the console over a server or the embedded catalog.

:class:`Console` holds the Glue (and glueball) clients of one command: a server's when
``--endpoint`` is given, else real boto3 clients answered in-process by an embedded installation.
:func:`console_options` adds the options that choose it; :func:`items` walks a listing with the
client's boto3 paginator.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NoReturn

import click

from glueball.config import Settings, default_home

HOME_HELP = "GLUEBALL_HOME: database, object store, logs [default: $GLUEBALL_HOME or ~/.glueball]."
ENDED_STATES = ("STOPPED", "SUCCEEDED", "FAILED", "TIMEOUT", "ERROR", "EXPIRED")


class Console:
    """The Glue calls of a command: a server's (``--endpoint``) or the embedded catalog's."""

    def __init__(self, endpoint: str, home: Path | None, store_url: str, region: str) -> None:
        self.endpoint = endpoint
        self.region = region
        self.settings = Settings(home=(home or default_home()).expanduser(), store_url=store_url, region=region)
        self.app: Any = None
        if endpoint:
            import botocore.config

            from glueball.runtime.client import boto3_session

            session = boto3_session()
            options: dict[str, Any] = {
                "endpoint_url": endpoint, "region_name": region,
                "aws_access_key_id": os.environ.get("AWS_ACCESS_KEY_ID", "glueball"),
                "aws_secret_access_key": os.environ.get("AWS_SECRET_ACCESS_KEY", "glueball"),
                "config": botocore.config.Config(retries={"max_attempts": 2})}
            self.glue: Any = session.client("glue", **options)
            self.internal: Any = session.client("glueball", **options)
        else:
            from glueball.app import Glueball, embedded_client

            self.app = Glueball(self.settings)
            self.app.reconcile()
            self.glue = embedded_client(self.app, region=region)
            self.internal = embedded_client(self.app, "glueball", region=region)

    def metrics(self, name: str, run_id: str) -> dict[str, Any]:
        """glueball's ``GetJobRunMetrics`` of a run ({} if the server does not answer it)."""
        from botocore.exceptions import ClientError

        try:
            answer: dict[str, Any] = self.internal.get_job_run_metrics(JobName=name, RunId=run_id)
        except ClientError:
            return {}
        answer.pop("ResponseMetadata", None)
        return answer

    def close(self) -> None:
        if self.app is not None:
            self.app.close()


def console_options(command: Any) -> Any:
    command = click.option("--region", default="us-east-1", show_default=True, help="Region of the jobs.")(command)
    command = click.option("--store", "store_url", default="", envvar="GLUEBALL_STORE",
                           help="Store URL of the embedded catalog [default: SQLite under the home].")(command)
    command = click.option("--home", type=click.Path(file_okay=False, path_type=Path), default=None,
                           help=HOME_HELP)(command)
    command = click.option("--endpoint", default="", envvar="GLUEBALL_ENDPOINT",
                           help="A glueball server's URL, e.g. http://127.0.0.1:9400 [default: the embedded "
                                "catalog].")(command)
    return command


def glue_error(exc: Exception) -> NoReturn:
    from botocore.exceptions import ClientError

    if isinstance(exc, ClientError):
        error = exc.response.get("Error", {})
        click.echo(f"glueball jobs: {error.get('Code')}: {error.get('Message')}", err=True)
        raise SystemExit(1) from exc
    raise exc


def when(value: Any) -> str:
    return value.strftime("%Y-%m-%d %H:%M:%S") if hasattr(value, "strftime") else str(value or "")


def size(value: Any) -> str:
    if value is None:
        return "-"
    number = float(value)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if number < 1024 or unit == "GiB":
            return f"{number:.0f} {unit}" if unit == "B" else f"{number:.1f} {unit}"
        number /= 1024
    return str(value)




def items(client: Any, operation: str, member: str, **params: Any) -> Iterator[Any]:
    """Every item of a paginated listing (``items(glue, "get_jobs", "Jobs")``), page by page."""
    for page in client.get_paginator(operation).paginate(**params):
        yield from page.get(member, [])
