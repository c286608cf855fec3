"""The DataBrew recipes area: the recipe operations of the ``databrew`` service (REST-JSON)."""

from __future__ import annotations

from dataclasses import dataclass, field

from glueball.api.operations import Operations
from glueball.recipes.service import Quotas
from glueball.store.engine import Store

OPERATIONS = Operations("databrew")


@dataclass(frozen=True, eq=False)
class RecipeNeeds:
    """What the recipe handlers are given: the store, and the quotas they enforce."""

    store: Store
    quotas: Quotas = field(default_factory=Quotas)
