"""Quarantine: valid orders to one prefix, invalid ones (unparseable or negative) to another.

glueball run examples/quarantine.py --JOB_NAME quarantine --good s3://lake/clean/orders/ \
    --bad s3://lake/quarantine/orders/
"""

import sys

from pyspark.context import SparkContext

from awsglue.context import GlueContext
from awsglue.job import Job
from awsglue.transforms import ApplyMapping, SplitRows
from awsglue.utils import getResolvedOptions

args = getResolvedOptions(sys.argv, ["JOB_NAME", "good", "bad"])
glueContext = GlueContext(SparkContext.getOrCreate())
job = Job(glueContext)
job.init(args["JOB_NAME"], args)

orders = glueContext.create_dynamic_frame.from_options(
    "s3", {"paths": ["s3://lake/raw/orders/"]}, format="csv", format_options={"withHeader": True},
    transformation_ctx="orders",
)
typed = ApplyMapping.apply(frame=orders, mappings=[
    ("order_id", "string", "order_id", "long"),
    ("order_ts", "string", "ordered_at", "timestamp"),
    ("amount", "string", "amount", "double"),
    ("region", "string", "region", "string"),
])
# a row is good when its timestamp parsed and its amount is positive
checked = typed.map(lambda r: {**r, "valid": r["ordered_at"] is not None and (r["amount"] or 0) > 0})
parts = SplitRows.apply(frame=checked, comparison_dict={"valid": {"=": True}}, name1="good", name2="bad")

for key in ("good", "bad"):
    glueContext.write_dynamic_frame.from_options(
        frame=parts.select(key).drop_fields(["valid"]), connection_type="s3",
        connection_options={"path": args[key]}, format="json",
    )
job.commit()
