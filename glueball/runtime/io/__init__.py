"""Readers and writers of the runtime: files (s3/file), JDBC and the Data Catalog.

Entry points used by ``GlueContext``: ``read.read_dynamic_frame``, ``read.read_catalog_frame``,
``write.write_dynamic_frame``, ``write.write_catalog_frame``, ``write.write_jdbc_conf``,
``sources.DataSource``/``DataSink``, ``purge.purge_table``/``purge_s3_path``,
``jdbc.extract_jdbc_conf``.
"""
