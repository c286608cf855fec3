"""DataBrew recipes: the recipe engine on Spark and the DataBrew recipe API served beside Glue.

The engine is :mod:`glueball.recipes.recipe_engine` (``apply_recipe``, ``recipe_steps``), also
reachable here; it is imported on first use, so the API (which checks steps with
:mod:`glueball.recipes.steps`) does not load Spark.
"""

from __future__ import annotations

from typing import Any

__all__ = ["apply_recipe", "recipe_steps"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from glueball.recipes import recipe_engine

        return getattr(recipe_engine, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
