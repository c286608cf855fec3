"""Glue's Kafka source on Spark's own Kafka connector (``spark.readStream.format("kafka")``).

Every Spark session glueball configures has the connector (glueball's ``kafka`` JVM feature:
spark-sql-kafka-0-10 and kafka-clients, ``glueball.runtime.spark``). :func:`kafka_stream` starts a stream of
:class:`~glueball.runtime.streaming.kafka_options.KafkaSource` options and adds what Spark's source does not do
the way Glue documents it:

- ``endingOffsets`` in a streaming query (Spark refuses it there): the records at or past the given offsets
  are filtered out, so the stream never yields them (the source still reads them from Kafka);
- MSK IAM authentication (``sasl.mechanism`` ``AWS_MSK_IAM``): the MSK IAM library (glueball's ``msk-iam``
  feature) is added to the running session when it lacks it — to the driver's class loader, where Spark's
  driver-side Kafka admin client logs in, and with ``SparkContext.addJar`` for the executors;
- JVM system properties a connection needs (Kerberos' ``java.security.krb5.conf``), set on the driver.

Without the connector's jars (no Maven, offline) the stream fails with ``glueball.jvm.JarsUnavailable``, whose
message names the feature and the command that fetches it.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from glueball import jvm
from glueball.runtime.errors import GlueRuntimeError
from glueball.runtime.streaming.kafka_connection import MSK_IAM_LOGIN_MODULE
from glueball.runtime.streaming.kafka_options import KafkaSource, Offsets

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession

log = logging.getLogger("glueball.runtime.streaming")

FORMAT = "kafka"
MSK_IAM_FEATURE = "msk-iam"


def kafka_stream(spark: SparkSession, source: KafkaSource) -> DataFrame:
    """The streaming DataFrame of ``source`` (Spark's Kafka columns), ``endingOffsets`` applied.

    Raises:
        glueball.jvm.JarsUnavailable: the session has no Kafka connector (or no MSK IAM library when it is
            needed) and the jars cannot be had now.
        GlueRuntimeError: Spark's source refused the options (its reason in the message).
    """
    from pyspark.errors import AnalysisException, IllegalArgumentException

    if source.needs_msk_iam:
        add_feature(spark, MSK_IAM_FEATURE, MSK_IAM_LOGIN_MODULE)
    for key, value in source.system_properties.items():
        spark._jvm.java.lang.System.setProperty(key, value)  # type: ignore[union-attr]
    try:
        frame = spark.readStream.format(FORMAT).options(**source.options).load()
    except AnalysisException as e:
        missing = jvm.explain(e)
        if missing is not None:
            raise missing from e
        raise
    except IllegalArgumentException as e:
        reason = " ".join(str(e).split())  # Spark's message spans lines
        raise GlueRuntimeError(f"Spark's Kafka source refused the options: {reason}") from None
    return with_ending_offsets(frame, source.ending)


def with_ending_offsets(frame: DataFrame, ending: Offsets) -> DataFrame:
    """``frame`` without the records at or past ``ending`` (per topic and partition); ``frame`` when empty."""
    from pyspark.sql import functions as F

    past: Column | None = None
    for topic, partitions in sorted(ending.items()):
        for partition, offset in sorted(partitions.items()):
            beyond = (F.col("topic") == topic) & (F.col("partition") == partition) & (F.col("offset") >= offset)
            past = beyond if past is None else past | beyond
    return frame if past is None else frame.where(~past)


def _loader(spark: SparkSession) -> Any:
    return spark._jvm.java.lang.Thread.currentThread().getContextClassLoader()  # type: ignore[union-attr]


def loadable(spark: SparkSession, class_name: str) -> bool:
    """Whether the driver's class loader (the one Spark's driver-side Kafka clients use) finds ``class_name``."""
    from py4j.protocol import Py4JJavaError

    try:
        spark._jvm.java.lang.Class.forName(class_name, False, _loader(spark))  # type: ignore[union-attr]
    except Py4JJavaError:
        return False
    return True


def add_feature(spark: SparkSession, feature: str, probe_class: str) -> None:
    """Put the jars of glueball's JVM ``feature`` into the running session unless ``probe_class`` loads already.

    Raises:
        glueball.jvm.JarsUnavailable: the feature's jars are not in the cache and cannot be fetched now.
        GlueRuntimeError: the session's class loader takes no more jars (start it with ``GLUEBALL_JVM_FEATURES``).
    """
    if loadable(spark, probe_class):
        return
    from py4j.protocol import Py4JError

    found = jvm.jars(feature)
    loader = _loader(spark)
    java = spark._jvm.java  # type: ignore[union-attr]
    for path in found:
        try:  # spark-submit's MutableURLClassLoader takes more jars; another loader has no addURL
            loader.addURL(java.io.File(str(path)).toURI().toURL())
        except Py4JError:
            raise GlueRuntimeError(f"this Spark session cannot take the jars of glueball's {feature!r} feature now; "
                                   f"start it with GLUEBALL_JVM_FEATURES={feature}") from None
        spark.sparkContext._jsc.sc().addJar(str(path))
    if not loadable(spark, probe_class):
        raise GlueRuntimeError(f"the jars of glueball's {feature!r} feature did not reach this Spark session; "
                               f"start it with GLUEBALL_JVM_FEATURES={feature}")
    log.info("added the %d jars of glueball's %s feature to the Spark session", len(found), feature)
