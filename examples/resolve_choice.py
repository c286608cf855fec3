"""Mixed-type JSON: `price` is a number in some events and a string in others.

glueball run examples/resolve_choice.py --JOB_NAME events --output s3://lake/curated/events/
"""

import sys

from pyspark.context import SparkContext

from awsglue.context import GlueContext
from awsglue.job import Job
from awsglue.transforms import ResolveChoice
from awsglue.utils import getResolvedOptions

args = getResolvedOptions(sys.argv, ["JOB_NAME", "output"])
glueContext = GlueContext(SparkContext.getOrCreate())
job = Job(glueContext)
job.init(args["JOB_NAME"], args)

events = glueContext.create_dynamic_frame.from_options(
    connection_type="s3", connection_options={"paths": ["s3://lake/raw/events/"]}, format="json",
    transformation_ctx="events",
)
events.printSchema()
print(f"malformed events: {events.errorsCount()}")

priced = ResolveChoice.apply(frame=events, specs=[("price", "cast:double")], transformation_ctx="priced")
split = events.resolveChoice(specs=[("price", "make_cols")])

glueContext.write_dynamic_frame.from_options(
    frame=priced, connection_type="s3", connection_options={"path": args["output"]}, format="parquet",
)
glueContext.write_dynamic_frame.from_options(
    frame=split, connection_type="s3", connection_options={"path": args["output"].rstrip("/") + "_by_type/"},
    format="json",
)
job.commit()
