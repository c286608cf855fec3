"""Read a PostgreSQL table through a catalog connection and write it to MariaDB.

glueball run examples/jdbc_pg_to_mariadb.py --JOB_NAME replicate --source_table public.payments \
    --target_table payments_copy
"""

import sys

from pyspark.context import SparkContext

from awsglue.context import GlueContext
from awsglue.job import Job
from awsglue.transforms import ApplyMapping
from awsglue.utils import getResolvedOptions

args = getResolvedOptions(sys.argv, ["JOB_NAME", "source_table", "target_table"])
glueContext = GlueContext(SparkContext.getOrCreate())
job = Job(glueContext)
job.init(args["JOB_NAME"], args)

payments = glueContext.create_dynamic_frame.from_options(
    connection_type="postgresql",
    connection_options={
        "useConnectionProperties": "true",
        "connectionName": "pg_sales",
        "dbtable": args["source_table"],
        "hashfield": "payment_id",
        "hashpartitions": "4",
    },
    transformation_ctx="payments",
)
payments = ApplyMapping.apply(frame=payments, mappings=[
    ("payment_id", "int", "payment_id", "long"),
    ("order_id", "int", "order_id", "long"),
    ("method", "string", "method", "string"),
    ("paid", "boolean", "paid", "boolean"),
])
glueContext.write_dynamic_frame.from_jdbc_conf(
    frame=payments,
    catalog_connection="mariadb_sales",
    connection_options={"dbtable": args["target_table"], "database": "test"},
    transformation_ctx="payments_out",
)
job.commit()
