"""Whether a server is ready to serve (``GET /ready``): its store answers at this code's schema, its object store
answers, and it has taken over what stopped processes left (reconciliation ran).

``GET /health`` only says the process answers HTTP; ``/ready`` is what a load balancer or an orchestrator's
readiness probe should ask before sending it requests (``docs/deployment.md``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import text

from glueball.objects.access import Objects, RemoteObjects
from glueball.store.engine import Store
from glueball.store.migrate import schema_current


def readiness(store: Store, objects: Objects, reconciled: Callable[[], bool]) -> tuple[bool, dict[str, Any]]:
    """``(ready, checks)``: each check ``{"ok": bool, ...}`` with what it found or why it failed."""
    checks: dict[str, Any] = {}
    try:
        with store.engine.connect() as connection:
            connection.execute(text("SELECT 1"))
        current, revision = schema_current(store.engine)
        checks["store"] = {"ok": True, "backend": store.engine.dialect.name}
        checks["migrations"] = {"ok": current, "revision": revision}
    except Exception as exc:  # noqa: BLE001 - any failure to reach the store makes the server not ready
        checks["store"] = {"ok": False, "error": f"{type(exc).__name__}: {exc}"[:500]}
        checks["migrations"] = {"ok": False, "error": "the store is unreachable"}
    try:
        if isinstance(objects, RemoteObjects):
            objects.client.list_buckets()
        checks["objects"] = {"ok": True, "kind": "remote" if isinstance(objects, RemoteObjects) else "local"}
    except Exception as exc:  # noqa: BLE001 - an unreachable object store makes the server not ready
        checks["objects"] = {"ok": False, "error": f"{type(exc).__name__}: {exc}"[:500]}
    checks["runs"] = {"ok": reconciled()}
    return all(check["ok"] for check in checks.values()), checks
