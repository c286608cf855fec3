"""``glueball jars``: the JVM artifacts of glueball's pinned list (glueball/jvm/pom.xml) in this machine's cache.

``glueball jars fetch kafka`` resolves one feature with Maven (``--all`` every one: what ``make jars`` runs);
``glueball jars list`` shows each feature, whether it is cached, its jars and their size.
"""

from __future__ import annotations

import sys

import click

from glueball import jvm


@click.group()
def jars() -> None:
    """JVM connectors (Kafka, MSK IAM, hadoop-aws, ...) from Maven Central, cached per machine."""


@jars.command()
@click.argument("features", nargs=-1)
@click.option("--all", "every", is_flag=True, help="Every feature of the pinned list.")
def fetch(features: tuple[str, ...], every: bool) -> None:
    """Resolve FEATURES with Maven into the cache (nothing is downloaded twice)."""
    names = list(jvm.FEATURES) if every else list(features)
    if not names:
        raise click.UsageError(f"name a feature ({', '.join(jvm.FEATURES)}) or give --all")
    failed = False
    for name in names:
        try:
            found = jvm.fetch(name)
        except jvm.JarsUnavailable as exc:
            click.echo(f"{name}: {exc}", err=True)
            failed = True
            continue
        size = sum(p.stat().st_size for p in found)
        click.echo(f"{name}: {len(found)} jars, {size / 1e6:.1f} MB in {found[0].parent if found else '-'}")
    if failed:
        sys.exit(1)


@jars.command(name="list")
def list_features() -> None:
    """Each feature, what needs it, and whether its jars are cached."""
    for name, spec in jvm.FEATURES.items():
        found = jvm.available(name)
        state = f"{len(found)} jars, {sum(p.stat().st_size for p in found) / 1e6:.1f} MB" if found is not None \
            else "not fetched"
        click.echo(f"{name:<14} {state:<22} {spec.needed_by}")
        for path in found or []:
            click.echo(f"    {path.name}")
