"""``glueball server``: one installation (:class:`glueball.app.Glueball`) served over HTTP by uvicorn, in one
process or in ``--workers`` processes that each open the same store.

A serving process settles what stopped servers left running (and does so again every takeover interval), starts
its warm drivers, reads runs' files into CloudWatch Logs every second and, with the scheduler, fires schedules
(decided by compare-and-swap in the store, so several processes or servers fire each schedule once).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from glueball.app import Glueball
from glueball.config import Settings
from glueball.edge.sigv4 import AccountDirectory
from glueball.supervise.supervisor import every, takeover_seconds

_SETTINGS_ENV = "GLUEBALL_SERVER_SETTINGS"


def _start_serving(glue: Glueball, scheduler: bool) -> None:
    """What a serving process runs beside its requests."""
    glue.reconcile()
    every(takeover_seconds(), glue.reconcile, "reconcile")  # runs of servers that stopped meanwhile
    glue.start_warm_drivers()
    glue.run_logs.start()
    if scheduler:
        glue.start_scheduler()


def create_app() -> Any:
    """The ASGI application of one worker process (``--workers``), configured by its parent."""
    from glueball.config import log_to_home

    config = json.loads(os.environ[_SETTINGS_ENV])
    settings = Settings(home=Path(config["home"]), store_url=config["store_url"], region=config["region"],
                        endpoint=config.get("endpoint", ""), auth=config.get("auth", "off"),
                        subnet_vpcs=config.get("subnet_vpcs", {}),
                        allow_local_scripts=config.get("allow_local_scripts", False),
                        s3_domains=tuple(config.get("s3_domains", ())),
                        object_store_url=config.get("object_store_url", ""),
                        warm_drivers=int(config.get("warm_drivers", 0)))
    log_to_home(settings)
    glue = Glueball(settings, AccountDirectory(config["access_keys"]), migrate=False)
    # every worker schedules: fires are decided by compare-and-swap in the store
    _start_serving(glue, bool(config.get("scheduler")))
    return glue.asgi()


def serve(glue: Glueball, host: str, port: int, workers: int = 1, scheduler: bool = True) -> None:
    """Serve ``glue`` on ``host:port``; with ``workers`` > 1, in that many processes.

    With ``scheduler``, each serving process runs the scheduler (glueball.workflows.scheduler).
    """
    import uvicorn

    from glueball.edge.asgi import KEEP_ALIVE_SECONDS

    # the event loop is asyncio's, whether or not uvloop happens to be installed (the loop tested is the loop run)
    options: dict[str, Any] = {"host": host, "port": port, "log_level": "warning", "lifespan": "on",
                               "http": "httptools", "loop": "asyncio", "access_log": False,
                               "timeout_keep_alive": KEEP_ALIVE_SECONDS}
    if workers <= 1:
        _start_serving(glue, scheduler)
        uvicorn.run(glue.asgi(), **options)
        return
    os.environ[_SETTINGS_ENV] = json.dumps({
        "home": str(glue.settings.home), "store_url": glue.settings.store_url, "region": glue.settings.region,
        "endpoint": glue.settings.endpoint, "auth": glue.settings.auth, "subnet_vpcs": glue.settings.subnet_vpcs,
        "allow_local_scripts": glue.settings.allow_local_scripts, "s3_domains": list(glue.settings.s3_domains),
        "object_store_url": glue.settings.object_store_url, "warm_drivers": glue.settings.warm_drivers,
        "access_keys": glue.accounts.keys, "scheduler": scheduler,
    })
    glue.close()  # the workers open their own store; the schema is already migrated
    uvicorn.run("glueball.server:create_app", factory=True, workers=workers, **options)
