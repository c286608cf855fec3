"""Athena's SQL answers as Trino answers it where Spark's functions of the same name answer otherwise
(glueball.athena.trino): each statement is planned as a query would be (with the tables' column types the catalog
gives) and run on Spark with the engine's settings, and its values and types compared with Trino's documented ones.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pytest

from glueball.athena import plan as planner
from glueball.athena.engine_driver import ENGINE_CONF

pytestmark = pytest.mark.spark

TYPES = {"t": [("x", "int"), ("big", "bigint"), ("r", "double"), ("d", "date"), ("ts", "timestamp"),
               ("s", "string"), ("j", "string"), ("arr", "array<int>")],
         "v": [("x", "int")]}
CATALOG = planner.Catalog(lambda database, table: TYPES.get(table) if database == "global_temp" else None,
                          "global_temp")


@pytest.fixture(scope="module")
def spark() -> Iterator[Any]:
    from tests.helpers import shared_spark

    session = shared_spark()
    before = {key: session.conf.get(key, None) for key in ENGINE_CONF}
    for key in ("spark.sql.ansi.enabled", "spark.sql.timeType.enabled"):
        session.conf.set(key, ENGINE_CONF[key])
    session.sql("SELECT 5 AS x, CAST(9007199254740993 AS BIGINT) AS big, 2.5D AS r, DATE '2024-01-01' AS d, "
                "TIMESTAMP '2024-01-01 10:00:00' AS ts, 'hello' AS s, '{\"a\":{\"b\":5},\"c\":\"x\",\"n\":5}' AS j, "
                "ARRAY(1, 2) AS arr").createOrReplaceGlobalTempView("t")
    session.sql("SELECT * FROM VALUES (1), (3), (CAST(NULL AS INT)), (2) AS v(x)").createOrReplaceGlobalTempView("v")
    yield session
    session.catalog.dropGlobalTempView("t")
    session.catalog.dropGlobalTempView("v")
    for key, value in before.items():
        if value is None:
            session.conf.unset(key)
        else:
            session.conf.set(key, value)


def answer(spark: Any, sql: str, parameters: list[str] | None = None) -> tuple[tuple[Any, ...], list[str]]:
    statement = planner.bind(planner.parse(sql)[0], parameters or [])
    frame = spark.sql(planner.plan(statement, sql, None, CATALOG).statements[-1])
    (row,) = frame.collect()
    return tuple(row), [field.dataType.simpleString() for field in frame.schema.fields]


@pytest.mark.parametrize(
    ("sql", "values", "types"),
    [
        # integers divide as integers, toward zero; a bigint takes part: bigint, exactly
        ("SELECT 5 / 2, -5 / 2, x / 2, (x + 1) / 2, x * 2 / 3, big / 1, r / 2 FROM global_temp.t",
         (2, -2, 2, 3, 3, 9007199254740993, 1.25), ["int", "int", "int", "int", "int", "bigint", "double"]),
        ("SELECT count(*) AS n FROM global_temp.t WHERE x / 2 = 2", (1,), ["bigint"]),
        ("SELECT length(s) / 2 FROM global_temp.t", (2,), ["int"]),  # Trino: bigint (length's), the same value
        # date_add: a timestamp keeps its time and takes hours; a date stays a date
        ("SELECT date_add('minute', 30, TIMESTAMP '2024-01-01 00:00:00'), date_add('hour', 1, ts), "
         "date_add('day', 1, ts), date_add('day', 1, d), date_add('month', 1, DATE '2024-01-31') FROM global_temp.t",
         (dt.datetime(2024, 1, 1, 0, 30), dt.datetime(2024, 1, 1, 11), dt.datetime(2024, 1, 2, 10),
          dt.date(2024, 1, 2), dt.date(2024, 2, 29)), ["timestamp", "timestamp", "timestamp", "date", "date"]),
        # DECIMAL 'x' has the literal's digits; DECIMAL alone is decimal(38,0)
        ("SELECT DECIMAL '12.34', DECIMAL '-0.05', CAST('1.5' AS DECIMAL)",
         (Decimal("12.34"), Decimal("-0.05"), Decimal("2")), ["decimal(4,2)", "decimal(2,2)", "decimal(38,0)"]),
        # a real number cast to an integer rounds, half away from zero
        ("SELECT CAST(2.5 AS integer), CAST(-2.7E0 AS integer), CAST(r AS bigint), CAST(x AS integer) "
         "FROM global_temp.t", (3, -3, 3, 5), ["int", "int", "bigint", "int"]),
        ("SELECT CAST('abcdef' AS varchar(3)), CAST('ab' AS char(4)), substr('hello', 0), substr('hello', 2), "
         "substr(s, 0, 2), split('a,b,c', ',', 2) FROM global_temp.t",
         ("abc", "ab  ", "", "ello", "", ["a", "b,c"]), ["string"] * 5 + ["array<string>"]),
        ("SELECT day_of_week(DATE '2024-01-01'), dow(DATE '2024-01-07')", (1, 7), ["bigint", "bigint"]),
        ("SELECT regexp_extract('abc', 'x'), regexp_extract('abc', 'b'), regexp_extract('abc', 'a(b)', 1)",
         (None, "b", "b"), ["string"] * 3),
        ("SELECT json_extract_scalar(j, '$.a'), json_extract_scalar(j, '$.c'), json_extract_scalar(j, '$.n'), "
         "json_extract_scalar('[1, [2]]', '$[1]') FROM global_temp.t", (None, "x", "5", None), ["string"] * 4),
        ("SELECT greatest(1, NULL), least(3, 2), greatest(x, 9) FROM global_temp.t", (None, 2, 9), ["int"] * 3),
        ("SELECT to_hex(sha256(to_utf8('a'))), to_hex(sha1(to_utf8('a'))), repeat('x', 2)",
         ("CA978112CA1BBDCAFAC231B39A23DC4DA786EFF8147C4E72B9807785AFEE48BB",
          "86F7E437FAA5A7FCE15D1DDCB9EAEAEA377667B8", ["x", "x"]), ["string", "string", "array<string>"]),
        # array_agg keeps NULLs (last in its order, as Trino orders), follows ORDER BY, is NULL over no rows
        ("SELECT array_agg(x ORDER BY x DESC), array_agg(x ORDER BY x), array_agg(x) FROM global_temp.v",
         ([3, 2, 1, None], [1, 2, 3, None], [1, 3, None, 2]), ["array<int>"] * 3),
        ("SELECT array_agg(x) FROM global_temp.v WHERE x > 100", (None,), ["array<int>"]),
        ("SELECT if(x > 9, 1), if(x > 1, 1), CASE WHEN NULL THEN 1 ELSE 2 END FROM global_temp.t", (None, 1, 2),
         ["int"] * 3),
        ("SELECT day_of_week(DATE '2024-03-13') - day_of_week(DATE '2024-03-11'), dow(DATE '2024-03-17') * 10, "
         "date_add('day', 1 - day_of_week(DATE '2024-03-13'), DATE '2024-03-13')", (2, 70, dt.date(2024, 3, 11)),
         ["int", "int", "date"]),
        ("SELECT extract(dow FROM DATE '2024-03-12'), extract(day_of_week FROM DATE '2024-03-17') + 0", (2, 7),
         ["bigint", "int"]),
        ("SELECT CASE 1 WHEN NULL THEN 'n' ELSE 'e' END, CASE WHEN NULL THEN 'n' ELSE 'e' END", ("e", "e"),
         ["string", "string"]),
        # inside an expression the int stays: Spark's date_add, element_at, array_repeat refuse a bigint (ANSI)
        ("SELECT date_add('day', length(s), d), element_at(arr, cardinality(arr)), repeat('x', day_of_week(d)), "
         "substr(s, strpos(s, 'l') + 1) FROM global_temp.t", (dt.date(2024, 1, 6), 2, ["x"], "lo"),
         ["date", "int", "array<string>", "string"]),
        ("SELECT length('abc'), strpos('abc', 'b'), cardinality(ARRAY[1]), year(DATE '2024-01-01'), "
         "row_number() OVER (ORDER BY 1)", (3, 2, 1, 2024, 1), ["bigint"] * 5),
        # a number with a point is a double, as Athena parses it (awswrangler and PyAthena read 1.2 as a float)
        ("SELECT 1.2 AS regular, -0.33, 1.5 * x, ARRAY[0.5], CAST(1.5 AS DECIMAL(3,1)), 1.5E0 FROM global_temp.t",
         (1.2, -0.33, 7.5, [0.5], Decimal("1.5"), 1.5), ["double"] * 3 + ["array<double>", "decimal(3,1)", "double"]),
        ("SELECT col FROM (VALUES (0.33), (NULL)) AS t (col) WHERE col IS NOT NULL", (0.33,), ["double"]),
        # nan(), infinity() and their tests; is_nan of NULL is NULL
        ("SELECT is_nan(nan()), infinity(), -infinity(), is_finite(1.5), is_finite(infinity()), "
         "is_infinite(-infinity()), is_nan(CAST(NULL AS double)), is_finite(nan())",
         (True, float("inf"), float("-inf"), True, False, True, None, False), ["boolean"] + ["double"] * 2
         + ["boolean"] * 5),
        # a json value is its JSON text, as Trino prints it: a string quoted, an object's keys sorted, no spaces
        ("SELECT json_extract(j, '$.c'), json_extract(j, '$.a'), json_extract(j, '$.zz'), CAST('HELLO' AS JSON), "
         "CAST(5 AS JSON), CAST(MAP(ARRAY['b', 'a'], ARRAY[1, 2]) AS JSON), CAST(ARRAY[1, NULL] AS JSON), "
         "json_format(json_parse('{\"b\": 1, \"a\": [1, 2]}')), CAST(NULL AS JSON), "
         "CAST(json_extract(j, '$.a.b') AS integer), json_array_length(json_parse('[1, 2]')) FROM global_temp.t",
         ('"x"', '{"b":5}', None, '"HELLO"', "5", '{"a":2,"b":1}', "[1,null]", '{"a":[1,2],"b":1}', None, 5, 2),
         ["string"] * 9 + ["int", "int"]),
        # a result's timestamp with time zone prints its time and zone, as Trino prints it
        ("SELECT CAST(TIMESTAMP '2024-01-01 10:00:00' AS timestamp with time zone) AS a, "
         "TIMESTAMP '2024-01-01 10:00:00' AT TIME ZONE 'America/New_York' AS b, from_unixtime(0) AS c, "
         "from_unixtime(0) < TIMESTAMP '1970-01-02 00:00:00' AS inside, CAST(from_unixtime(0) AS varchar) AS text",
         ("2024-01-01 10:00:00.000 UTC", "2024-01-01 05:00:00.000 America/New_York", "1970-01-01 00:00:00.000 UTC",
          True, "1970-01-01 00:00:00.000 UTC"), ["string"] * 3 + ["boolean", "string"]),
        # ROW(a, b)'s fields are field0, field1 ... as Athena names them (PyAthena's tests against Athena)
        ("SELECT ROW('John', 30), ARRAY[ROW(ROW(1), 2)], CAST(ROW(1, NULL) AS ROW(n INTEGER, s VARCHAR))",
         (("John", 30), [((1,), 2)], (1, None)),
         ["struct<field0:string,field1:int>", "array<struct<field0:struct<field0:int>,field1:int>>",
          "struct<n:int,s:string>"]),
        # typeof names Trino's types
        ("SELECT typeof(current_timestamp), typeof(x), typeof(s), typeof(big), typeof(r), typeof(ts), "
         "typeof(CAST(1 AS real)) FROM global_temp.t",
         ("timestamp(3) with time zone", "integer", "varchar", "bigint", "double", "timestamp(3)", "real"),
         ["string"] * 7),
        # Trino's time: time(3) unless more digits are written; a timestamp's time of day; typeof names its precision
        ("SELECT TIME '12:34:56', CAST('12:34:56.5' AS time), CAST(ts AS time), TIME '01:02:03.123456', "
         "CAST(NULL AS time(3)), typeof(TIME '12:00:00'), typeof(TIMESTAMP '2024-01-01 12:34:56.123456'), "
         "typeof(CAST(ts AS timestamp(6))) FROM global_temp.t",
         (dt.time(12, 34, 56), dt.time(12, 34, 56, 500000), dt.time(10), dt.time(1, 2, 3, 123456), None, "time(3)",
          "timestamp(6)", "timestamp(6)"), ["time(3)", "time(3)", "time(3)", "time(6)", "time(3)"] + ["string"] * 3),
        # random(n) is an integer from 0 up to n of n's type; random(m, n) from m
        ("SELECT random(1), random(5, 6), random(CAST(3 AS bigint)) < 3, random() < 1",
         (0, 5, True, True), ["int", "int", "boolean", "boolean"]),
        # to_unixtime is a double with the second's fraction (Spark's unix_timestamp: whole seconds, a bigint)
        ("SELECT to_unixtime(TIMESTAMP '2024-01-01 10:00:00.5'), to_unixtime(CAST(NULL AS timestamp))",
         (1704103200.5, None), ["double", "double"]),
    ],
)
def test_trinos_answers(spark: Any, sql: str, values: tuple[Any, ...], types: list[str]) -> None:
    assert answer(spark, sql) == (values, types)


def test_unnest_with_ordinality_counts_from_one(spark: Any) -> None:
    sql = "SELECT e, o FROM global_temp.t CROSS JOIN UNNEST(arr) WITH ORDINALITY AS u(e, o) ORDER BY o"
    frame = spark.sql(planner.plan(planner.parse(sql)[0], sql, None, CATALOG).statements[-1])
    assert [tuple(r) for r in frame.collect()] == [(1, 1), (2, 2)]
    assert frame.schema["o"].dataType.simpleString() == "bigint"
    mapped = "SELECT k, v, o FROM UNNEST(MAP(ARRAY['a', 'b'], ARRAY[1, 2])) WITH ORDINALITY AS t(k, v, o)"
    assert [tuple(r) for r in spark.sql(planner.plan(planner.parse(mapped)[0], mapped, None).statements[-1])
            .collect()] == [("a", 1, 1), ("b", 2, 2)]
    alone = "SELECT i, o FROM UNNEST(ARRAY[10, 20]) WITH ORDINALITY AS t(i, o)"
    assert [tuple(r) for r in spark.sql(planner.plan(planner.parse(alone)[0], alone, None).statements[-1]).collect()] \
        == [(10, 1), (20, 2)]


def test_a_decimal_parameter_keeps_its_digits(spark: Any) -> None:
    # PyAthena and awswrangler send a Decimal as DECIMAL '12.34' (ExecutionParameters or their own formatting)
    assert answer(spark, "SELECT ? * 2", ["DECIMAL '12.34'"])[0] == (Decimal("24.68"),)
    assert answer(spark, "SELECT count(*) FROM global_temp.t WHERE r = DECIMAL '2.5'")[0] == (1,)


def test_without_the_catalogs_types_a_column_division_is_left_to_spark() -> None:
    # the types decide: with no columns known, only the literals' division is an integer one
    sql = "SELECT x / 2, 7 / 2 FROM global_temp.t"
    written = planner.plan(planner.parse(sql)[0], sql, None).statements[-1]
    assert "x / 2" in written and "7 DIV 2" in written


def test_through_the_api_a_json_value_is_typed_json_and_printed_as_json(athena_server: Any) -> None:
    from tests.athena.helpers import client, rows, succeeded

    athena = client(athena_server)
    done = succeeded(athena, "SELECT CAST('HELLO ATHENA' AS JSON) AS j, json_extract('{\"name\": \"Susan\"}', "
                             "'$.name') AS name, json_format(CAST(ARRAY[1, 2] AS JSON)) AS text")
    result = athena.get_query_results(QueryExecutionId=done["QueryExecutionId"])["ResultSet"]
    assert [c["Type"] for c in result["ResultSetMetadata"]["ColumnInfo"]] == ["json", "json", "varchar"]
    assert rows(athena, done["QueryExecutionId"])[1] == ['"HELLO ATHENA"', '"Susan"', "[1,2]"]
    # awswrangler's own case: json values through a WITH query, and an extracted array keeps its keys' order
    through = succeeded(athena, "WITH dataset AS (SELECT CAST(12345 AS JSON) AS some_int, '{\"projects\": "
                                "[{\"name\":\"p1\", \"completed\":false}]}' AS blob) "
                                "SELECT some_int, json_extract(blob, '$.projects') AS projects FROM dataset")
    result = athena.get_query_results(QueryExecutionId=through["QueryExecutionId"])["ResultSet"]
    assert [c["Type"] for c in result["ResultSetMetadata"]["ColumnInfo"]] == ["json", "json"]
    assert rows(athena, through["QueryExecutionId"])[1] == ["12345", '[{"name":"p1","completed":false}]']
    starred = succeeded(athena, "WITH d AS (SELECT CAST(MAP(ARRAY['b', 'a'], ARRAY[1, 2]) AS JSON) AS m, 1 AS n) "
                                "SELECT * FROM d")
    result = athena.get_query_results(QueryExecutionId=starred["QueryExecutionId"])["ResultSet"]
    assert [c["Type"] for c in result["ResultSetMetadata"]["ColumnInfo"]] == ["json", "integer"]


def test_through_the_api_a_zoned_timestamp_is_typed_and_read_as_one(athena_server: Any) -> None:
    import datetime

    from pyathena import connect

    from tests.athena.helpers import client, rows, succeeded

    athena = client(athena_server)
    done = succeeded(athena, "SELECT current_timestamp AS now, TIMESTAMP '2024-01-01 10:00:00' AS plain")
    result = athena.get_query_results(QueryExecutionId=done["QueryExecutionId"])["ResultSet"]
    assert [(c["Type"], c["Precision"]) for c in result["ResultSetMetadata"]["ColumnInfo"]] == [
        ("timestamp with time zone", 3), ("timestamp", 3)]
    assert rows(athena, done["QueryExecutionId"])[1][0].endswith(" UTC")
    cursor = connect(s3_staging_dir="s3://athena-results/pyathena/", region_name="us-east-1",
                     endpoint_url=athena_server.endpoint, aws_access_key_id="AKIDATHENA",
                     aws_secret_access_key="secret").cursor()
    (now,) = cursor.execute("SELECT current_timestamp").fetchone()
    assert now.tzinfo is not None and abs((datetime.datetime.now(datetime.UTC) - now).total_seconds()) < 600


def test_a_timestamps_precision_is_the_results_where_trino_keeps_more_than_milliseconds() -> None:
    sql = ("SELECT TIMESTAMP '2024-01-01 12:34:56.123456' AS lit, CAST(ts AS timestamp(6)) AS six, "
           "CAST(ts AS timestamp(3)) AS three, ts, TIMESTAMP '2024-01-01 12:34:56' FROM global_temp.t")
    assert planner.plan(planner.parse(sql)[0], sql, None, CATALOG).precise == {"lit": 6, "six": 6}


def test_through_the_api_timestamps_and_times_print_their_precision(athena_server: Any) -> None:
    from tests.athena.helpers import client, rows, succeeded

    athena = client(athena_server)
    done = succeeded(athena, "SELECT TIMESTAMP '2024-01-01 12:34:56.123456' AS six, CAST(TIMESTAMP "
                             "'2024-01-01 12:34:56.123456' AS timestamp(3)) AS three, "
                             "TIMESTAMP '2024-01-01 12:34:56.5' AS one, TIME '12:34:56' AS t, "
                             "CAST('01:02:03.123456' AS time(6)) AS t6")
    result = athena.get_query_results(QueryExecutionId=done["QueryExecutionId"])["ResultSet"]
    assert [(c["Type"], c["Precision"]) for c in result["ResultSetMetadata"]["ColumnInfo"]] == [
        ("timestamp", 6), ("timestamp", 3), ("timestamp", 3), ("time", 3), ("time", 6)]
    assert rows(athena, done["QueryExecutionId"])[1] == [
        "2024-01-01 12:34:56.123456", "2024-01-01 12:34:56.123", "2024-01-01 12:34:56.500", "12:34:56.000",
        "01:02:03.123456"]
    # PyAthena reads them as a datetime with its microseconds and a time
    from pyathena import connect

    cursor = connect(s3_staging_dir="s3://athena-results/pyathena/", region_name="us-east-1",
                     endpoint_url=athena_server.endpoint, aws_access_key_id="AKIDATHENA",
                     aws_secret_access_key="secret").cursor()
    assert cursor.execute("SELECT TIMESTAMP '2024-01-01 12:34:56.123456', TIME '12:34:56'").fetchone() == (
        dt.datetime(2024, 1, 1, 12, 34, 56, 123456), dt.time(12, 34, 56))


def test_random_with_a_bound_not_above_its_start_fails(spark: Any) -> None:
    with pytest.raises(Exception, match="bound must be greater than the start"):
        answer(spark, "SELECT random(0)")


def test_a_ctas_with_a_column_named_twice_is_refused_in_athenas_words() -> None:
    # awswrangler tells its users to rename the columns when the message says so
    sql = "CREATE TABLE c WITH (external_location = 's3://lake/c/') AS SELECT 1 AS foo, 2 AS FOO"
    with pytest.raises(planner.Refusal, match="Column name 'foo' specified more than once"):
        planner.plan(planner.parse(sql)[0], sql, None)


def test_a_ctas_column_without_a_name_is_refused_as_athena_refuses_it() -> None:
    sql = "CREATE TABLE c WITH (external_location = 's3://lake/c/') AS SELECT 1 AS a, 'x', count(*)"
    with pytest.raises(planner.Refusal, match="Column name not specified at position 2"):
        planner.plan(planner.parse(sql)[0], sql, None)


def test_through_the_api_a_catalog_tables_integer_column_divides_as_integers(athena_server: Any) -> None:
    from tests.athena.helpers import client, select, succeeded
    from tests.helpers import unique

    athena = client(athena_server)
    table = unique("halves")
    succeeded(athena, f"CREATE TABLE default.{table} WITH (format = 'PARQUET', external_location = "
                      f"'s3://lake/{table}/') AS SELECT * FROM (VALUES (5, 7.5E0), (-5, 1.0E0)) AS t(n, r)",
              QueryExecutionContext={"Database": "default"})
    found = select(athena, f"SELECT n / 2 AS half, CAST(r AS integer) AS rounded, date_add('hour', 1, "
                           f"TIMESTAMP '2024-01-01 00:00:00') AS later FROM {table} ORDER BY n",
                   QueryExecutionContext={"Database": "default"})
    assert found == [["half", "rounded", "later"], ["-2", "1", "2024-01-01 01:00:00.000"],
                     ["2", "8", "2024-01-01 01:00:00.000"]]


def test_a_function_neither_engine_has_is_named_as_athena_names_it(athena_server: Any) -> None:
    from tests.athena.helpers import client, run

    failed = run(client(athena_server), "SELECT histogram_of_nothing(1)",
                 QueryExecutionContext={"Database": "default"})
    assert failed["Status"]["State"] == "FAILED"
    assert failed["Status"]["StateChangeReason"] == "FUNCTION_NOT_FOUND: Function 'histogram_of_nothing' not registered"
    assert failed["Status"]["AthenaError"]["ErrorCategory"] == 2


def test_the_results_column_names_are_as_written_when_the_types_are_read(spark: Any) -> None:
    sql = 'SELECT x AS MyId, CAST(r AS integer) AS "Rounded", x / 2, s FROM global_temp.t'
    frame = spark.sql(planner.plan(planner.parse(sql)[0], sql, None, CATALOG).statements[-1])
    assert frame.columns == ["MyId", "Rounded", "_col2", "s"]
