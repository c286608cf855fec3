"""The recipe engine: DataBrew recipe steps run on a Spark DataFrame.

:func:`apply_recipe` checks every step first (:func:`glueball.recipes.steps.check_steps`: a
recipe with a bad step runs no step), then applies them in order. A step's
``ConditionExpressions`` are evaluated on the rows before the step and limit it as its kind says
(:class:`glueball.recipes.steps.Conditions`). Errors name the step (1-based), its operation and
the parameter: ``Recipe step 3 (REPLACE_TEXT): parameter 'sourceColumn' names no column of the
data: 'nmae' (columns: id, name)``.

:func:`recipe_steps` fetches a published recipe's steps through the DataBrew API of the
installation the process belongs to (the runtime's client: in-process for an embedded
installation, the server of ``GLUEBALL_ENDPOINT`` for a driver the server launched — with the
run's credentials when identity is enforced).
"""

from __future__ import annotations

from typing import Any

from botocore.exceptions import ClientError
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from glueball.recipes import date_actions, frame_actions, text_actions, value_actions
from glueball.recipes.recipe_args import IMPLEMENTATIONS, ROW, Args, quoted
from glueball.recipes.recipe_conditions import predicate
from glueball.recipes.steps import SPECS, Conditions, RecipeStepError, Step, check_steps
from glueball.runtime.client import service_client

__all__ = ["RecipeReferenceError", "RecipeStepError", "apply_recipe", "recipe_steps"]

# the action modules register their implementations when imported
ACTION_MODULES = (date_actions, frame_actions, text_actions, value_actions)
_KEEP = "__glueball_recipe_keep"
# steps whose window moves rows between partitions: the result is put back in the rows' order at the end
_REORDERING = frozenset({"REMOVE_DUPLICATES", "DELETE_DUPLICATE_ROWS", "SORT"})


class RecipeReferenceError(LookupError):
    """A recipe (or version of it) that cannot be fetched: no such recipe or version, or no access."""


def apply_recipe(df: DataFrame, steps: list[dict[str, Any]]) -> DataFrame:
    """``df`` transformed by DataBrew recipe ``steps`` (``RecipeStep`` dicts), lazily, as Spark does.

    Raises:
        RecipeStepError: a step cannot run on this data (unknown operation, bad or missing parameter,
            a column that is not there), naming the step and the parameter.
    """
    checked = check_steps(steps)
    if ROW in df.columns:
        raise RecipeStepError(0, "", f"the data has a column named {ROW!r}, which the recipe engine uses itself")
    out = df.withColumn(ROW, F.monotonically_increasing_id())
    for step in checked:
        out = _apply(out, step)
    if any(step.spec.operation in _REORDERING for step in checked):
        out = out.orderBy(ROW)
    return out.drop(ROW)


def _apply(df: DataFrame, step: Step) -> DataFrame:
    implementation = IMPLEMENTATIONS[step.spec.operation]
    args = Args(step, df)
    when = predicate(df, step, step.conditions)
    kind = implementation.kind
    if kind is Conditions.NONE:
        result: DataFrame = implementation.function(args)
        return result
    if kind is Conditions.ROWS:
        keep = implementation.function(args)
        if when is not None:
            keep = keep | ~when
        return df.withColumn(_KEEP, F.coalesce(keep, F.lit(True))).where(F.col(_KEEP)).drop(_KEEP)
    if kind is Conditions.VALUES:
        source = args.column()
        changed = implementation.function(args)
        if when is not None:
            changed = F.when(when, changed).otherwise(quoted(source))
        return df.withColumn(source, changed)
    target = args.target()
    made = implementation.function(args)
    if when is not None:
        made = F.when(when, made)
    out = df.withColumn(target, made)
    anchor = step.params.get("sourceColumn")
    if anchor is None or anchor not in args.names:  # a new column goes after the column it comes from
        return out
    names = list(args.names)
    names.insert(names.index(anchor) + 1, target)
    return out.select(*[quoted(n) for n in names], ROW)


def recipe_steps(name: str, version: str | None = None) -> list[dict[str, Any]]:
    """The steps of recipe ``name`` at ``version`` (``"1.0"``, ``"LATEST_PUBLISHED"``,
    ``"LATEST_WORKING"``; None: the latest published version), from the DataBrew API.

    Raises:
        RecipeReferenceError: no such recipe or version (the API's message), or the call was refused.
    """
    request: dict[str, str] = {"Name": name}
    if version is not None:
        request["RecipeVersion"] = version
    try:
        answer = service_client("databrew").describe_recipe(**request)
    except ClientError as exc:
        error = exc.response.get("Error", {})
        raise RecipeReferenceError(f"Recipe {name!r}" + (f" version {version}" if version else "")
                                   + f": {error.get('Code')}: {error.get('Message')}") from exc
    return list(answer.get("Steps") or [])


def _check_registry() -> None:
    missing = sorted(set(SPECS) - set(IMPLEMENTATIONS))
    extra = sorted(set(IMPLEMENTATIONS) - set(SPECS))
    kinds = sorted(op for op, spec in SPECS.items()
                   if op in IMPLEMENTATIONS and IMPLEMENTATIONS[op].kind is not spec.conditions)
    if missing or extra or kinds:
        raise RuntimeError(f"recipe actions without implementation: {missing}; implementations without spec: {extra}; "
                           f"conditions declared otherwise than implemented: {kinds}")


_check_registry()
