"""The AWS Glue ETL library import path (``from awsglue.context import GlueContext``).

Reserved here; the runtime that fills it lives in ``glueball.runtime``.
"""
