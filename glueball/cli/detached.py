"""``python -m glueball.cli.detached HOME STORE REGION NAME REQUEST_JSON``: run one job, detached.

``glueball jobs start`` without ``--wait`` on the embedded catalog starts this in a session of
its own: it starts the run, prints ``{"JobRunId": ...}`` (or ``{"Code": ..., "Message": ...}``)
as one line, and then watches the run and its retries to their end, as a server would.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from glueball.app import Glueball
from glueball.config import Settings, log_to_home
from glueball.errors import GlueError
from glueball.store.scoped import Scope


def main(argv: list[str] | None = None) -> int:
    home, store_url, region, name, request = (argv if argv is not None else sys.argv[1:])[:5]
    settings = Settings(home=Path(home), store_url=store_url, region=region)
    app = Glueball(settings)
    app.reconcile()
    log_to_home(settings)
    try:
        run_id = app.jobs.start(Scope(app.accounts.default_account, region), None, name, json.loads(request))
    except GlueError as err:
        print(json.dumps({"Code": err.code, "Message": err.message}), flush=True)
        app.close()
        return 1
    print(json.dumps({"JobRunId": run_id}), flush=True)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    app.jobs.wait_idle()
    app.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
