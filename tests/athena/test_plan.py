"""Athena's SQL planned as Spark SQL (no engine): what sqlglot's translation gives, Athena's column names and
result kinds, and what is refused by name before anything runs."""

from __future__ import annotations

import pytest

from glueball.athena import plan as planner
from glueball.athena.models import ErrorType, StatementType


def planned(sql: str, location: str | None = "s3://results/tables/q1/") -> planner.Plan:
    return planner.plan(planner.parse(sql)[0], sql, location)


def test_trino_queries_become_spark_sql() -> None:
    query = planned("SELECT i, date_add('day', i, DATE '2024-01-01'), count(*) AS n "
                    "FROM UNNEST(sequence(1, 3)) AS t(i) GROUP BY 1, 2")
    assert query.kind == "rows" and query.statement_type is StatementType.DML and query.header
    (spark,) = query.statements
    assert "EXPLODE(SEQUENCE(1, 3))" in spark and "DATE_ADD(" in spark
    assert "AS `_col1`" in spark and "AS n" in spark  # Athena's name for an unnamed column
    assert planned("SELECT a FROM db.t JOIN other o ON t.id = o.id").tables_read == ["db.t", "other"]


def test_ctas_writes_the_format_partitions_and_location_asked_for() -> None:
    ctas = planned("CREATE TABLE db.t WITH (format = 'ORC', partitioned_by = ARRAY['day'], write_compression = "
                   "'ZLIB') AS SELECT a, day FROM src")
    assert ctas.kind == "ctas" and ctas.substatement_type == "CREATE_TABLE_AS_SELECT"
    (spark,) = ctas.statements
    assert spark.startswith("CREATE TABLE `db`.`t` USING orc OPTIONS ('compression' = 'zlib') "
                            "PARTITIONED BY (`day`) LOCATION 's3://results/tables/q1/' AS SELECT")
    assert ctas.table == {"Name": "db.t", "Location": "s3://results/tables/q1/", "Format": "ORC",
                          "Select": "SELECT a, day FROM src"}
    text = planned("CREATE TABLE t WITH (format = 'TEXTFILE', field_delimiter = '|', external_location = "
                   "'s3://lake/t/') AS SELECT 1 AS a")
    assert "USING csv OPTIONS ('sep' = '|')" in text.statements[0] and "LOCATION 's3://lake/t/'" in text.statements[0]


def test_statements_of_their_own_kind() -> None:
    assert planned("SHOW TABLES IN db").keep == ["tab_name"]
    assert planned("SHOW TABLES IN db").extension == "txt"
    assert planned("DESCRIBE db.t").header is False
    assert planned("MSCK REPAIR TABLE db.t").kind == "ddl"
    assert planned("INSERT INTO db.t SELECT * FROM s").table == {"Name": "db.t"}
    unload = planned("UNLOAD (SELECT a FROM t) TO 's3://lake/out/' WITH (format = 'JSON')")
    assert unload.kind == "unload" and unload.table["Format"] == "json" and unload.table["Location"] == \
        "s3://lake/out/"
    assert planned("CREATE VIEW v AS SELECT a FROM t").substatement_type == "CREATE_VIEW"


def test_parameters_bind_as_literals_only() -> None:
    statement = planner.bind(planner.parse("SELECT * FROM t WHERE a = ? AND b = ?")[0], ["'x'", "2"])
    assert statement.sql("athena") == "SELECT * FROM t WHERE a = 'x' AND b = 2"
    with pytest.raises(planner.Refusal, match="expected 1 but found 2"):
        planner.bind(planner.parse("SELECT ?")[0], ["1", "2"])
    # any other text is that text as a string (awswrangler's qmark parameters, ["Washington"]): never an expression
    # of the query's columns or a subquery
    bound = planner.bind(planner.parse("SELECT * FROM t WHERE a = ? AND b = ? AND c = ? AND d = ? AND e = ?")[0],
                         ["Washington", "a string", "(SELECT secret FROM t)", "6 OR 1 = 1", "DATE '2020-01-01'"])
    assert bound.sql("athena") == ("SELECT * FROM t WHERE a = 'Washington' AND b = 'a string' AND c = '(SELECT "
                                   "secret FROM t)' AND d = '6 OR 1 = 1' AND e = CAST('2020-01-01' AS DATE)")
    assert planner.bind(planner.parse("SELECT ?")[0], ["CAST(secret AS varchar)"]).sql("athena") == \
        "SELECT 'CAST(secret AS varchar)'"
    assert planner.bind(planner.parse("SELECT ?")[0], ["it's"]).sql("athena") == "SELECT 'it''s'"
    assert planner.bind(planner.parse("SELECT ?, ?")[0], ["ARRAY[1, -2]", "ARRAY[now()]"]).sql("athena") == \
        "SELECT ARRAY[1, -2], 'ARRAY[now()]'"
    assert planner.prepared_statement_of("EXECUTE q USING 1, 'a'") == ("EXECUTE", "q", "1, 'a'")
    assert planner.prepared_statement_of('EXECUTE "q2"') == ("EXECUTE", "q2", None)
    assert planner.prepared_statement_of('PREPARE "q2" FROM SELECT 1') == ("PREPARE", "q2", "SELECT 1")
    assert planner.using_values("1, 'a'") == ["1", "'a'"]


@pytest.mark.parametrize(("sql", "named", "kind"), [
    ("", "Query string is empty", ErrorType.SYNTAX),
    ("SELECT FROM WHERE", "line 1:", ErrorType.SYNTAX),
    ("SELECT 1; SELECT 2", "Only one SQL statement", ErrorType.SYNTAX),
    ("MERGE INTO t USING s ON t.a = s.a WHEN MATCHED THEN DELETE", "MERGE is only supported for Iceberg", None),
    ("SELECT java_method('java.lang.Runtime', 'getRuntime')", "FUNCTION_NOT_FOUND", None),
    ("CREATE TABLE t (a) AS SELECT 1", "takes no column list", None),
    ("CREATE TABLE t WITH (partitioned_by = ARRAY['a']) AS SELECT 1 AS a, 2 AS b", "must be the last columns", None),
    ("CREATE TABLE t WITH (format = 'PARQUET', field_delimiter = ',') AS SELECT 1 AS a", "field_delimiter", None),
    ("UNLOAD SELECT 1 TO 's3://x/'", "UNLOAD needs the form", ErrorType.SYNTAX),
    ("SHOW GRANTS", "NOT_SUPPORTED", None),
])
def test_refused_by_name(sql: str, named: str, kind: ErrorType | None) -> None:
    with pytest.raises(planner.Refusal, match=named) as refused:
        planned(sql)
    if kind is not None:
        assert refused.value.error_type is kind


def test_ctas_needs_somewhere_to_write() -> None:
    with pytest.raises(planner.Refusal, match="external_location"):
        planned("CREATE TABLE t AS SELECT 1 AS a", location=None)


def test_a_views_and_an_unloads_unnamed_columns_are_named_as_a_querys() -> None:
    view = planned("CREATE VIEW v AS SELECT 1, 'a' AS b, x / 2 FROM t").statements[0]
    assert "AS `_col0`" in view and "AS b" in view and "AS `_col2`" in view
    unload = planned("UNLOAD (SELECT 1, 2 AS two) TO 's3://lake/u/' WITH (format = 'PARQUET')").statements[0]
    assert "AS `_col0`" in unload and "AS two" in unload


def test_an_unloads_query_takes_the_execution_parameters() -> None:
    sql = "UNLOAD (SELECT * FROM t WHERE c = ? AND d = ?) TO 's3://x/y/' WITH (format = 'PARQUET')"
    statement, text = planner.bind_text(sql, ["'Washington'", "DECIMAL '1.5'"])
    (spark,) = planner.plan(statement, text, None).statements
    assert spark == "SELECT * FROM t WHERE c = 'Washington' AND d = CAST('1.5' AS DECIMAL(2, 1))"
    with pytest.raises(planner.Refusal, match="expected 2 but found 1"):
        planner.bind_text(sql, ["1"])
    with pytest.raises(planner.Refusal, match="expected 0 but found 1"):
        planner.bind_text("UNLOAD (SELECT 1) TO 's3://x/y/' WITH (format = 'PARQUET')", ["1"])


def test_show_takes_trinos_quoted_names_and_a_views_statement() -> None:
    shown = planned('SHOW CREATE VIEW "default"."my ""v"""')
    assert shown.statements == ['SHOW CREATE TABLE `default`.`my "v"`'] and shown.substatement_type == \
        "SHOW_CREATE_VIEW"
    assert planned('SHOW PARTITIONS "db"."t"').statements == ["SHOW PARTITIONS `db`.`t`"]
    assert planned("SHOW TABLES IN db LIKE 'x*'").statements == ["SHOW TABLES IN db LIKE 'x*'"]


def test_ctas_with_no_data_selects_no_rows() -> None:
    (spark,) = planned("CREATE TABLE c WITH (format = 'PARQUET') AS SELECT 1 AS a WITH NO DATA").statements
    assert spark.endswith("AS SELECT * FROM (SELECT 1 AS a) AS `_no_data` LIMIT 0")
    (kept,) = planned("CREATE TABLE c WITH (format = 'PARQUET') AS SELECT 1 AS a WITH DATA").statements
    assert kept.endswith("AS SELECT 1 AS a")


def _iceberg_catalog(available: bool = True) -> planner.Catalog:
    """A catalog whose ``sales.orders`` is an Iceberg table and ``sales.rates`` a Hive table."""
    kinds = {("sales", "orders"): "ICEBERG", ("sales", "rates"): ""}
    return planner.Catalog(database="sales", table_type=lambda db, t: kinds.get((db, t), ""), iceberg=available)


def iceberg_planned(sql: str, available: bool = True) -> planner.Plan:
    return planner.plan(planner.parse(sql)[0], sql, "s3://results/tables/q1/", _iceberg_catalog(available))


def test_an_iceberg_tables_name_is_iceberg_catalogs_in_every_statement() -> None:
    query = iceberg_planned("WITH rates AS (SELECT 1 AS r) SELECT o.id FROM orders o JOIN rates ON true "
                            "JOIN sales.rates h ON true")
    assert "FROM glue_catalog.`sales`.`orders` AS o" in query.statements[0]
    assert "JOIN rates ON" in query.statements[0] and "JOIN sales.rates AS h" in query.statements[0]  # Hive, a CTE
    assert iceberg_planned('SELECT * FROM "sales"."orders$snapshots"').statements[0] == \
        "SELECT * FROM glue_catalog.`sales`.`orders`.`snapshots`"
    assert iceberg_planned("SELECT * FROM orders FOR VERSION AS OF 42").statements[0] == \
        "SELECT * FROM glue_catalog.`sales`.`orders` VERSION AS OF 42"
    assert "TIMESTAMP AS OF" in iceberg_planned(
        "SELECT * FROM orders FOR TIMESTAMP AS OF TIMESTAMP '2024-01-01 00:00:00 UTC'").statements[0]
    insert = iceberg_planned("INSERT INTO orders SELECT * FROM rates")
    assert insert.statements[0] == "INSERT INTO glue_catalog.`sales`.`orders` SELECT * FROM rates"
    assert insert.table == {"Name": "sales.orders", "Iceberg": True}
    assert iceberg_planned("DROP TABLE orders").statements[0] == "DROP TABLE glue_catalog.`sales`.`orders` PURGE"
    assert iceberg_planned("DROP TABLE rates").statements[0] == "DROP TABLE rates"  # a Hive table keeps its data
    merge = iceberg_planned('MERGE INTO orders t USING rates s ON t.id = s.id WHEN MATCHED THEN DELETE')
    assert merge.statements[0].startswith("MERGE INTO glue_catalog.`sales`.`orders` AS t USING rates AS s")
    assert iceberg_planned("SHOW CREATE TABLE orders").statements == ["SHOW CREATE TABLE glue_catalog.`sales`.`orders`"]
    assert iceberg_planned("SHOW COLUMNS IN orders").statements == ["SHOW COLUMNS IN glue_catalog.`sales`.`orders`"]
    assert iceberg_planned("SHOW CREATE TABLE rates").statements == ["SHOW CREATE TABLE rates AS SERDE"]
    assert iceberg_planned("DESCRIBE orders").statements == ["DESCRIBE glue_catalog.`sales`.`orders`"]
    altered = iceberg_planned("ALTER TABLE orders SET TBLPROPERTIES ('vacuum_max_snapshot_age_seconds'='259200', "
                              "'write_compression'='zstd')").statements[0]
    assert altered.startswith("ALTER TABLE glue_catalog.`sales`.`orders` SET TBLPROPERTIES (")
    for prop in ("'history.expire.max-snapshot-age-ms'='259200000'", "'write.parquet.compression-codec'='zstd'",
                 "'write.orc.compression-codec'='zstd'", "'vacuum_max_snapshot_age_seconds'='259200'"):
        assert prop in altered
    assert "format-version" not in altered and "write.format.default" not in altered
    with pytest.raises(planner.Refusal, match="Unsupported table property key: colour"):
        iceberg_planned("ALTER TABLE orders SET TBLPROPERTIES ('colour'='red')")
    assert "'colour'='red'" in iceberg_planned("ALTER TABLE rates SET TBLPROPERTIES ('colour'='red')").statements[0]
    with pytest.raises(planner.Refusal, match=r"\$partitions"):
        iceberg_planned("SHOW PARTITIONS orders")
    with pytest.raises(planner.Refusal, match="MSCK REPAIR TABLE is not supported for Iceberg"):
        iceberg_planned("MSCK REPAIR TABLE sales.orders")
    assert iceberg_planned("MSCK REPAIR TABLE rates").statements == ["MSCK REPAIR TABLE rates"]
    with pytest.raises(planner.Refusal, match="metadata tables are"):
        iceberg_planned('SELECT * FROM "orders$colours"')
    with pytest.raises(planner.Refusal, match="glueball jars fetch iceberg"):  # an installation without the jars
        iceberg_planned("SELECT * FROM orders", available=False)
    assert iceberg_planned("SELECT * FROM rates", available=False).statements == ["SELECT * FROM rates"]


def test_athenas_iceberg_ddl_becomes_icebergs_spark_ddl() -> None:
    created = iceberg_planned("CREATE TABLE IF NOT EXISTS events (id bigint, ts timestamp, tags array<struct<at: "
                              "timestamp>>) PARTITIONED BY (bucket(16, id), day(ts), truncate(4, id)) "
                              "LOCATION 's3://lake/events/' TBLPROPERTIES ('table_type'='ICEBERG', "
                              "'write_compression'='zstd', 'vacuum_max_snapshot_age_seconds'='60')")
    sql = created.statements[0]
    assert sql.startswith("CREATE TABLE IF NOT EXISTS glue_catalog.`sales`.`events` (`id` BIGINT, `ts` TIMESTAMP_NTZ, "
                          "`tags` ARRAY<STRUCT<`at`: TIMESTAMP_NTZ>>) USING iceberg PARTITIONED BY (bucket(16, `id`), "
                          "days(`ts`), truncate(4, `id`)) LOCATION 's3://lake/events/'")
    for prop in ("'write.parquet.compression-codec' = 'zstd'", "'history.expire.max-snapshot-age-ms' = '60000'",
                 "'format-version' = '2'", "'write.delete.mode' = 'merge-on-read'",
                 "'vacuum_max_snapshot_age_seconds' = '60'"):
        assert prop in sql
    ctas = iceberg_planned("CREATE TABLE recent WITH (table_type = 'ICEBERG', is_external = false, "
                           "partitioning = ARRAY['month(ts)', 'kind']) AS SELECT * FROM orders")
    assert ctas.kind == "ctas" and ctas.table["Iceberg"] is True and ctas.table["Name"] == "sales.recent"
    assert ctas.table["Location"] == "s3://results/tables/q1/"  # Athena's default: under the result location
    assert ctas.statements[0].startswith("CREATE TABLE glue_catalog.`sales`.`recent` USING iceberg PARTITIONED BY "
                                         "(months(`ts`), `kind`) LOCATION 's3://results/tables/q1/' TBLPROPERTIES")
    assert ctas.statements[0].endswith(" AS {select}")  # the engine's SELECT, its timestamps without a zone
    assert ctas.table["Select"] == "SELECT * FROM glue_catalog.`sales`.`orders`"
    with pytest.raises(planner.Refusal, match="glueball jars fetch iceberg"):
        iceberg_planned("CREATE TABLE x (a int) LOCATION 's3://x/' TBLPROPERTIES ('table_type'='ICEBERG')",
                        available=False)


def test_optimize_and_vacuum_are_icebergs_procedures_with_the_tables_athena_properties() -> None:
    from glueball.athena import iceberg

    optimize = iceberg_planned("OPTIMIZE orders REWRITE DATA USING BIN_PACK WHERE kind = 'a'")
    assert optimize.kind == "maintenance" and optimize.substatement_type == "OPTIMIZE"
    assert optimize.table == {"Verb": "OPTIMIZE", "Name": "sales.orders", "Where": "kind = 'a'"}
    calls = iceberg.procedure_calls("OPTIMIZE", "sales.orders", "kind = 'a'",
                                    {"optimize_rewrite_delete_file_threshold": "7"}, 0.0)
    assert calls == ["CALL glue_catalog.system.rewrite_data_files(table => 'sales.orders', strategy => 'binpack', "
                     "where => 'kind = \\'a\\'', options => map('min-input-files', '5', 'delete-file-threshold', '7', "
                     "'target-file-size-bytes', '536870912', 'min-file-size-bytes', '402653184', "
                     "'max-file-size-bytes', '966367641'))"]
    vacuum = iceberg.procedure_calls("VACUUM", "sales.orders", "", {"vacuum_max_snapshot_age_seconds": "86400",
                                                                    "vacuum_min_snapshots_to_keep": "3"}, 86400.0 * 2)
    assert vacuum == ["CALL glue_catalog.system.expire_snapshots(table => 'sales.orders', older_than => TIMESTAMP "
                      "'1970-01-02 00:00:00', retain_last => 3)",
                      "CALL glue_catalog.system.remove_orphan_files(table => 'sales.orders', older_than => TIMESTAMP "
                      "'1970-01-02 00:00:00')"]
    for sql in ("OPTIMIZE rates REWRITE DATA USING BIN_PACK", "VACUUM rates"):
        with pytest.raises(planner.Refusal, match="only supported for Iceberg tables"):
            iceberg_planned(sql)
    with pytest.raises(planner.Refusal, match="takes the form"):
        iceberg_planned("OPTIMIZE orders")
