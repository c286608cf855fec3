"""The AWS Glue ETL library's import path, served by glueball's runtime (``glueball.runtime``)."""

from awsglue.dynamicframe import DynamicFrame

__all__ = ["DynamicFrame"]
