"""CustomSql statements over ``primary`` and the additional data sources' aliases.

Glue runs a rule's SQL with the primary data as the table ``primary`` and every additional data
source under its alias. Spark's temporary views are per session, so statements are analyzed one at
a time under a lock: the views are created, the statement analyzed (which binds the views' plans
into the result), and the views dropped again. A user's own temporary view named ``primary`` (or
like an alias) is replaced for that moment and then gone, as the names are Glue's.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING

from glueball.dataquality.planner import PlanError

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

__all__ = ["run_sql"]

_LOCK = threading.Lock()


def run_sql(spark: SparkSession, statement: str, views: Mapping[str, DataFrame]) -> DataFrame:
    """The analyzed result of ``statement``; :class:`PlanError` when Spark cannot parse or analyze it."""
    from pyspark.sql.utils import AnalysisException, ParseException

    with _LOCK:
        for name, frame in views.items():
            frame.createOrReplaceTempView(name)
        try:
            return spark.sql(statement)
        except (ParseException, AnalysisException) as error:
            text = str(getattr(error, "desc", None) or error).strip().splitlines()
            raise PlanError(f"The CustomSql statement is not valid: {text[0] if text else error}") from None
        finally:
            for name in views:
                spark.catalog.dropTempView(name)
