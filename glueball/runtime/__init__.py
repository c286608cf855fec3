"""The ETL runtime under ``awsglue``: DynamicFrame, the Glue type system, readers and writers on Spark."""
