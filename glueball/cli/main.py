"""The ``glueball`` command: ``version``, ``server`` and ``run`` here; each other command group in its
own module (:mod:`.crawl`, :mod:`.jobs`, :mod:`.workflows`) over the shared :mod:`.console`."""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

import click

from glueball import __version__
from glueball.config import Settings, default_home, log_to_home, writable_home


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def cli() -> None:
    """glueball: a self-hosted AWS Glue on Apache Spark."""


@cli.command()
def version() -> None:
    """Print glueball's version and the Glue API version it serves."""
    from glueball.edge.model import service_model

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
@click.option("--auth", type=click.Choice(["off", "iam"]), default="off", show_default=True, envvar="GLUEBALL_AUTH",
              help="off: every access key acts as its account's root, signatures unchecked. iam: SigV4 verified, "
                   "IAM and STS served and enforced; the first start creates the root access key.")
@click.option("--allow-local-scripts", is_flag=True, default=False,
              help="Let jobs name scripts and --extra-py-files by local path: code that runs as this server's user. "
                   "Without it scripts come from the object store (s3://).")
@click.option("--subnet-vpc", "subnet_vpcs", multiple=True, metavar="SUBNET=VPC",
              help="The VPC a subnet belongs to (repeatable): requests using connections in that subnet carry "
                   "glue:VpcIds for IAM conditions. glueball has no VPCs of its own.")
@click.option("--s3-domain", "s3_domains", multiple=True, metavar="DOMAIN",
              help="A host name whose subdomains are S3 buckets (virtual-host addressing, bucket.DOMAIN); "
                   "localhost always is (repeatable).")
@click.option("--object-store", "object_store_url", default="", envvar="GLUEBALL_OBJECT_STORE",
              metavar="s3://KEY:SECRET@HOST:PORT",
              help="Serve the S3 API from another S3-compatible store instead of GLUEBALL_HOME/s3 "
                   "(?scheme=http for plain HTTP, &region=...). Spark then needs hadoop-aws: see docs/objects.md.")
@click.option("--warm-drivers", default=1, show_default=True, type=click.IntRange(0, 16),
              envvar="GLUEBALL_WARM_DRIVERS",
              help="Spark drivers kept started ahead, per shape of run (Python, Spark settings), so that a job run or "
                   "session starts in a moment; each holds a JVM (0: none, every run starts its own).")
@click.option("--clock-file", type=click.Path(dir_okay=False), default=None, envvar="GLUEBALL_CLOCK_FILE",
              help="Decide schedules by the epoch seconds written in this file instead of the wall clock "
                   "(tests and rehearsals).")
@click.option("--hms-port", type=click.IntRange(1, 65535), default=None, envvar="GLUEBALL_HMS_PORT",
              help="Also serve the Data Catalog as a Hive metastore (Thrift) on this port of --host, for other "
                   "engines (Trino, Flink, Hive); it acts as the default account (needs --auth off).")
@click.option("--endpoint", "public_endpoint", default="", envvar="GLUEBALL_PUBLIC_ENDPOINT", metavar="URL",
              help="The URL runs reach this installation by (their Glue, S3 and STS clients, S3A executors): a load "
                   "balancer in front of several servers, or an address other machines can reach. Default: "
                   "http://HOST:PORT of this server.")
def server(host: str, port: int, home: Path | None, store_url: str, region: str,
           access_keys: tuple[str, ...], workers: int, scheduler: bool, auth: str, allow_local_scripts: bool,
           subnet_vpcs: tuple[str, ...], s3_domains: tuple[str, ...], object_store_url: str, warm_drivers: int,
           clock_file: str | None, hms_port: int | None, public_endpoint: str) -> None:
    """Serve the Glue web API (AWS JSON 1.1), IAM and STS (query protocol) and S3 (REST-XML) on one port."""
    from glueball.edge.sigv4 import AccountDirectory, parse_key_mappings
    from glueball.server import serve

    own_host = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host
    own_host = f"[{own_host}]" if ":" in own_host else own_host
    vpc_of: dict[str, str] = {}
    for mapping in subnet_vpcs:
        subnet, sep, vpc = mapping.partition("=")
        if not sep or not subnet or not vpc:
            raise click.BadParameter(f"{mapping!r} is not SUBNET=VPC", param_hint="--subnet-vpc")
        vpc_of[subnet] = vpc
    settings = Settings(home=(home or default_home()).expanduser(), store_url=store_url, region=region,
                        endpoint=public_endpoint.rstrip("/") or f"http://{own_host}:{port}", auth=auth,
                        subnet_vpcs=vpc_of,
                        allow_local_scripts=allow_local_scripts, s3_domains=tuple(s3_domains),
                        object_store_url=object_store_url, warm_drivers=warm_drivers)
    if public_endpoint and not public_endpoint.startswith(("http://", "https://")):
        raise click.BadParameter(f"{public_endpoint!r} is not an http:// or https:// URL", param_hint="--endpoint")
    if object_store_url:
        from glueball.objects.remote import RemoteStore

        try:
            RemoteStore.parse(object_store_url)
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--object-store") from exc
    mappings = list(access_keys) + [m for m in os.environ.get("GLUEBALL_ACCESS_KEYS", "").split(",") if m]
    try:
        directory = AccountDirectory(parse_key_mappings(mappings))
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--access-key") from exc
    if clock_file:
        os.environ["GLUEBALL_CLOCK_FILE"] = clock_file  # the scheduler's clock, in every worker process
    if hms_port is not None and auth == "iam":
        raise click.BadParameter("the Hive metastore's Thrift protocol carries no credentials, so whoever reaches "
                                 "the port would act without IAM: --hms-port needs --auth off", param_hint="--hms-port")
    if hms_port is not None and object_store_url:
        raise click.BadParameter("a managed table's data is deleted and moved in the local object store: --hms-port "
                                 "cannot be used with --object-store", param_hint="--hms-port")
    glue = _installation(settings, directory)
    log_to_home(settings)
    if hms_port is not None:
        endpoint = glue.start_hive_metastore(host, hms_port)
        click.echo(f"serving the Data Catalog as a Hive metastore on {endpoint.uri}", err=True)
    if auth == "iam":
        created = glue.ensure_root_key()
        if created is not None:  # shown once; the file keeps it (0600)
            click.echo(f"created the root access key of account {glue.accounts.default_account}:\n"
                       f"  aws_access_key_id     = {created[0]}\n  aws_secret_access_key = {created[1]}\n"
                       f"saved to {settings.home / 'credentials'} (profile glueball); it is not shown again",
                       err=True)
    if host not in ("127.0.0.1", "localhost", "::1"):
        click.echo(f"listening on {host}: reachable from other machines"
                   + ("" if auth == "iam" else " with --auth off: anyone who reaches the port can do anything"),
                   err=True)
    logging.getLogger("glueball").info("serving on %s:%s with %s worker(s), store %s", host, port, workers,
                                       glue.store.engine.url.render_as_string())
    click.echo(f"glueball {__version__} serving the Glue API (and IAM, STS, S3) on http://{host}:{port}/ "
               f"(home {settings.home}, store {glue.store.engine.url.render_as_string()}, {workers} worker(s), "
               f"auth {auth})", err=True)
    serve(glue, host, port, workers, scheduler)


def _installation(settings: Settings, directory: Any) -> Any:
    """The server's installation, or a one-line error naming what it cannot use (its home, its store)."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import OperationalError

    from glueball.app import Glueball

    try:
        writable_home(settings.home)
    except OSError as exc:
        raise click.ClickException(f"cannot start: GLUEBALL_HOME {settings.home} is not writable "
                                   f"({exc.strerror or exc}); it holds the database, the objects and the logs: "
                                   "give a writable --home") from None
    try:
        return Glueball(settings, directory)
    except OperationalError as exc:
        store = make_url(settings.database_url).render_as_string(hide_password=True)
        raise click.ClickException(f"cannot start: the store {store} cannot be opened ({exc.orig})") from None


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
    from glueball.runtime.scriptrunner import parse_run_args
    from glueball.runtime.scriptrunner import run as run_script

    try:
        plan = parse_run_args(script, list(script_args))
    except ValueError as exc:
        raise click.UsageError(str(exc)) from exc
    raise SystemExit(run_script(plan))


from glueball.cli.accounts import accounts  # noqa: E402
from glueball.cli.crawl import crawl  # noqa: E402
from glueball.cli.jars import jars  # noqa: E402
from glueball.cli.jobs import jobs, logs  # noqa: E402
from glueball.cli.sessions import sessions  # noqa: E402
from glueball.cli.usage import usage  # noqa: E402
from glueball.cli.workflows import workflows  # noqa: E402

for command in (accounts, crawl, jars, jobs, logs, sessions, usage, workflows):
    cli.add_command(command)


def main() -> None:
    cli()


if __name__ == "__main__":
    main()
