"""Raw CSV reads type lazily: ApplyMapping over a pending frame equals ApplyMapping over the eagerly typed one."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest

from glueball.objects.locations import local_path
from glueball.runtime.dynamicframe import DynamicFrame
from glueball.runtime.errors import GlueRuntimeError

# every kind of column Glue's typing tells apart: longs (with padding, signs, blanks), longs and fractions,
# numbers and text (``1d`` and ``NaN`` cast to double but are text), text, timestamps and epoch seconds,
# booleans, only nulls; and one malformed line
CSV = (
    "i,f,m,t,ts,b,n,big\n"
    "1,1,10,emea,2026-01-01 00:00:00,true,,9223372036854775807\n"
    "007,2.5,abc,007x,1700000000,false,,5\n"
    " 12 ,1e3,7.5,amer,bad,1,,-9223372036854775808\n"
    "+5,7,1d,apac,2026-02-03T04:05:06Z,0,,\n"
    ",-0,NaN,,,x,,42\n"
    "1,2,3\n"
)
ALL = ("i", "f", "m", "t", "ts", "b", "n", "big")
# (target type, columns): longs beyond a timestamp's range and numbers to dates fail eagerly too
TARGETS = [("long", ALL), ("int", ALL), ("short", ALL), ("double", ALL), ("float", ALL), ("decimal(10,2)", ALL),
           ("timestamp", ALL[:-1]), ("boolean", ALL), ("string", ALL), ("date", ("t", "n"))]


@pytest.fixture
def prefix(glue_home: Path) -> str:
    return f"s3://lazy-typing/{uuid.uuid4().hex[:10]}"


def _read(glue_context: Any, prefix: str) -> DynamicFrame:
    frame: DynamicFrame = glue_context.create_dynamic_frame.from_options(
        "s3", {"paths": [prefix]}, format="csv", format_options={"withHeader": True})
    return frame


def _put(prefix: str, text: str = CSV) -> None:
    path = local_path(f"{prefix}/data.csv")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def _eager(frame: DynamicFrame) -> DynamicFrame:
    frame.toDF()  # needs the inferred schema: the typing pass runs
    assert frame.pending_typing is None
    return frame


def _same(lazy: DynamicFrame, eager: DynamicFrame) -> None:
    lazy_df, eager_df = lazy.toDF(), eager.toDF()
    assert lazy_df.schema == eager_df.schema
    assert [f.metadata for f in lazy_df.schema.fields] == [f.metadata for f in eager_df.schema.fields]
    # repr: NaN equals itself
    assert sorted(map(repr, lazy_df.collect())) == sorted(map(repr, eager_df.collect()))


def test_a_raw_csv_read_leaves_typing_pending_until_its_schema_is_needed(glue_context: Any, prefix: str) -> None:
    _put(prefix)
    frame = _read(glue_context, prefix)
    assert frame.pending_typing is not None
    assert frame.count() == 5
    assert frame.pending_typing is not None
    assert [f.name for f in frame.schema().fields] == ["i", "f", "m", "t", "ts", "b", "n", "big"]
    assert frame.pending_typing is None


@pytest.mark.parametrize(("target", "columns"), TARGETS)
def test_apply_mapping_with_explicit_types_equals_the_eager_result(glue_context: Any, prefix: str, target: str,
                                                                   columns: tuple[str, ...]) -> None:
    _put(prefix)
    mappings = [(c, "string", f"{c}_out", target) for c in columns]
    lazy_source = _read(glue_context, prefix)
    lazy = lazy_source.apply_mapping(mappings)
    eager = _eager(_read(glue_context, prefix)).apply_mapping(mappings)
    _same(lazy, eager)


def _jobs_of(glue_context: Any, group: str, work: Any) -> tuple[Any, int]:
    """``work()``'s result and how many Spark jobs it ran."""
    sc = glue_context.spark_session.sparkContext
    sc.setJobGroup(group, group)
    try:
        result = work()
    finally:
        sc.setLocalProperty("spark.jobGroup.id", None)
    return result, len(sc.statusTracker().getJobIdsForGroup(group))


def test_direct_targets_skip_the_typing_pass(glue_context: Any, prefix: str) -> None:
    _put(prefix)
    source = _read(glue_context, prefix)
    mapped, jobs = _jobs_of(glue_context, f"direct-{prefix}", lambda: source.apply_mapping(
        [("i", "long", "i", "long"), ("f", "double", "f", "double"), ("ts", "string", "at", "timestamp")]))
    assert jobs == 0  # no pass over the data
    assert source.pending_typing is not None  # the source frame was never typed
    _, jobs = _jobs_of(glue_context, f"string-{prefix}", lambda: source.apply_mapping(
        [("t", "string", "t", "string"), ("f", "string", "f", "string")]))
    assert jobs == 0  # each value becomes text from its own kind, whatever else its column holds
    _, jobs = _jobs_of(glue_context, f"date-{prefix}", lambda: source.apply_mapping([("t", "string", "t", "date")]))
    assert jobs > 0  # the kinds of column t: one aggregation (adaptive execution may run its stages as jobs)
    assert [r["i"] for r in mapped.toDF().orderBy("f").collect()] == [None, 1, 7, 5, 12]


def test_longs_among_fractions_stay_longs_in_a_choice_and_map_to_text_from_their_own_kind(
        glue_context: Any, prefix: str) -> None:
    _put(prefix)
    eager = _eager(_read(glue_context, prefix))
    df = eager.toDF()
    assert df.schema["f"].dataType.fieldNames() == ["double", "long"]
    assert df.schema["m"].dataType.fieldNames() == ["double", "long", "string"]
    assert df.schema["i"].dataType.simpleString() == "bigint"
    assert [(r["f"]["double"], r["f"]["long"]) for r in df.collect()] == [
        (None, 1), (2.5, None), (1000.0, None), (None, 7), (None, 0)]
    for frame in (eager, _read(glue_context, prefix)):
        mapped = frame.apply_mapping([("f", "string", "f", "string"), ("m", "string", "m", "string"),
                                      ("i", "string", "i", "string")]).toDF().collect()
        assert [r["f"] for r in mapped] == ["1", "2.5", "1000.0", "7", "0"]
        assert [r["m"] for r in mapped] == ["10", "abc", "7.5", "1d", "NaN"]
        assert [r["i"] for r in mapped] == ["1", "7", "12", "5", None]


def test_kept_types_nesting_missing_and_case_insensitive_sources_equal_the_eager_result(
        glue_context: Any, prefix: str) -> None:
    _put(prefix)
    mappings: list[tuple[str, ...]] = [("i", "out.i"), ("M", "string", "out.m", "double"), ("f", "f_kept"),
                                       ("missing", "string", "gone", "long"), ("t", "text", "string")]
    lazy = _read(glue_context, prefix).apply_mapping(mappings)
    eager = _eager(_read(glue_context, prefix)).apply_mapping(mappings)
    _same(lazy, eager)


def test_error_records_of_a_lazy_read_are_kept_without_typing(glue_context: Any, prefix: str) -> None:
    _put(prefix)
    source = _read(glue_context, prefix)
    mapped = source.apply_mapping([("i", "long", "i", "long")])
    assert mapped.stageErrorsCount() == 0
    assert mapped.errorsCount() == 1
    assert [e["error_input"] for e in mapped.errorsAsDynamicFrame().toDF().collect()] == ["1,2,3"]
    assert source.pending_typing is not None


def test_error_records_are_made_only_when_asked_for_and_once(glue_context: Any, prefix: str) -> None:
    from glueball.runtime.errors import LazyErrors

    _put(prefix)
    _put(f"{prefix}-right", "id,name\n1,one\nbad\n")
    left, right = _read(glue_context, prefix), _read(glue_context, f"{prefix}-right")
    read_errors = [left._stage_errors, right._stage_errors]
    assert all(isinstance(e, LazyErrors) and not e.built for e in read_errors)
    joined = left.apply_mapping([("i", "string", "i", "long")]).join(
        ["i"], ["id"], right.apply_mapping([("id", "string", "id", "long")]))
    assert not any(e.built for e in read_errors if isinstance(e, LazyErrors))
    assert joined.errorsCount() == 2 and joined.stageErrorsCount() == 0
    assert all(e.built for e in read_errors if isinstance(e, LazyErrors))
    assert sorted(r["error_input"] for r in joined.errorsAsDynamicFrame().toDF().collect()) == ["1,2,3", "bad"]


def test_total_threshold_after_a_lazy_read_still_counts_malformed_lines(glue_context: Any, prefix: str) -> None:
    from glueball.runtime.errors import ErrorThresholdExceeded

    _put(prefix, "a,b\n1,2\n3\n4\n")
    frame = _read(glue_context, prefix)
    with pytest.raises(ErrorThresholdExceeded, match="2 error records"):
        frame.apply_mapping([("a", "string", "a", "long")], totalThreshold=1)


def test_join_and_unmapped_write_of_lazy_frames_equal_the_eager_ones(glue_context: Any, prefix: str) -> None:
    _put(prefix)
    _put(f"{prefix}-right", "id,name\n1,one\n12,twelve\n")
    mappings = [("i", "string", "i", "long"), ("t", "string", "t", "string")]
    right_mappings = [("id", "string", "id", "long"), ("name", "string", "name", "string")]

    def joined(eager: bool) -> DynamicFrame:
        left = _read(glue_context, prefix)
        right = _read(glue_context, f"{prefix}-right")
        if eager:
            left, right = _eager(left), _eager(right)
        return left.apply_mapping(mappings).join(["i"], ["id"], right.apply_mapping(right_mappings))

    _same(joined(True), joined(False))
    written = []
    for eager in (False, True):
        out = f"{prefix}-out-{eager}"
        frame = _read(glue_context, prefix)
        glue_context.write_dynamic_frame.from_options(_eager(frame) if eager else frame, "s3", {"path": out},
                                                      format="parquet")
        df = glue_context.spark_session.read.parquet(str(local_path(out)))
        written.append((df.schema, sorted(map(repr, df.collect()))))
    assert written[0] == written[1]


TRICKY = ["1", "007", " 12 ", "\t5\t", "+5", "-0", "1.", ".5", "1e5", "+.5E-3", "1.e5", "1d", "1f", "0x10", "0x1p3",
          "NaN", "Infinity", "-inf", "1 2", "1-2", "--1", "e5", ".", "+", "", " ", "9223372036854775807",
          "9223372036854775808", "١٢", "1,5", "abc", None,
          # values the short ways of direct_cast see: control characters around digits, years and times (text
          # that reads as a timestamp, or a number that does), fractions a long's cast truncates, signs alone
          "\x015", "5\x01", "2026", "2026-01-01", "12:30", ":x", "T10:00:00", "1.99999999999999999999", "-1.5",
          "-0.0", "-", "99999999999999999999", "true", "t", "Yes", "0"]


def test_number_character_tests_agree_with_the_regex_definitions(spark: Any) -> None:
    from pyspark.sql import functions as F

    from glueball.runtime.io.csvtypes import DOUBLE_RE, LONG_RE, is_long, is_number

    df = spark.createDataFrame([(v,) for v in TRICKY], "v string")
    by_regex_long = F.coalesce(F.col("v").rlike(LONG_RE) & F.trim("v").try_cast("bigint").isNotNull(), F.lit(False))
    rows = df.select("v", is_number("v").alias("number"), F.coalesce(F.col("v").rlike(DOUBLE_RE), F.lit(False))
                     .alias("number_re"), is_long("v").alias("long"), by_regex_long.alias("long_re")).collect()
    assert [(r["v"], r["number"]) for r in rows] == [(r["v"], r["number_re"]) for r in rows]
    assert [(r["v"], r["long"]) for r in rows] == [(r["v"], r["long_re"]) for r in rows]


@pytest.mark.parametrize("target", ["long", "int", "double", "decimal(20,3)", "timestamp", "string", "float",
                                    "boolean"])
def test_tricky_values_map_as_the_eager_typing_maps_them(glue_context: Any, prefix: str, target: str) -> None:
    # (longs near the long range are beyond a timestamp's, eagerly as lazily)
    cells = [v for v in TRICKY if v is not None and "," not in v and not (target == "timestamp" and len(v) > 15)]
    # one column of everything, one of the numbers only, one of integers only
    _put(prefix, "a,b,c\n" + "".join(f'"{v}",{i}.5,{i}\n' for i, v in enumerate(cells)))
    mappings = [(c, "string", c, target) for c in "abc"]
    lazy = _read(glue_context, prefix).apply_mapping(mappings)
    _same(lazy, _eager(_read(glue_context, prefix)).apply_mapping(mappings))


# -- JSON --------------------------------------------------------------------------------------------------

# every kind a JSON value has, alone and mixed in one field: longs, fractions (2.0 parses as a decimal
# without fraction), integers beyond the long range, text (numbers, timestamps, booleans as text), booleans,
# JSON null and absent fields; a top-level array of records; a malformed line and a line that is no object
JSON_LINES = [
    '{"l": 1, "d": 2.5, "m": 10, "t": "emea", "ts": "2026-01-01 00:00:00", "b": true, "n": null, "big": 5}',
    '{"l": -7, "d": 2.0, "m": "abc", "t": "007", "ts": 1700000000, "b": false, "big": 92233720368547758070}',
    '[{"l": 12, "d": 1e3, "m": 7.5, "t": "amer", "ts": "bad", "b": "true", "big": -3}, {"l": 0, "m": true}]',
    '{"l": null, "d": -0.0, "m": " 12 ", "t": "", "ts": "2026-02-03T04:05:06Z", "b": 1, "big": 1.5}',
    '{"l": 3, "d": 4',
    '"just text"',
]
JSON_FIELDS = ("l", "d", "m", "t", "ts", "b", "n", "big", "missing")
JSON_TARGETS = ["long", "int", "short", "double", "float", "decimal(10,2)", "timestamp", "boolean", "string",
                "date"]


def _put_json(prefix: str, lines: list[str] = JSON_LINES) -> None:
    path = local_path(f"{prefix}/data.json")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")


def _read_json(glue_context: Any, prefix: str) -> DynamicFrame:
    frame: DynamicFrame = glue_context.create_dynamic_frame.from_options("s3", {"paths": [prefix]}, format="json")
    return frame


def test_a_json_read_leaves_typing_pending_and_counts_records_and_errors_without_it(
        glue_context: Any, prefix: str) -> None:
    _put_json(prefix)
    frame = _read_json(glue_context, prefix)
    assert frame.pending_typing is not None
    assert frame.count() == 5
    assert frame.errorsCount() == 2
    assert frame.pending_typing is not None
    assert "typing pending" in repr(frame)
    assert sorted(f.name for f in frame.schema().fields) == ["b", "big", "d", "l", "m", "n", "t", "ts"]
    assert "columns=['b', 'big'" in repr(frame)
    assert frame.pending_typing is None


# the same records with the array line's two records on lines of their own: no line holds an array, so the
# mapped fields are read by Spark's JSON reader (``JsonFields``) rather than from parsed records
JSON_OBJECT_LINES = [*JSON_LINES[:2], '{"l": 12, "d": 1e3, "m": 7.5, "t": "amer", "ts": "bad", "b": "true", "big": -3}',
                     '{"l": 0, "m": true}', *JSON_LINES[3:]]


@pytest.mark.parametrize("lines", ["with an array line", "objects only"])
@pytest.mark.parametrize("target", JSON_TARGETS)
def test_json_apply_mapping_with_explicit_types_equals_the_eager_result(glue_context: Any, prefix: str,
                                                                        target: str, lines: str) -> None:
    _put_json(prefix, JSON_LINES if lines == "with an array line" else JSON_OBJECT_LINES)
    reader = _read_json(glue_context, prefix).pending_typing
    assert reader is not None and reader.fields is not None
    assert (reader.fields.kinds() is None) == (lines == "with an array line")
    # mapping the eagerly typed field fails where Spark has no cast: booleans to timestamps, numbers to dates
    # (lazily those values are null); longs beyond a timestamp's range fail both ways
    castable = {"timestamp": ("l", "d", "t", "ts", "n", "missing"), "date": ("t", "n", "missing")}
    fields = castable.get(target, JSON_FIELDS)
    mappings = [(f, "string", f"{f}_out", target) for f in fields]
    lazy = _read_json(glue_context, prefix).apply_mapping(mappings)
    eager = _eager(_read_json(glue_context, prefix)).apply_mapping(mappings)
    _same(lazy, eager)


def test_json_direct_mapping_only_finds_the_keys_and_matches_other_cases_of_names(glue_context: Any,
                                                                                  prefix: str) -> None:
    from glueball.runtime.io import rawkinds

    _put_json(prefix, ['{"OrderId": 1, "Amount": "2.5"}', '{"orderid": 2, "amount": 3}'])
    source = _read_json(glue_context, prefix)
    mapped, jobs = _jobs_of(glue_context, f"json-{prefix}", lambda: source.apply_mapping(
        [("orderid", "long", "id", "long"), ("AMOUNT", "string", "amount", "double")]))
    # one scan for the keys and their kinds, nothing typed; keys that differ only in case keep the mapping on
    # the parsed records
    assert jobs == 1
    assert source.pending_typing is not None and source.pending_typing.fields is not None
    assert source.pending_typing.fields.kinds() == {"OrderId": rawkinds.LONG, "Amount": rawkinds.STRING,
                                                    "orderid": rawkinds.LONG, "amount": rawkinds.LONG}
    _, again = _jobs_of(glue_context, f"json-again-{prefix}",
                        lambda: source.apply_mapping([("amount", "string", "a", "double")]))
    assert again == 0  # the keys are kept: a second mapping of the same read finds nothing again
    rows = sorted((r["id"], r["amount"]) for r in mapped.toDF().collect())
    assert rows == [(1, 2.5), (2, 3.0)]
    strict = _read_json(glue_context, prefix).apply_mapping([("orderid", "orderid", "long")], case_sensitive=True)
    assert sorted(r["orderid"] for r in strict.toDF().collect() if r["orderid"] is not None) == [2]


def test_json_kept_types_and_nested_sources_type_the_frame_first(glue_context: Any, prefix: str) -> None:
    _put_json(prefix, ['{"a": {"b": 1}, "c": [1, 2]}', '{"a": {"b": "x"}, "c": []}'])
    for mappings in ([("a.b", "string", "ab", "string")], [("c", "c")], [("a", "string", "a", "struct")]):
        lazy = _read_json(glue_context, prefix).apply_mapping(mappings)
        _same(lazy, _eager(_read_json(glue_context, prefix)).apply_mapping(mappings))


def test_json_objects_mapped_to_string_become_their_json_text(glue_context: Any, prefix: str) -> None:
    _put_json(prefix, ['{"o": {"x": 1, "y": "z"}, "k": 1}', '{"o": [1, 2], "k": 2}', '{"o": 3, "k": 3}'])
    mapped = _read_json(glue_context, prefix).apply_mapping([("k", "long", "k", "long"), ("o", "string", "o", "string"),
                                                            ("o", "string", "n", "long")])
    rows = sorted((r["k"], r["o"], r["n"]) for r in mapped.toDF().collect())
    assert rows == [(1, '{"x":1,"y":"z"}', None), (2, "[1,2]", None), (3, "3", 3)]


def test_json_partitioned_catalog_read_maps_partition_columns_and_record_fields(glue_context: Any,
                                                                               prefix: str) -> None:
    _put_json(f"{prefix}/year=2025", ['{"id": 1, "year": "shadowed"}'])
    _put_json(f"{prefix}/year=2026", ['{"id": 2}'])
    client = glue_context.glue_client
    db = f"lazy_{uuid.uuid4().hex[:8]}"
    client.create_database(DatabaseInput={"Name": db})
    client.create_table(DatabaseName=db, TableInput={
        "Name": "events", "PartitionKeys": [{"Name": "year", "Type": "int"}],
        "Parameters": {"classification": "json"},
        "StorageDescriptor": {"Location": prefix, "Columns": [{"Name": "id", "Type": "bigint"}]}})
    client.batch_create_partition(DatabaseName=db, TableName="events", PartitionInputList=[
        {"Values": [y], "StorageDescriptor": {"Location": f"{prefix}/year={y}"}} for y in ("2025", "2026")])
    mappings = [("id", "string", "id", "long"), ("year", "int", "year", "string")]

    def read() -> DynamicFrame:
        frame: DynamicFrame = glue_context.create_dynamic_frame.from_catalog(database=db, table_name="events")
        return frame

    lazy_source = read()
    assert lazy_source.pending_typing is not None
    _same(lazy_source.apply_mapping(mappings), _eager(read()).apply_mapping(mappings))


# a mapping reads the parsed records the eager typing reads: non-numbers, single quotes, leading zeros,
# trailing commas, raw tabs in strings and duplicate keys are malformed both ways, text after the object is
# ignored both ways; leading blanks, JSON null, arrays of records, and records without a mapped field
STRICTNESS_LINES = ['{"l": NaN, "t": "a"}', "{'l': 1}", '{"l": 01}', '{"l": 1,}', '{"l": 2} trailing',
                    '{"t": "x\ty"}', '{"l": 3, "t": null}', '[{"l": 4}, 5]', '  {"l": 6, "t": 7}',
                    '{"l": 8, "l": 9}', '{"t": "only t"}']


def test_json_mapped_fields_equal_the_eager_result_and_its_error_records(glue_context: Any, prefix: str) -> None:
    _put_json(prefix, STRICTNESS_LINES)
    mappings = [("l", "string", "l", "long"), ("t", "string", "t", "string")]
    source = _read_json(glue_context, prefix)
    assert source.pending_typing is not None
    lazy = source.apply_mapping(mappings)
    eager = _eager(_read_json(glue_context, prefix)).apply_mapping(mappings)
    _same(lazy, eager)
    assert sorted(((r["l"], r["t"]) for r in lazy.toDF().collect()), key=repr) == [
        (2, None), (3, None), (4, None), (6, "7"), (None, "only t")]
    assert lazy.errorsCount() == eager.errorsCount() == 7


@pytest.mark.parametrize("duplicate", [False, True])
def test_json_lines_read_by_sparks_reader_equal_the_eager_result_and_its_error_records(
        glue_context: Any, prefix: str, duplicate: bool) -> None:
    # no array line: the reader's path, unless a record has a duplicate key (the records path then maps as the
    # eager typing does)
    lines = [line for line in STRICTNESS_LINES if not line.startswith("[") and (duplicate or '"l": 8' not in line)]
    _put_json(prefix, lines)
    mappings = [("l", "string", "l", "long"), ("t", "string", "t", "string")]
    source = _read_json(glue_context, prefix)
    assert source.pending_typing is not None and source.pending_typing.fields is not None
    assert (source.pending_typing.fields.kinds() is None) == duplicate
    lazy = source.apply_mapping(mappings)
    eager = _eager(_read_json(glue_context, prefix)).apply_mapping(mappings)
    _same(lazy, eager)
    assert lazy.errorsCount() == eager.errorsCount() == (6 if duplicate else 5)


def test_json_keys_of_one_other_case_are_read_by_the_reader_as_the_eager_mapping_reads_them(
        glue_context: Any, prefix: str) -> None:
    from glueball.runtime.io import rawkinds

    _put_json(prefix, ['{"OrderId": 1, "Note": "a"}', '{"OrderId": "2", "Note": 3}', '{"Note": null}'])
    mappings = [("orderid", "string", "id", "long"), ("note", "string", "note", "string")]
    source = _read_json(glue_context, prefix)
    assert source.pending_typing is not None and source.pending_typing.fields is not None
    assert source.pending_typing.fields.kinds() == {"OrderId": rawkinds.LONG | rawkinds.STRING,
                                                    "Note": rawkinds.STRING | rawkinds.LONG | rawkinds.NULL}
    _same(source.apply_mapping(mappings), _eager(_read_json(glue_context, prefix)).apply_mapping(mappings))
    strict = _read_json(glue_context, prefix).apply_mapping(mappings, case_sensitive=True)
    assert [(r["id"], r["note"]) for r in strict.toDF().collect()] == [(None, None)] * 3


def test_json_a_case_sensitive_mapping_reads_only_the_exact_key(glue_context: Any, prefix: str) -> None:
    _put_json(prefix, ['{"l": 1}', '{"L": 2}'])
    mapped = _read_json(glue_context, prefix).apply_mapping([("l", "string", "l", "long")], case_sensitive=True)
    assert sorted((r["l"] for r in mapped.toDF().collect()), key=str) == [1, None]


# -- resolveChoice over pending CSV columns ---------------------------------------------------------------

CAST_TARGETS = [("long", ALL), ("int", ALL), ("double", ALL), ("float", ALL), ("decimal(10,2)", ALL),
                ("timestamp", ALL[:-1]), ("boolean", ALL), ("string", ALL)]


@pytest.mark.parametrize(("target", "columns"), CAST_TARGETS)
def test_resolve_choice_casts_of_pending_columns_equal_the_eager_result(glue_context: Any, prefix: str,
                                                                        target: str,
                                                                        columns: tuple[str, ...]) -> None:
    _put(prefix)
    specs = [(c, f"cast:{target}") for c in columns]
    source = _read(glue_context, prefix)
    lazy, jobs = _jobs_of(glue_context, f"cast-{target}-{prefix}", lambda: source.resolveChoice(specs=specs))
    assert jobs == 0
    assert lazy.pending_typing is not None
    _same(lazy, _eager(_read(glue_context, prefix)).resolveChoice(specs=specs))


def test_a_partial_cast_leaves_the_other_columns_pending_and_types_them_as_the_eager_read(
        glue_context: Any, prefix: str) -> None:
    _put(prefix)
    specs = [("I", "cast:long"), ("ts", "cast:timestamp")]
    lazy = _read(glue_context, prefix).resolveChoice(specs=specs)
    assert lazy.pending_typing is not None
    assert set(lazy.pending_typing.columns) == {"f", "m", "t", "b", "n", "big"}
    eager = _eager(_read(glue_context, prefix)).resolveChoice(specs=specs)
    _same(lazy, eager)
    mappings = [("m", "string", "m", "string"), ("i", "string", "i", "double")]
    _same(_read(glue_context, prefix).resolveChoice(specs=specs).apply_mapping(mappings),
          _eager(_read(glue_context, prefix)).resolveChoice(specs=specs).apply_mapping(mappings))


def test_resolve_choice_match_catalog_casts_pending_columns_to_the_declared_types(glue_context: Any,
                                                                                 prefix: str) -> None:
    _put(prefix)
    client = glue_context.glue_client
    db = f"lazy_{uuid.uuid4().hex[:8]}"
    client.create_database(DatabaseInput={"Name": db})
    client.create_table(DatabaseName=db, TableInput={"Name": "declared", "StorageDescriptor": {
        "Location": prefix, "Columns": [{"Name": "i", "Type": "bigint"}, {"Name": "m", "Type": "double"},
                                        {"Name": "ts", "Type": "timestamp"}]}})
    specs = [("i", "match_catalog"), ("m", "match_catalog"), ("ts", "match_catalog")]
    source = _read(glue_context, prefix)
    lazy = source.resolveChoice(specs=specs, database=db, table_name="declared")
    assert lazy.pending_typing is not None
    eager = _eager(_read(glue_context, prefix)).resolveChoice(specs=specs, database=db, table_name="declared")
    _same(lazy, eager)
    assert dict(lazy.toDF().dtypes)["m"] == "double"
    with pytest.raises(GlueRuntimeError, match="has no column 'nope'"):
        _read(glue_context, prefix).resolveChoice(specs=[("nope", "match_catalog")], database=db,
                                                  table_name="declared")


def test_resolve_choice_over_a_pending_frame_rejects_what_the_eager_frame_rejects(glue_context: Any,
                                                                                 prefix: str) -> None:
    _put(prefix)
    with pytest.raises(GlueRuntimeError, match="Unknown resolveChoice action"):
        _read(glue_context, prefix).resolveChoice(specs=[("i", "widen")])
    with pytest.raises(GlueRuntimeError, match="no field 'zz'"):
        _read(glue_context, prefix).resolveChoice(specs=[("zz", "cast:long")])
    # actions the lazy path does not serve type the frame first, with the same result
    specs = [("m", "make_cols"), ("t", "cast:string")]
    _same(_read(glue_context, prefix).resolveChoice(specs=specs),
          _eager(_read(glue_context, prefix)).resolveChoice(specs=specs))


def test_json_inference_settles_top_level_conflicts_of_atomic_kinds_in_one_pass(glue_context: Any) -> None:
    from glueball.runtime.inference import infer
    from glueball.runtime.jsonrecords import json_records

    spark = glue_context.spark_session
    lines = ['{"a": 1, "b": 1.5, "c": "x", "o": {"p": 1}}', '{"a": 2.5, "b": 2, "c": 3, "o": {"p": 2}}',
             '{"a": null, "c": true}']
    parsed = json_records(spark.createDataFrame([(line,) for line in lines], "value string"))
    node, passes, _ = infer(parsed.docs, parsed.branches)
    assert passes == 1
    assert node is not None
    assert {name: sorted(child.members) if child.kind == "choice" else child.name
            for name, child in node.fields.items() if name != "o"} == {
        "a": ["double", "long"], "b": ["double", "long"], "c": ["boolean", "long", "string"]}
    # a conflict between an object and a number still needs the second pass, for the object's schema
    conflict = json_records(spark.createDataFrame([('{"a": {"x": 1}}',), ('{"a": 2}',)], "value string"))
    node, passes, _ = infer(conflict.docs, conflict.branches)
    assert passes == 2
    assert node is not None and sorted(node.fields["a"].members) == ["long", "struct"]


# -- with_frame_schema ----------------------------------------------------------------------------------------------


def _schema(*fields: tuple[str, Any]) -> Any:
    from awsglue.gluetypes import Field, StructType

    return StructType([Field(name, data_type) for name, data_type in fields])


def test_a_given_schema_types_a_pending_csv_read_with_no_pass_as_the_mapping_to_its_types_does(
        glue_context: Any, prefix: str) -> None:
    from awsglue.gluetypes import ChoiceType, DoubleType, LongType, StringType, TimestampType

    _put(prefix)
    columns = [("i", LongType()), ("f", DoubleType()), ("m", StringType()), ("t", StringType()),
               ("ts", TimestampType()), ("b", StringType()), ("n", LongType()), ("big", StringType())]
    schema = _schema(*columns, ("extra", LongType()))
    source = _read(glue_context, prefix)
    given, jobs = _jobs_of(glue_context, f"schema-{prefix}", lambda: source.with_frame_schema(schema))
    assert jobs == 0  # no pass over the data: the types are given
    assert given.schema() == schema
    mappings = [(name, "string", name, t.typeName()) for name, t in columns]
    expected = _eager(_read(glue_context, prefix)).apply_mapping(mappings).toDF().collect()
    assert sorted(map(repr, given.toDF().drop("extra").collect())) == sorted(map(repr, expected))
    assert {r["extra"] for r in given.toDF().collect()} == {None}
    # a choice (or any type a mapping cannot name) comes from the typed frame, as the data typed it
    choice = ChoiceType([DoubleType(), LongType()])
    with_choice = _schema(*[(n, choice if n == "f" else t) for n, t in columns])
    chosen = _read(glue_context, prefix).with_frame_schema(with_choice)
    assert chosen.schema().getField("f").dataType == choice
    assert sorted(r["f"]["long"] for r in chosen.toDF().collect() if r["f"]["long"] is not None) == [0, 1, 7]


def test_a_given_schema_types_json_fields_and_typed_frames(glue_context: Any, prefix: str) -> None:
    from awsglue.gluetypes import DoubleType, LongType, StringType

    _put_json(prefix, ['{"id": 1, "v": "2.5"}', '{"id": "2", "v": 3}', 'not json'])
    schema = _schema(("id", LongType()), ("v", DoubleType()), ("note", StringType()))
    given = _read_json(glue_context, prefix).with_frame_schema(schema)
    assert given.schema() == schema
    assert sorted((r["id"], r["v"], r["note"]) for r in given.toDF().collect()) == [(1, 2.5, None), (2, 3.0, None)]
    assert given.errorsCount() == 1
    typed = _eager(_read_json(glue_context, prefix)).with_frame_schema(schema)
    assert sorted((r["id"], r["v"]) for r in typed.toDF().collect()) == [(1, 2.5), (2, 3.0)]


def test_a_given_schema_must_hold_every_field_of_the_data(glue_context: Any, prefix: str) -> None:
    from awsglue.gluetypes import LongType

    _put(prefix)
    with pytest.raises(GlueRuntimeError, match=r"must contain every field of the data; it lacks \['f', 'm'"):
        _read(glue_context, prefix).with_frame_schema(_schema(("i", LongType())))
    _put_json(f"{prefix}-json", ['{"id": 1, "v": 2}'])
    with pytest.raises(GlueRuntimeError, match=r"it lacks \['v'\]"):
        _read_json(glue_context, f"{prefix}-json").with_frame_schema(_schema(("id", LongType())))
    with pytest.raises(GlueRuntimeError, match="needs a StructType schema"):
        _read(glue_context, prefix).with_frame_schema("not a schema")
