"""The logs area: CloudWatch Logs (``Logs_20140328.*``) over the logs runs write, and CloudWatch metrics
(``GraniteServiceVersion20100801.*`` / the query protocol) of runs and of scripts' own PutMetricData."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from glueball.api.operations import Operations
from glueball.store.engine import Store
from glueball.store.scoped import Scope

OPERATIONS = Operations("logs")
METRIC_OPERATIONS = Operations("cloudwatch")


def _nothing(scope: Scope) -> None:
    return None


@dataclass(frozen=True)
class LogsNeeds:
    """What the handlers need: the store, and ``sync(scope)``, which brings what runs wrote so far into the
    store before a read (so a read sees every line written before it)."""

    store: Store
    sync: Callable[[Scope], None] = field(default=_nothing)
    clock: Callable[[], float] = time.time
