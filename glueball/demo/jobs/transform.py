"""Daily orders transform: crawled raw CSV -> typed, validated, enriched Parquet, with a quarantine.

An AWS Glue PySpark script, run unchanged by ``glueball run``, a glueball job run or AWS Glue:

    glueball run glueball/demo/jobs/transform.py --JOB_NAME demo-transform \
        --job-bookmark-option job-bookmark-enable --raw_database demo_raw \
        --curated_path s3://demo-lake/curated/orders/ --quarantine_path s3://demo-lake/quarantine/orders/ \
        --curated_database demo_curated

Glue behaviour it relies on:

- ``from_catalog`` on the crawled ``orders`` table with ``transformation_ctx="raw_orders"``:
  with ``--job-bookmark-option job-bookmark-enable`` a run reads only the files no committed
  run has read (a new ``day=`` partition), and ``job.commit()`` advances the bookmark.
- ``customers`` is read without a ``transformation_ctx``: a source without one has no
  bookmark, so the dimension table is read in full on every run (with a bookmark, the
  second run would see no customers and reject every order as "unknown customer").
- ApplyMapping turns text that does not parse into NULL (amounts like ``n/a``, empty
  timestamps) instead of failing; the rows are then quarantined with a ``reject_reason``.
- Unknown customers are found by a left join on the customers (Glue's ``Join`` transform is
  an inner join and would drop them silently), which also brings the customer's name,
  segment and country onto every order.
- The curated sink is ``getSink(enableUpdateCatalog=True, updateBehavior="UPDATE_IN_DATABASE",
  partitionKeys=["day"])`` with ``setCatalogInfo``: the job creates ``<curated_database>.orders``
  and registers each new ``day`` partition itself; Glue's S3 sinks append.
- ``--WORKFLOW_NAME`` / ``--WORKFLOW_RUN_ID``, which Glue passes to jobs a workflow starts,
  are read only when present, so the script also runs on its own.

A run with nothing new to read (the bookmark covers every file) writes nothing and succeeds.
Prints one line of counts: ``orders read N, curated N, quarantined N, cancelled N``.
"""

import sys

from pyspark.context import SparkContext
from pyspark.sql import functions as F

from awsglue.context import GlueContext
from awsglue.dynamicframe import DynamicFrame
from awsglue.job import Job
from awsglue.transforms import ApplyMapping, DropFields, Filter
from awsglue.utils import getResolvedOptions

args = getResolvedOptions(sys.argv, ["JOB_NAME", "raw_database", "curated_path", "quarantine_path",
                                     "curated_database"])
workflow = {}
if "--WORKFLOW_NAME" in sys.argv and "--WORKFLOW_RUN_ID" in sys.argv:
    workflow = getResolvedOptions(sys.argv, ["WORKFLOW_NAME", "WORKFLOW_RUN_ID"])

glueContext = GlueContext(SparkContext.getOrCreate())
job = Job(glueContext)
job.init(args["JOB_NAME"], args)
if workflow:
    print(f"started by workflow {workflow['WORKFLOW_NAME']} run {workflow['WORKFLOW_RUN_ID']}")

raw_orders = glueContext.create_dynamic_frame.from_catalog(
    database=args["raw_database"], table_name="orders", transformation_ctx="raw_orders")
# no transformation_ctx: no bookmark, every run joins against all customers
customers = glueContext.create_dynamic_frame.from_catalog(database=args["raw_database"], table_name="customers")

orders = ApplyMapping.apply(frame=raw_orders, mappings=[
    ("order_id", "long", "order_id", "long"),
    ("customer_id", "long", "customer_id", "long"),
    ("order_ts", "string", "ordered_at", "timestamp"),
    ("status", "string", "status", "string"),
    ("amount", "string", "amount", "decimal(12,2)"),
    ("amount", "string", "amount_text", "string"),  # the amount as received, kept for the quarantine
    ("currency", "string", "currency", "string"),
    ("day", "string", "day", "string"),
], transformation_ctx="typed_orders")
customers = ApplyMapping.apply(frame=customers, mappings=[
    ("customer_id", "long", "known_customer_id", "long"),
    ("name", "string", "customer_name", "string"),
    ("segment", "string", "segment", "string"),
    ("country", "string", "country", "string"),
], transformation_ctx="typed_customers")

# the first defect found names the rejection; a row without one has a NULL reject_reason
reject_reason = (
    F.when(F.col("amount").isNull(), "amount is not a number")
    .when(F.col("ordered_at").isNull(), "missing order timestamp")
    .when(F.col("amount") < 0, "negative amount")
    .when(F.col("known_customer_id").isNull(), "unknown customer")
)
checked = (orders.toDF()
           .join(F.broadcast(customers.toDF().dropDuplicates(["known_customer_id"])),
                 F.col("customer_id") == F.col("known_customer_id"), "left")
           .withColumn("reject_reason", reject_reason)
           .cache())

read_count = checked.count()
rejected = DynamicFrame.fromDF(
    checked.where(F.col("reject_reason").isNotNull())
    .select("order_id", "customer_id", "ordered_at", "status", "amount_text", "currency", "reject_reason", "day"),
    glueContext, "rejected_orders")
accepted = DynamicFrame.fromDF(checked.where(F.col("reject_reason").isNull()), glueContext, "accepted_orders")
accepted = DropFields.apply(frame=accepted, paths=["amount_text", "known_customer_id", "reject_reason"],
                            transformation_ctx="accepted_orders")
curated = Filter.apply(frame=accepted, f=lambda order: order["status"] != "cancelled",
                       transformation_ctx="not_cancelled")

quarantined_count = rejected.count()
accepted_count = accepted.count()
curated_count = curated.count()

if quarantined_count:
    glueContext.write_dynamic_frame.from_options(
        frame=rejected, connection_type="s3",
        connection_options={"path": args["quarantine_path"], "partitionKeys": ["day"]},
        format="json", transformation_ctx="quarantine_sink")

if curated_count:
    sink = glueContext.getSink(
        connection_type="s3", path=args["curated_path"], enableUpdateCatalog=True,
        updateBehavior="UPDATE_IN_DATABASE", partitionKeys=["day"], transformation_ctx="curated_sink")
    sink.setFormat("glueparquet", compression="snappy")
    sink.setCatalogInfo(catalogDatabase=args["curated_database"], catalogTableName="orders")
    sink.writeFrame(curated)

print(f"orders read {read_count}, curated {curated_count}, quarantined {quarantined_count}, "
      f"cancelled {accepted_count - curated_count}")
if quarantined_count:
    reasons = {r["reject_reason"]: r["count"] for r in checked.groupBy("reject_reason").count().collect()
               if r["reject_reason"] is not None}
    print("quarantined by reason: " + ", ".join(f"{reason} {n}" for reason, n in sorted(reasons.items())))
checked.unpersist()
job.commit()
