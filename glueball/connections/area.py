"""The connections area: Glue's connection operations and what they need."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from glueball.api.operations import Operations
from glueball.store.engine import Store

OPERATIONS = Operations("glue")

# ConnectionProperties keys outside the model's ConnectionPropertyKey enum are accepted, as AWS Glue
# accepts them: the enum is incomplete (AWS accepts ``SparkProperties``, which is not in it, for the
# connection types it added later; terraform-provider-aws PR #37731, from the console's own requests).
OPEN_ENUMS = frozenset({"ConnectionPropertyKey"})


@dataclass(frozen=True, eq=False)
class ConnectionNeeds:
    """What connection handlers are given: the store, and the JDBC driver jars TestConnection connects with."""

    store: Store
    jdbc_jars: Callable[[], list[str]] = field(default=list)
