"""The ten Glue Studio visual transforms as hand-written scripts use them: ``import gs_concat`` (and the
others) attaches each to DataFrame and DynamicFrame; results and refusals on the shared Spark session."""

from __future__ import annotations

import json
import re
import uuid
from typing import Any

import pytest

import gs_array_to_cols  # noqa: F401, I001 - each import attaches the transform, as in Studio's scripts
import gs_concat  # noqa: F401
import gs_derived  # noqa: F401
import gs_explode  # noqa: F401
import gs_lookup  # noqa: F401
import gs_now  # noqa: F401
import gs_pivot  # noqa: F401
import gs_repartition  # noqa: F401
import gs_split  # noqa: F401
import gs_unpivot  # noqa: F401
from glueball.objects.locations import local_path
from glueball.runtime.dynamicframe import DynamicFrame
from glueball.runtime.visual import VisualTransformError
from glueball.runtime.visual.gs_functions import match_pairs, spark_datetime_pattern


@pytest.fixture()
def trades(spark: Any) -> Any:
    return spark.createDataFrame(
        [(1, "AMZN MAR 15 24 $120 PUT", "AMZN", 2.5, "EDGX", [1, 2], [3]),
         (2, "MSFT JUN 1 25 $300 CALL", "MSFT", 10.0, "MIAX", [], [4, 5]),
         (3, None, "AMZN", 1.0, "EDGX", [6], [])],
        "order_id long, instrument string, symbol string, price double, exchange string, sold array<long>, "
        "bought array<long>")


def _rows(df: Any, *columns: str) -> list[tuple[Any, ...]]:
    return sorted((tuple(r) for r in df.select(*columns).collect()), key=repr)


def test_split_array_to_cols_and_concat(trades: Any) -> None:
    split = trades.gs_split(colName="instrument", pattern=" ", newColName="tokens")
    cols = split.gs_array_to_cols(colName="tokens", colList="month, day,year", indexes="2,3,4")
    joined = cols.gs_concat(colName="expiry", colList=["day", "month", "year"], spacer="-")
    assert _rows(joined, "order_id", "expiry") == [(1, "15-MAR-24"), (2, "1-JUN-25"), (3, None)]
    filled = cols.gs_concat(colName="expiry", colList="day,month", spacer="/", nullValue="?")
    assert _rows(filled, "order_id", "expiry") == [(1, "15/MAR"), (2, "1/JUN"), (3, "?/?")]
    in_order = split.gs_array_to_cols(colName="tokens", colList="a,b")
    assert _rows(in_order, "order_id", "a", "b") == [(1, "AMZN", "MAR"), (2, "MSFT", "JUN"), (3, None, None)]
    replaced = trades.gs_split(colName="instrument", pattern="\\s+")
    assert replaced.schema["instrument"].dataType.simpleString() == "array<string>"


def test_unpivot_explode_and_pivot(trades: Any) -> None:
    fills = trades.gs_unpivot(unpivotColName="action", unpivotValueColName="contracts", colList=["sold", "bought"])
    assert fills.count() == 6
    exploded = fills.gs_explode(colName="contracts", newCol="contracts")
    assert _rows(exploded, "order_id", "action", "contracts") == [
        (1, "bought", 3), (1, "sold", 1), (1, "sold", 2), (2, "bought", 4), (2, "bought", 5), (3, "sold", 6)]
    kept = fills.gs_explode(colName="contracts", newCol="each", outer=True)
    assert kept.count() == 8 and "contracts" in kept.columns  # empty lists keep a row with a null
    summary = exploded.select("symbol", "action", "contracts").gs_pivot(aggCol="contracts", aggFunction="sum",
                                                                        colList=["action"])
    assert summary.columns == ["symbol", "bought", "sold"]
    assert _rows(summary, "symbol", "bought", "sold") == [("AMZN", 3, 9), ("MSFT", 9, None)]
    mean = exploded.select("symbol", "action", "contracts").gs_pivot(aggCol="contracts", aggFunction="mean",
                                                                     colList="action")
    assert _rows(mean, "symbol", "sold") == [("AMZN", 3.0), ("MSFT", None)]


def test_explode_a_map(spark: Any) -> None:
    df = spark.createDataFrame([(1, {"a": 1, "b": 2})], "id int, m map<string,int>")
    assert _rows(df.gs_explode(colName="m", newCol="entry"), "id", "entry_key", "entry_value") == [
        (1, "a", 1), (1, "b", 2)]


def test_now_derived_and_repartition(trades: Any) -> None:
    stamped = trades.gs_now(colName="at")
    assert stamped.schema["at"].dataType.simpleString() == "timestamp"
    assert stamped.where("at IS NULL").count() == 0
    text = trades.gs_now(colName="day", dateFormat="%Y-%m-%d")
    days = {r.day for r in text.collect()}
    assert len(days) == 1 and re.fullmatch(r"\d{4}-\d{2}-\d{2}", days.pop())
    assert spark_datetime_pattern("%Y%m%d %H:%M:%S") == "yyyyMMdd HH:mm:ss"
    assert spark_datetime_pattern("yyyyMMddHHmmss") == "yyyyMMddHHmmss"
    derived = trades.gs_derived(colName="total", expr="price * size(bought)")
    assert _rows(derived, "order_id", "total") == [(1, 2.5), (2, 20.0), (3, 0.0)]
    assert trades.gs_repartition(numPartitionsStr="3").rdd.getNumPartitions() == 3
    balanced = trades.gs_repartition()
    assert balanced.rdd.getNumPartitions() == trades.sparkSession.sparkContext.defaultParallelism


def test_on_a_dynamic_frame(glue_context: Any, trades: Any) -> None:
    frame = DynamicFrame.fromDF(trades, glue_context, "trades")
    result = (frame.gs_split(colName="instrument", pattern=" ", newColName="tokens")
              .gs_array_to_cols(colName="tokens", colList="ticker")
              .gs_derived(colName="double_price", expr="price * 2")
              .gs_repartition(numPartitionsStr="2"))
    assert isinstance(result, DynamicFrame) and result.glue_ctx is glue_context
    assert _rows(result.toDF(), "order_id", "ticker", "double_price") == [
        (1, "AMZN", 5.0), (2, "MSFT", 20.0), (3, None, 2.0)]
    assert result.getNumPartitions() == 2


def test_lookup_against_a_catalog_table(glue_context: Any, trades: Any) -> None:
    db = f"venues_{uuid.uuid4().hex[:8]}"
    client = glue_context.glue_client
    client.create_database(DatabaseInput={"Name": db})
    location = f"s3://lookup-tables/{db}/exchanges/"
    folder = local_path(location)
    folder.mkdir(parents=True)
    (folder / "x.json").write_text(json.dumps({"code": "EDGX", "name": "Cboe EDGX", "city": "Chicago"}) + "\n")
    client.create_table(DatabaseName=db, TableInput={
        "Name": "exchanges", "Parameters": {"classification": "json"},
        "StorageDescriptor": {"Location": location, "Columns": [{"Name": "code", "Type": "string"},
                                                                {"Name": "name", "Type": "string"},
                                                                {"Name": "city", "Type": "string"}]}})
    frame = DynamicFrame.fromDF(trades, glue_context, "trades")
    looked = frame.gs_lookup(lookupTable=f"{db}.exchanges", keyColumns="exchange=code", columnsToTake="name, city")
    assert isinstance(looked, DynamicFrame)
    assert _rows(looked.toDF(), "order_id", "name", "city") == [
        (1, "Cboe EDGX", "Chicago"), (2, None, None), (3, "Cboe EDGX", "Chicago")]
    assert looked.toDF().columns == [*trades.columns, "name", "city"]
    on_df = trades.gs_lookup(lookupTable=f"{db}.exchanges", keyColumns="exchange=code", columnsToTake="city")
    assert _rows(on_df, "order_id", "city") == [(1, "Chicago"), (2, None), (3, "Chicago")]
    with pytest.raises(VisualTransformError, match="has no column 'venue'"):
        frame.gs_lookup(lookupTable=f"{db}.exchanges", keyColumns="exchange=venue", columnsToTake="city")
    with pytest.raises(VisualTransformError, match="columnsToTake names 'country'"):
        frame.gs_lookup(lookupTable=f"{db}.exchanges", keyColumns="exchange=code", columnsToTake="country")
    with pytest.raises(VisualTransformError, match="database.table"):
        frame.gs_lookup(lookupTable="exchanges", keyColumns="exchange=code", columnsToTake="city")
    assert match_pairs("user_id=id, region") == [("user_id", "id"), ("region", "region")]


@pytest.mark.parametrize(("call", "message"), [
    (lambda df: df.gs_concat(colName="x", colList="nope"), "colList names column 'nope'"),
    (lambda df: df.gs_concat(colName="x", colList=""), "colList names no column"),
    (lambda df: df.gs_split(colName="instrument", pattern="("), "is not a regular expression"),
    (lambda df: df.gs_array_to_cols(colName="symbol", colList="a"), "is string, not an array"),
    (lambda df: df.gs_array_to_cols(colName="sold", colList="a,b", indexes="1"), "1 indexes for 2 columns"),
    (lambda df: df.gs_array_to_cols(colName="sold", colList="a", indexes="0"), "indexes start at 1"),
    (lambda df: df.gs_array_to_cols(colName="sold", colList="a", indexes="x"), "must be whole numbers"),
    (lambda df: df.gs_now(colName="t", dateFormat="%Q"), "cannot translate"),
    (lambda df: df.gs_pivot(aggCol="price", aggFunction="median-ish", colList="symbol"), "aggFunction"),
    (lambda df: df.gs_unpivot(unpivotColName="k", unpivotValueColName="v", colList=["price", "symbol"]),
     "different types"),
    (lambda df: df.gs_explode(colName="symbol"), "not an array or a map"),
    (lambda df: df.gs_derived(colName="x", expr="no_such_column + 1"), "is not valid Spark SQL"),
    (lambda df: df.gs_derived(colName="x", expr="1 +* 2"), "is not valid Spark SQL"),
    (lambda df: df.gs_repartition(numPartitionsStr="many"), "must be a whole number"),
    (lambda df: df.gs_repartition(numPartitionsStr="0"), "at least 1"),
])
def test_refusals_name_the_transform_and_value(trades: Any, call: Any, message: str) -> None:
    with pytest.raises(VisualTransformError, match=message):
        call(trades)


def test_pii_detection(spark: Any) -> None:
    from glueball.runtime.pii_entities import PiiDetectionError
    from glueball.runtime.visual.pii import detect_pii

    df = spark.createDataFrame([(1, "mail ada@example.com now", "10.0.0.1"), (2, "nothing here", "host"),
                                (3, "call 202-555-0143", "192.168.1.20")], "id int, text string, ip string")
    audit = detect_pii(df, "RowAudit", ["EMAIL", "PHONE_NUMBER", "IP_ADDRESS"])
    found = {r.id: r.DetectedEntities for r in audit.collect()}
    assert found == {1: {"text": ["EMAIL"], "ip": ["IP_ADDRESS"]}, 2: {}, 3: {"text": ["PHONE_NUMBER"],
                                                                              "ip": ["IP_ADDRESS"]}}
    masked = {r.id: r.text for r in detect_pii(df, "RowMasking", ["EMAIL"], mask_value="***").collect()}
    assert masked == {1: "mail *** now", 2: "nothing here", 3: "call 202-555-0143"}
    hashed = {r.id: r.text for r in detect_pii(df, "RowHashing", ["USA_SNN", "EMAIL"]).collect()}
    assert len(hashed[1]) == 64 and hashed[2] == "nothing here"
    columns = detect_pii(df, "ColumnMasking", ["IP_ADDRESS"], threshold_fraction=0.5).collect()
    assert {r.ip for r in columns} == {"*******"} and {r.text for r in columns} == {r.text for r in df.collect()}
    with pytest.raises(PiiDetectionError, match="entity type PASSPORT is not one glueball detects"):
        detect_pii(df, "RowAudit", ["PASSPORT"])
    with pytest.raises(PiiDetectionError, match="PiiType ColumnAudit is not supported"):
        detect_pii(df, "ColumnAudit", ["EMAIL"])
