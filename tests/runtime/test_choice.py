"""Choice types from mixed-type JSON, resolveChoice and unbox, on real Spark."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from glueball.runtime import gluetypes as gt
from glueball.runtime.dynamicframe import CHOICE_METADATA, DynamicFrame
from glueball.runtime.errors import GlueRuntimeError
from glueball.runtime.jsonrecords import frame_from_json_texts
from glueball.runtime.ops.choice import ResolveOption
from glueball.runtime.transforms.choice import ResolveChoice, Unbox

PRICES: list[Any] = [3, "12", None, 7, "abc", "4.5", 10]


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n")
    return path


def _frame(glue_context: Any, spark: Any, path: Path, json_path: str | None = None,
           whole_file: bool = False) -> DynamicFrame:
    from pyspark.sql import functions as F

    if whole_file:
        texts = spark.read.text(str(path), wholetext=True)
    else:
        texts = spark.read.text(str(path))
    texts = texts.select("value", F.col("_metadata.file_path").alias("source"))
    records, errors = frame_from_json_texts(glue_context, texts, json_path)
    return DynamicFrame(records, glue_context, "x", stage_errors=errors)


@pytest.fixture(scope="module")
def prices(glue_context: Any, spark: Any, tmp_path_factory: pytest.TempPathFactory) -> DynamicFrame:
    lines = [json.dumps({"id": i, "price": p}) for i, p in enumerate(PRICES)]
    return _frame(glue_context, spark, _write(tmp_path_factory.mktemp("prices") / "p.json", lines))


def _by_id(frame: DynamicFrame) -> dict[int, Any]:
    return {row["id"]: row for row in frame.toDF().collect()}


def _as_long(value: Any) -> int | None:
    if isinstance(value, int):
        return value
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def test_mixed_types_make_a_choice(prices: DynamicFrame) -> None:
    price = prices.schema().getField("price").dataType
    assert isinstance(price, gt.ChoiceType)
    assert set(price.choices) == {"long", "string"}
    assert prices.toDF().schema["price"].metadata.get(CHOICE_METADATA) is True
    assert "|-- price: choice\n|    |-- long\n|    |-- string" in prices.schema().pretty()
    rows = _by_id(prices)
    for i, p in enumerate(PRICES):
        if p is None:
            assert rows[i]["price"] is None
        else:
            assert rows[i]["price"]["long"] == (p if isinstance(p, int) else None)
            assert rows[i]["price"]["string"] == (p if isinstance(p, str) else None)


def test_cast_long_and_string(prices: DynamicFrame) -> None:
    as_long = _by_id(prices.resolveChoice(specs=[("price", "cast:long")]))
    as_string = _by_id(prices.resolveChoice(specs=[("price", "cast:string")]))
    for i, p in enumerate(PRICES):
        assert as_long[i]["price"] == _as_long(p)
        assert as_string[i]["price"] == (None if p is None else str(p))
    frame = prices.resolveChoice(specs=[("price", "cast:long")])
    assert isinstance(frame.schema().getField("price").dataType, gt.LongType)


def test_project(prices: DynamicFrame) -> None:
    longs = _by_id(prices.resolveChoice(specs=[("price", "project:long")]))
    strings = _by_id(prices.resolveChoice(specs=[("price", "project:string")]))
    for i, p in enumerate(PRICES):
        assert longs[i]["price"] == (p if isinstance(p, int) else None)
        assert strings[i]["price"] == (p if isinstance(p, str) else None)


def test_make_cols_and_make_struct(prices: DynamicFrame) -> None:
    cols = prices.resolveChoice(specs=[("price", "make_cols")])
    assert cols.toDF().columns == ["id", "price_long", "price_string"]
    structs = prices.resolveChoice(choice="make_struct")
    assert isinstance(structs.schema().getField("price").dataType, gt.StructType)
    cols_rows, struct_rows = _by_id(cols), _by_id(structs)
    for i, p in enumerate(PRICES):
        assert cols_rows[i]["price_long"] == (p if isinstance(p, int) else None)
        assert cols_rows[i]["price_string"] == (p if isinstance(p, str) else None)
        expected = None if p is None else (p if isinstance(p, int) else None, p if isinstance(p, str) else None)
        got = struct_rows[i]["price"]
        assert (None if got is None else (got["long"], got["string"])) == expected


def test_transform_class_and_resolve_option(prices: DynamicFrame) -> None:
    frame = ResolveChoice.apply(frame=prices, choice="cast:double")
    rows = _by_id(frame)
    for i, p in enumerate(PRICES):
        value = _as_long(p) if not isinstance(p, str) or p.isdigit() else (4.5 if p == "4.5" else None)
        assert rows[i]["price"] == value
    df = prices.toDF([ResolveOption("price", "project:long")])
    assert dict(df.dtypes)["price"] == "bigint"
    assert ResolveChoice.describe()["transform"]["name"] == "ResolveChoice"


def test_errors_for_bad_requests(prices: DynamicFrame) -> None:
    with pytest.raises(GlueRuntimeError, match="specs or choice"):
        prices.resolveChoice()
    with pytest.raises(GlueRuntimeError, match="nope.*available columns: id, price"):
        prices.resolveChoice(specs=[("nope", "cast:long")])
    with pytest.raises(GlueRuntimeError, match="Unknown resolveChoice action"):
        prices.resolveChoice(specs=[("price", "explode")])
    with pytest.raises(GlueRuntimeError, match="database and table_name"):
        prices.resolveChoice(choice="match_catalog")


def test_nested_choices_in_structs_and_arrays(glue_context: Any, spark: Any, tmp_path: Path) -> None:
    records = [
        {"id": 1, "a": {"b": 1, "c": "x"}, "items": [{"p": 1}, {"p": "2"}], "tags": [1, "t"]},
        {"id": 2, "a": {"b": "two"}, "items": [{"p": 2.5}], "tags": []},
        {"id": 3, "a": None, "items": None},
    ]
    frame = _frame(glue_context, spark, _write(tmp_path / "n.json", [json.dumps(r) for r in records]))
    schema = frame.schema()
    a = schema.getField("a").dataType
    assert isinstance(a, gt.StructType) and isinstance(a.getField("b").dataType, gt.ChoiceType)
    items = schema.getField("items").dataType
    assert isinstance(items, gt.ArrayType) and isinstance(items.elementType, gt.StructType)
    p_type = items.elementType.getField("p").dataType
    assert isinstance(p_type, gt.ChoiceType) and set(p_type.choices) == {"double", "long", "string"}
    tags = schema.getField("tags").dataType
    assert isinstance(tags, gt.ArrayType) and isinstance(tags.elementType, gt.ChoiceType)

    resolved = frame.resolveChoice(specs=[("a.b", "make_cols"), ("items[].p", "cast:double"),
                                          ("tags[]", "cast:string")])
    rows = _by_id(resolved)
    for record in records:
        row = rows[record["id"]]
        if record["a"] is None:
            assert row["a"] is None
        else:
            b = record["a"]["b"]
            assert row["a"]["b_long"] == (b if isinstance(b, int) else None)
            assert row["a"]["b_string"] == (b if isinstance(b, str) else None)
            assert row["a"]["c"] == record["a"].get("c")
        expected_items = None if record["items"] is None else [float(i["p"]) for i in record["items"]]
        assert (None if row["items"] is None else [i["p"] for i in row["items"]]) == expected_items
        expected_tags = None if record.get("tags") is None else [str(t) for t in record["tags"]]
        assert row["tags"] == expected_tags
    after = resolved.schema()
    assert not isinstance(after.getField("tags").dataType.elementType, gt.ChoiceType)
    assert resolved.toDF().schema["tags"].metadata == {}


def test_choice_applies_to_nested_choices(glue_context: Any, spark: Any, tmp_path: Path) -> None:
    lines = [json.dumps({"a": {"b": 1}, "c": 1}), json.dumps({"a": {"b": "x"}, "c": "y"})]
    frame = _frame(glue_context, spark, _write(tmp_path / "c.json", lines))
    resolved = frame.resolveChoice(specs=[("c", "project:string")], choice="cast:string")
    rows = resolved.toDF().collect()
    assert sorted((r["a"]["b"], r["c"]) for r in rows) == sorted([("1", None), ("x", "y")])


def test_json_path_and_top_level_arrays(glue_context: Any, spark: Any, tmp_path: Path) -> None:
    doc = {"meta": 1, "records": [{"k": 1, "v": "a"}, {"k": 2, "v": 3}, 5]}
    frame = _frame(glue_context, spark, _write(tmp_path / "d.json", [json.dumps(doc, indent=2)]),
                   json_path="$.records[*]", whole_file=True)
    rows = sorted(frame.toDF().collect(), key=lambda r: r["k"])
    assert [r["k"] for r in rows] == [1, 2]
    assert isinstance(frame.schema().getField("v").dataType, gt.ChoiceType)
    assert frame.errorsCount() == 1
    assert frame.errorsAsDynamicFrame().toDF().first()["error_input"] == "5"

    arrays = [json.dumps([{"k": 1}, {"k": 2}]), json.dumps({"k": 3})]
    frame = _frame(glue_context, spark, _write(tmp_path / "a.json", arrays))
    assert sorted(r["k"] for r in frame.toDF().collect()) == [1, 2, 3]
    assert frame.errorsCount() == 0


def test_malformed_lines_become_error_records(glue_context: Any, spark: Any, tmp_path: Path) -> None:
    bad = ['{"id": 1, "price": ', "just text", "42"]
    lines = [json.dumps({"id": 10, "price": 1}), bad[0], "", bad[1], json.dumps({"id": 11, "price": "x"}), bad[2]]
    path = _write(tmp_path / "m.json", lines)
    frame = _frame(glue_context, spark, path)
    assert sorted(r["id"] for r in frame.toDF().collect()) == [10, 11]
    assert frame.errorsCount() == len(bad)
    assert frame.stageErrorsCount() == len(bad)
    errors = frame.errorsAsDynamicFrame().toDF().collect()
    assert sorted(e["error_input"] for e in errors) == sorted(bad)
    assert {e["error_stage"] for e in errors} == {"read"}
    assert all(e["error_source"].endswith("m.json") for e in errors)
    assert frame.resolveChoice(choice="make_cols").errorsCount() == len(bad)


def test_match_catalog(glue_context: Any, prices: DynamicFrame) -> None:
    client = glue_context.glue_client
    client.create_database(DatabaseInput={"Name": "choice_db"})
    client.create_table(DatabaseName="choice_db", TableInput={
        "Name": "prices", "StorageDescriptor": {"Columns": [
            {"Name": "id", "Type": "bigint"}, {"Name": "price", "Type": "int"}]}})
    frame = prices.resolveChoice(choice="match_catalog", database="choice_db", table_name="prices")
    assert dict(frame.toDF().dtypes)["price"] == "int"
    rows = _by_id(frame)
    for i, p in enumerate(PRICES):
        assert rows[i]["price"] == _as_long(p)
    with pytest.raises(GlueRuntimeError, match="cannot read table"):
        prices.resolveChoice(choice="match_catalog", database="choice_db", table_name="missing")


def test_unbox_json_and_csv(glue_context: Any, spark: Any) -> None:
    payloads = ['{"a": 1, "b": "x"}', '{"a": "one"}', "not json", None]
    df = spark.createDataFrame([(i, p, f"{i},v{i},z") for i, p in enumerate(payloads)],
                               "id long, payload string, line string")
    frame = DynamicFrame(df, glue_context, "u")
    unboxed = Unbox.apply(frame=frame, path="payload", format="json")
    payload_type = unboxed.schema().getField("payload").dataType
    assert isinstance(payload_type, gt.StructType)
    assert isinstance(payload_type.getField("a").dataType, gt.ChoiceType)
    rows = _by_id(unboxed)
    assert sorted(rows) == [0, 1, 3]
    assert rows[0]["payload"]["a"]["long"] == 1 and rows[0]["payload"]["b"] == "x"
    assert rows[1]["payload"]["a"]["string"] == "one"
    assert rows[3]["payload"] is None
    assert unboxed.stageErrorsCount() == 1
    assert json.loads(unboxed.errorsAsDynamicFrame().toDF().first()["error_input"])["payload"] == "not json"

    csv = frame.unbox("line", "csv")
    line_rows = _by_id(csv)
    for i in range(len(payloads)):
        assert (line_rows[i]["line"]["col0"], line_rows[i]["line"]["col1"]) == (str(i), f"v{i}")
    with pytest.raises(GlueRuntimeError, match="not a string"):
        frame.unbox("id", "json")


def test_numbers_with_zero_fractions_are_doubles_and_huge_integers_decimals(
        glue_context: Any, spark: Any, tmp_path: Path) -> None:
    path = _write(tmp_path / "n.json", ['{"x": 1.5, "y": 7, "z": 12345678901234567890}',
                                        '{"x": -3.0, "y": 8, "z": 1}'])
    frame = _frame(glue_context, spark, path)
    types = dict(frame.toDF().dtypes)
    assert types["x"] == "double"
    assert types["y"] == "bigint"
    assert frame.schema().getField("z").dataType.typeName() == "choice"
    values = sorted(r.x for r in frame.toDF().collect())
    assert values == [-3.0, 1.5]
