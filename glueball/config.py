"""Settings of one glueball installation (``GLUEBALL_HOME``)."""

from __future__ import annotations

import logging
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_ACCOUNT_ID = "123456789012"
DEFAULT_REGION = "us-east-1"


def default_home() -> Path:
    return Path(os.environ.get("GLUEBALL_HOME", "~/.glueball")).expanduser()


@dataclass(frozen=True)
class Settings:
    """Where an installation keeps its state and which store it uses.

    Attributes:
        home: the ``GLUEBALL_HOME`` directory (database, object store, logs).
        store_url: SQLAlchemy URL of the catalog store (default ``$GLUEBALL_STORE``); SQLite under
            ``home`` when empty.
        region: the region assumed for requests that carry no SigV4 credential scope.
        endpoint: the URL of this installation's own server (``glueball server`` sets it), given to the
            job runs it launches as ``GLUEBALL_ENDPOINT``; empty in embedded use.
        auth: ``off`` (every access key acts as its account's root, signatures unchecked: the embedded
            default) or ``iam`` (SigV4 verified, identity-based policies enforced).
        allow_local_scripts: whether jobs may name scripts and ``--extra-py-files`` by local path (code
            that runs as the server's user). Embedded use allows it; ``glueball server`` only with
            ``--allow-local-scripts``: otherwise scripts come from the object store (``s3://``).
        subnet_vpcs: the VPC of each subnet connections name (glueball has no VPCs of its own): gives
            ``glue:VpcIds`` to requests that use those connections.
        s3_domains: host names whose subdomains are S3 buckets (virtual-host-style addressing:
            ``bucket.localhost``); ``localhost`` always is.
        object_store_url: empty (the S3 API serves ``home/s3``) or ``s3://KEY:SECRET@host:port`` (the S3
            API forwards to that S3-compatible store: :mod:`glueball.objects.remote`).
    """

    home: Path = field(default_factory=default_home)
    store_url: str = field(default_factory=lambda: os.environ.get("GLUEBALL_STORE", ""))
    region: str = DEFAULT_REGION
    endpoint: str = ""
    auth: str = "off"
    subnet_vpcs: dict[str, str] = field(default_factory=dict)  # subnet id -> the VPC it belongs to (--subnet-vpc)
    allow_local_scripts: bool = True  # jobs may run files of the server's machine (glueball server: opt-in)
    s3_domains: tuple[str, ...] = ()
    object_store_url: str = ""  # another S3-compatible store behind the S3 API (glueball.objects.remote)
    warm_drivers: int = 0  # idle warm Spark drivers kept per shape (glueball server: --warm-drivers, default 1)

    @property
    def database_url(self) -> str:
        return self.store_url or f"sqlite:///{self.home / 'glueball.db'}"

    @property
    def object_store(self) -> Path:
        return self.home / "s3"

    @property
    def object_work(self) -> Path:
        """What the S3 API keeps besides objects (uploads in progress, the spool): beside the store, on its
        file system, so that an upload becomes an object in one rename."""
        return self.home / "s3-work"

    @property
    def logs(self) -> Path:
        return self.home / "logs"

    def ensure_dirs(self) -> None:
        for path in (self.home, self.object_store, self.logs):
            path.mkdir(parents=True, exist_ok=True)


def writable_home(home: Path) -> None:
    """Make sure ``home`` exists and can be written: the database, the object store and the logs live there.

    Raises:
        OSError: it cannot be created or written (a read-only file system, no permission).
    """
    home.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryFile(dir=home, prefix=".writable-"):
        pass


def log_to_home(settings: Settings) -> None:
    """Send glueball's log records (INFO and up) to ``$GLUEBALL_HOME/logs/server.log``."""
    settings.logs.mkdir(parents=True, exist_ok=True)
    handler = logging.FileHandler(settings.logs / "server.log")
    handler.setFormatter(logging.Formatter("%(asctime)s %(process)d %(levelname)s %(name)s: %(message)s"))
    logger = logging.getLogger("glueball")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
