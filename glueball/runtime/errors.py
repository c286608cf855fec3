"""Error records of DynamicFrames and the errors a Glue script can raise.

A record that cannot be read or transformed does not stop the job: it becomes
an error record, counted per stage and in total, retrievable with
``errorsAsDynamicFrame()`` and bounded by ``stageThreshold``/``totalThreshold``.
Every error record has the same four columns (see ``ERROR_SCHEMA``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Union

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql.types import StructType


class GlueRuntimeError(Exception):
    """A Glue script used the runtime wrongly (bad option, unsupported connection, ...)."""


class ErrorThresholdExceeded(GlueRuntimeError):
    """More error records than a transformation's stageThreshold or totalThreshold allow."""


def error_schema() -> StructType:
    """``error_message``, ``error_stage`` (the transformation), ``error_input`` (the record as text),
    ``error_source`` (file, table or transformation context it came from)."""
    from pyspark.sql.types import StringType, StructField, StructType

    return StructType([
        StructField("error_message", StringType(), True),
        StructField("error_stage", StringType(), True),
        StructField("error_input", StringType(), True),
        StructField("error_source", StringType(), True),
    ])


def empty_errors(spark: SparkSession) -> DataFrame:
    return spark.createDataFrame([], error_schema())


_ATTACHED = "_glueball_errors"


def attach_errors(df: DataFrame, errors: DataFrame | None) -> DataFrame:
    """Keep error records on a DataFrame object (a decoded streaming micro-batch) for ``DynamicFrame.fromDF``.

    They stay with this object only: a DataFrame derived from it starts without them.
    """
    df.__dict__[_ATTACHED] = errors
    return df


def attached_errors(df: DataFrame) -> DataFrame | None:
    """The error records kept on ``df`` by ``attach_errors`` (None when there are none)."""
    return vars(df).get(_ATTACHED) if hasattr(df, "__dict__") else None


class LazyErrors:
    """Error records built when first asked for (counted, thresholds checked, ``errorsAsDynamicFrame``).

    A read's error records and a lineage's union of them are Spark plans a pipeline seldom runs; building
    each costs calls into the JVM (a file listing for a read's), so reads and transformations hand them on
    unbuilt. Built once, then kept.
    """

    def __init__(self, build: Callable[[], DataFrame | None]) -> None:
        self._build: Callable[[], DataFrame | None] | None = build
        self._frame: DataFrame | None = None

    @property
    def built(self) -> bool:
        """Whether the error records' DataFrame was made."""
        return self._build is None

    def frame(self) -> DataFrame | None:
        """The error records (None: there can be none)."""
        if self._build is not None:
            self._frame, self._build = self._build(), None
        return self._frame


Errors = Union["DataFrame", LazyErrors]


def error_frame(errors: Errors | None) -> DataFrame | None:
    """``errors`` as a DataFrame, built now if it is lazy (None: no error records)."""
    return errors.frame() if isinstance(errors, LazyErrors) else errors
