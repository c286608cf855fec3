"""Iceberg tables in the Data Catalog: their metadata files (:mod:`.metadata`) and the Iceberg REST catalog
endpoint over the same Glue tables."""
