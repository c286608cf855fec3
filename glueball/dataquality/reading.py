"""How a data quality driver reads its data: a GlueContext and a run's DataSource as a DataFrame.

Used by the evaluation driver (:mod:`.driver`) and the recommendation driver (:mod:`.recommend`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def glue_context() -> Any:
    """The driver's GlueContext (Spark configured by ``glueball run``)."""
    from pyspark.context import SparkContext

    from awsglue.context import GlueContext

    return GlueContext(SparkContext.getOrCreate())


def read_source(glue: Any, data_source: Mapping[str, Any]) -> Any:
    """A run's DataSource.GlueTable as a Spark DataFrame, read through the catalog like a Glue job."""
    table = data_source["GlueTable"]
    options = table.get("AdditionalOptions") or {}
    extra = {"catalogPartitionPredicate": options["catalogPartitionPredicate"]} \
        if options.get("catalogPartitionPredicate") else {}
    return glue.create_dynamic_frame.from_catalog(
        database=table["DatabaseName"], table_name=table["TableName"],
        push_down_predicate=options.get("pushDownPredicate", ""), additional_options=extra).toDF()
