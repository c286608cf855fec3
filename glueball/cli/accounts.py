"""``glueball accounts``: the accounts of one installation, each with its own catalog and identities.

Works on the installation directly (its ``GLUEBALL_HOME`` or ``--store``), like an operator's
console: creating an account makes its root access key and prints it once.
"""

from __future__ import annotations

import re
from pathlib import Path

import click

from glueball.cli.console import HOME_HELP
from glueball.config import Settings, default_home


@click.group()
def accounts() -> None:
    """Accounts of this installation: list them, create one with its root access key."""


def _app(home: Path | None, store_url: str) -> object:
    from glueball.app import Glueball

    return Glueball(Settings(home=(home or default_home()).expanduser(), store_url=store_url))


@accounts.command("create")
@click.argument("account_id")
@click.option("--alias", default=None, help="A name for the account.")
@click.option("--home", type=click.Path(file_okay=False, path_type=Path), default=None, help=HOME_HELP)
@click.option("--store", "store_url", default="", envvar="GLUEBALL_STORE", help="Store URL.")
def accounts_create(account_id: str, alias: str | None, home: Path | None, store_url: str) -> None:
    """Create ACCOUNT_ID (12 digits) and print its root access key (shown once)."""
    from glueball.app import Glueball
    from glueball.iam.errors import EntityAlreadyExists

    if re.fullmatch(r"\d{12}", account_id) is None:
        raise click.BadParameter(f"{account_id!r} is not a 12-digit account id", param_hint="ACCOUNT_ID")
    app = _app(home, store_url)
    assert isinstance(app, Glueball)
    try:
        app.iam.create_account(account_id, alias)
        key = app.iam.create_access_key(account_id, None)
    except EntityAlreadyExists as exc:
        raise click.ClickException(exc.message) from exc
    finally:
        app.close()
    click.echo(f"account {account_id} created; its root access key (not shown again):")
    click.echo(f"aws_access_key_id = {key.access_key_id}")
    click.echo(f"aws_secret_access_key = {key.secret}")


@accounts.command("list")
@click.option("--home", type=click.Path(file_okay=False, path_type=Path), default=None, help=HOME_HELP)
@click.option("--store", "store_url", default="", envvar="GLUEBALL_STORE", help="Store URL.")
def accounts_list(home: Path | None, store_url: str) -> None:
    """List the accounts."""
    from glueball.app import Glueball

    app = _app(home, store_url)
    assert isinstance(app, Glueball)
    try:
        found = app.iam.accounts()
    finally:
        app.close()
    if not found:
        click.echo("no accounts")
    for account_id, alias in found:
        click.echo(f"{account_id}  {alias or ''}".rstrip())
