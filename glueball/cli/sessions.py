"""``glueball sessions list|show|stop``: the interactive sessions of a server (``--endpoint``) or the embedded
installation, as ``aws glue list-sessions`` / ``get-session`` / ``stop-session`` give them."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import click

from glueball.cli.console import Console, console_options, glue_error


def _when(value: Any) -> str:
    if isinstance(value, dt.datetime):
        return value.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M:%S")
    return "-" if value is None else str(value)


@click.group()
def sessions() -> None:
    """Interactive sessions: list, show one with its statements, stop."""


@sessions.command("list")
@click.option("--tag", "tags", multiple=True, metavar="KEY=VALUE", help="Only sessions with this tag (repeatable).")
@console_options
def list_sessions(tags: tuple[str, ...], endpoint: str, home: Path | None, store_url: str, region: str) -> None:
    """One line per session: id, status, created, worker type x workers, DPU-seconds."""
    wanted: dict[str, str] = {}
    for tag in tags:
        key, sep, value = tag.partition("=")
        if not sep or not key:
            raise click.BadParameter(f"{tag!r} is not KEY=VALUE", param_hint="--tag")
        wanted[key] = value
    console = Console(endpoint, home, store_url, region)
    try:
        found: list[dict[str, Any]] = []
        request: dict[str, Any] = {"Tags": wanted} if wanted else {}
        while True:  # botocore has no paginator for ListSessions
            page = console.glue.list_sessions(**request)
            found += page["Sessions"]
            if not page.get("NextToken"):
                break
            request["NextToken"] = page["NextToken"]
    except Exception as exc:  # ClientError: said as the service said it
        glue_error(exc)
    finally:
        console.close()
    for session in found:
        capacity = (f"{session.get('WorkerType')}x{session.get('NumberOfWorkers')}" if session.get("WorkerType")
                    else f"{session.get('MaxCapacity')} DPU")
        click.echo(f"{session['Id']}\t{session['Status']}\t{_when(session.get('CreatedOn'))}\t{capacity}\t"
                   f"{session.get('DPUSeconds', 0)}")


@sessions.command("show")
@click.argument("session_id")
@console_options
def show_session(session_id: str, endpoint: str, home: Path | None, store_url: str, region: str) -> None:
    """The session and each statement: its state and what it printed (or its error)."""
    console = Console(endpoint, home, store_url, region)
    try:
        session = console.glue.get_session(Id=session_id)["Session"]
        statements = console.glue.list_statements(SessionId=session_id)["Statements"]
    except Exception as exc:  # ClientError: said as the service said it
        glue_error(exc)
    finally:
        console.close()
    created = _when(session.get("CreatedOn"))
    click.echo(f"{session['Id']}  {session['Status']}  created {created}  role {session['Role']}")
    if session.get("ErrorMessage"):
        click.echo(f"  {session['ErrorMessage']}")
    for statement in statements:
        output = statement.get("Output") or {}
        first = statement["Code"].splitlines()[0] if statement["Code"] else ""
        click.echo(f"[{statement['Id']}] {statement['State']}: {first}")
        if output.get("Status") == "error":
            click.echo(f"    {output.get('ErrorName')}: {output.get('ErrorValue')}")
        elif (output.get("Data") or {}).get("TextPlain"):
            for line in output["Data"]["TextPlain"].splitlines():
                click.echo(f"    {line}")


@sessions.command("stop")
@click.argument("session_id")
@console_options
def stop_session(session_id: str, endpoint: str, home: Path | None, store_url: str, region: str) -> None:
    """Stop a session (its driver ends; the session becomes STOPPED)."""
    console = Console(endpoint, home, store_url, region)
    try:
        console.glue.stop_session(Id=session_id)
    except Exception as exc:  # ClientError: said as the service said it
        glue_error(exc)
    finally:
        console.close()
    click.echo(f"stopping {session_id}")
