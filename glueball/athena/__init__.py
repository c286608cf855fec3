"""Athena's API over the Data Catalog: query executions run as Spark SQL on engine drivers (docs/athena.md)."""
