"""The data quality area: rulesets, results, evaluation and recommendation runs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from glueball.api.operations import Operations
from glueball.config import Settings
from glueball.store.engine import Store

OPERATIONS = Operations("glue")
INTERNAL_OPERATIONS = Operations("glueball")


@dataclass(frozen=True, eq=False)
class DataQualityNeeds:
    """What data quality handlers are given.

    Attributes:
        store: the store.
        settings: the installation (run directories under its logs).
        check_result: validates a published result against Glue's ``DataQualityResult`` shape
            (the edge's model validator), raising the edge's validation error.
        serves_runs: whether this process serves runs (and so settles those a stopped process
            left); False in an embedded installation inside a driver.
        run_identity: with ``--auth iam``, (scope, role, run id, seconds) -> the temporary credentials a
            run's driver acts with (raises the launcher's LaunchError when it cannot act as its role).
    """

    store: Store
    settings: Settings
    check_result: Callable[[Any], None]
    serves_runs: Callable[[], bool]
    run_identity: Callable[[Any, str, str, float], tuple[str, str, str]] | None = None
