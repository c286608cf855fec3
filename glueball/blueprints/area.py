"""The blueprints area: blueprints (a ZIP with blueprint.cfg and a layout script) and their runs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from glueball.api.operations import Operations
from glueball.store.engine import Store

OPERATIONS = Operations("glue")


@dataclass(frozen=True, eq=False)
class BlueprintNeeds:
    """What blueprint handlers are given.

    Attributes:
        store: the store.
        home: ``GLUEBALL_HOME`` (blueprint archives are kept under ``blueprints/``, run folders under
            ``logs/blueprints/``).
        read_object: an ``s3://`` URI -> the object's bytes (raises ``FileNotFoundError`` when there is none).
        glue_client: (scope, access key, role ARN, run id) -> the Glue client a run creates its entities with (as
            its role with ``--auth iam``).
        layout_env: (scope, access key, role ARN, run id) -> the environment of the process that runs a layout
            script (its boto3 clients reach this installation).
        serves_runs: whether this process serves runs (and settles those a stopped process left).
    """

    store: Store
    home: Path
    read_object: Callable[[str], bytes]
    glue_client: Callable[[Any, str | None, str, str], Any]
    layout_env: Callable[[Any, str | None, str, str], dict[str, str]]
    serves_runs: Callable[[], bool]
