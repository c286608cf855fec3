"""Daily revenue: the curated orders, summed per day, customer segment, country and currency.

An AWS Glue PySpark script, run unchanged by ``glueball run``, a glueball job run or AWS Glue:

    glueball run glueball/demo/jobs/aggregate.py --JOB_NAME demo-aggregate \
        --curated_database demo_curated --output_path s3://demo-lake/curated/daily_revenue/

Glue behaviour it relies on:

- ``from_catalog`` on ``<curated_database>.orders`` (the table the transform job's sink
  created) without a ``transformation_ctx``: no bookmark, so every run reads the whole table
  even when the job runs with ``--job-bookmark-option job-bookmark-enable``.
- The whole result is recomputed on every run. Glue's S3 sinks append, so the script first
  empties ``output_path`` with ``purge_s3_path(..., {"retentionPeriod": 0})`` (every file
  older than now is deleted) and then writes; between the purge and the write a reader sees
  no data, as on Glue.
- The sink updates the catalog (``enableUpdateCatalog``, ``UPDATE_IN_DATABASE``) into
  ``<curated_database>.daily_revenue``, partitioned by ``day``: the table is created on the
  first run and each new day's partition registered.

Prints one line: ``curated orders N, daily revenue rows N, days N``.
"""

import sys

from pyspark.context import SparkContext

from awsglue.context import GlueContext
from awsglue.dynamicframe import DynamicFrame
from awsglue.job import Job
from awsglue.utils import getResolvedOptions

args = getResolvedOptions(sys.argv, ["JOB_NAME", "curated_database", "output_path"])
workflow = {}
if "--WORKFLOW_NAME" in sys.argv and "--WORKFLOW_RUN_ID" in sys.argv:
    workflow = getResolvedOptions(sys.argv, ["WORKFLOW_NAME", "WORKFLOW_RUN_ID"])

glueContext = GlueContext(SparkContext.getOrCreate())
spark = glueContext.spark_session
job = Job(glueContext)
job.init(args["JOB_NAME"], args)
if workflow:
    print(f"started by workflow {workflow['WORKFLOW_NAME']} run {workflow['WORKFLOW_RUN_ID']}")

# no transformation_ctx: the full table on every run
orders = glueContext.create_dynamic_frame.from_catalog(database=args["curated_database"], table_name="orders")
orders.toDF().createOrReplaceTempView("curated_orders")
daily = spark.sql("""
    SELECT segment, country, currency,
           COUNT(*) AS orders,
           CAST(SUM(amount) AS DECIMAL(14, 2)) AS revenue,
           CAST(AVG(amount) AS DECIMAL(12, 2)) AS average_order,
           day
    FROM curated_orders
    GROUP BY day, segment, country, currency
""").cache()

order_count = daily.agg({"orders": "sum"}).collect()[0][0] or 0
row_count = daily.count()
day_count = daily.select("day").distinct().count()

glueContext.purge_s3_path(args["output_path"], {"retentionPeriod": 0})
if row_count:
    sink = glueContext.getSink(
        connection_type="s3", path=args["output_path"], enableUpdateCatalog=True,
        updateBehavior="UPDATE_IN_DATABASE", partitionKeys=["day"], transformation_ctx="daily_revenue_sink")
    sink.setFormat("glueparquet", compression="snappy")
    sink.setCatalogInfo(catalogDatabase=args["curated_database"], catalogTableName="daily_revenue")
    # a few rows per day: one file per partition
    sink.writeFrame(DynamicFrame.fromDF(daily, glueContext, "daily_revenue").coalesce(1))

print(f"curated orders {order_count}, daily revenue rows {row_count}, days {day_count}")
daily.unpersist()
job.commit()
