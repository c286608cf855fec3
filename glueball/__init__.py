"""glueball: a self-hosted AWS Glue on Apache Spark."""

__version__ = "0.1.0"
