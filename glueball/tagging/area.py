"""The tagging area: TagResource, UntagResource and GetTags over every taggable resource type."""

from __future__ import annotations

from dataclasses import dataclass

from glueball.api.operations import Operations
from glueball.store.engine import Store

OPERATIONS = Operations("glue")


@dataclass(frozen=True, eq=False)
class TaggingNeeds:
    """What tagging handlers are given: the store."""

    store: Store
