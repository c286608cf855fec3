"""Spark SQL's view of the Data Catalog, both ways: a Hive metastore Thrift endpoint over the Glue API.

Spark's Hive support (``enableHiveSupport()``, Hive 2.3's metastore client) and any other Hive metastore
client (Trino, Flink, Hive) talk to :class:`HiveMetastoreEndpoint`; each call becomes Glue API calls
through the Glue client it is given, so what they see and write is the Data Catalog. See
docs/metastore.md.
"""

from glueball.metastore.endpoint import HiveMetastoreEndpoint
from glueball.metastore.service import DataFiles, Metastore
from glueball.metastore.shapes import FOREIGN_SERDES
from glueball.metastore.tabledata import ObjectStoreFiles

__all__ = ["FOREIGN_SERDES", "DataFiles", "HiveMetastoreEndpoint", "Metastore", "ObjectStoreFiles"]
