"""Relationalize nested orders (structs and arrays) into flat tables.

glueball run examples/relationalize_orders.py --JOB_NAME flatten --output s3://lake/flat/ \
    --TempDir s3://lake/tmp/
"""

import sys

from pyspark.context import SparkContext

from awsglue.context import GlueContext
from awsglue.job import Job
from awsglue.transforms import Relationalize
from awsglue.utils import getResolvedOptions

args = getResolvedOptions(sys.argv, ["JOB_NAME", "output", "TempDir"])
glueContext = GlueContext(SparkContext.getOrCreate())
job = Job(glueContext)
job.init(args["JOB_NAME"], args)

nested = glueContext.create_dynamic_frame.from_options(
    "s3", {"paths": ["s3://lake/raw/nested_orders/"]}, format="json", transformation_ctx="nested",
)
tables = Relationalize.apply(frame=nested, staging_path=args["TempDir"], name="orders",
                             transformation_ctx="relationalized")
for name in tables.keys():
    glueContext.write_dynamic_frame.from_options(
        frame=tables.select(name), connection_type="s3",
        connection_options={"path": f"{args['output'].rstrip('/')}/{name}/"}, format="parquet",
    )
job.commit()
