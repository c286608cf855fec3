"""Aggregate, running total and de-duplication through toDF/fromDF.

glueball run examples/orders_analytics.py --JOB_NAME orders-analytics --output s3://lake/analytics/
"""

import sys

from pyspark.context import SparkContext
from pyspark.sql import Window
from pyspark.sql import functions as F

from awsglue.context import GlueContext
from awsglue.dynamicframe import DynamicFrame
from awsglue.job import Job
from awsglue.utils import getResolvedOptions

args = getResolvedOptions(sys.argv, ["JOB_NAME", "output"])
glueContext = GlueContext(SparkContext.getOrCreate())
job = Job(glueContext)
job.init(args["JOB_NAME"], args)

orders = glueContext.create_dynamic_frame.from_options(
    "s3", {"paths": ["s3://lake/raw/orders/"]}, format="csv", format_options={"withHeader": True}
).apply_mapping([
    ("order_id", "string", "order_id", "long"),
    ("customer_id", "string", "customer_id", "long"),
    ("order_ts", "string", "ordered_at", "timestamp"),
    ("amount", "string", "amount", "double"),
    ("region", "string", "region", "string"),
])

df = orders.toDF()
# the last correction of an order wins
latest = Window.partitionBy("order_id").orderBy(F.col("ordered_at").desc_nulls_last())
deduped = df.withColumn("rn", F.row_number().over(latest)).filter("rn = 1").drop("rn")

running = Window.partitionBy("customer_id").orderBy("ordered_at").rowsBetween(Window.unboundedPreceding, 0)
with_total = deduped.withColumn("running_total", F.round(F.sum("amount").over(running), 2))

by_region = deduped.groupBy("region").agg(F.count("*").alias("orders"), F.round(F.sum("amount"), 2).alias("revenue"))

for name, frame in (("running_totals", with_total), ("revenue_by_region", by_region)):
    glueContext.write_dynamic_frame.from_options(
        frame=DynamicFrame.fromDF(frame, glueContext, name),
        connection_type="s3",
        connection_options={"path": f"{args['output'].rstrip('/')}/{name}/"},
        format="json",
    )
job.commit()
