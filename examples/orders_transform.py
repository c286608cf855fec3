"""Join orders (CSV on S3) with customers (Data Catalog), map and cast, filter, write Parquet by region.

glueball run examples/orders_transform.py --JOB_NAME orders-transform --output s3://lake/curated/orders/
"""

import sys

from pyspark.context import SparkContext

from awsglue.context import GlueContext
from awsglue.job import Job
from awsglue.transforms import ApplyMapping, Filter, Join
from awsglue.utils import getResolvedOptions

args = getResolvedOptions(sys.argv, ["JOB_NAME", "output"])
sc = SparkContext()
glueContext = GlueContext(sc)
job = Job(glueContext)
job.init(args["JOB_NAME"], args)

orders = glueContext.create_dynamic_frame.from_options(
    connection_type="s3",
    connection_options={"paths": ["s3://lake/raw/orders/"]},
    format="csv",
    format_options={"withHeader": True, "separator": ","},
    transformation_ctx="orders",
)
customers = glueContext.create_dynamic_frame.from_catalog(
    database="sales", table_name="customers", transformation_ctx="customers"
)

orders = ApplyMapping.apply(
    frame=orders,
    mappings=[
        ("order_id", "string", "order_id", "long"),
        ("customer_id", "string", "customer_id", "long"),
        ("order_ts", "string", "ordered_at", "timestamp"),
        ("amount", "string", "amount", "double"),
        ("region", "string", "region", "string"),
    ],
    transformation_ctx="orders_mapped",
)
customers = ApplyMapping.apply(
    frame=customers,
    mappings=[("customer_id", "long", "cust_id", "long"), ("name", "string", "customer_name", "string"),
              ("segment", "string", "segment", "string")],
    transformation_ctx="customers_mapped",
)

valid = Filter.apply(frame=orders, f=lambda r: r["ordered_at"] is not None and r["amount"] > 0,
                     transformation_ctx="valid_orders")
enriched = Join.apply(valid, customers, "customer_id", "cust_id", transformation_ctx="enriched")
enriched = enriched.drop_fields(["cust_id"])

sink = glueContext.getSink(
    connection_type="s3",
    path=args["output"],
    enableUpdateCatalog=True,
    updateBehavior="UPDATE_IN_DATABASE",
    partitionKeys=["region"],
    transformation_ctx="orders_sink",
)
sink.setFormat("glueparquet", compression="snappy")
sink.setCatalogInfo(catalogDatabase="sales", catalogTableName="orders_enriched")
sink.writeFrame(enriched)

job.commit()
