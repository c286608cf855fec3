"""The seed's stock-options visual job: synthetic trades, the job graph with all ten visual transforms,
and the same pipeline written by hand in plain PySpark (the reference the tests and bench/studio.py use).

Each input row is one trade of option contracts: ``order_id``, ``symbol``, ``instrument`` ("AMZN MAR 15
24 $120 PUT": symbol, expiration month, day, year, strike, type), ``currency``, ``price``, ``exchange``
(a venue code), and the contract counts that filled it, ``sold`` and ``bought`` (lists). The job
splits the instrument into its parts, builds the expiration date, stamps the processing time,
turns the sold/bought lists into one row per fill, looks the venue name up in a catalog table,
derives the amount, and writes the history (catalog table, partitioned by action) and a
per-symbol summary (CSV: contracts bought and sold).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

SYMBOLS = ("AMZN", "MSFT", "AAPL", "GOOG", "TSLA", "NVDA")
MONTHS = ("JAN", "FEB", "MAR", "APR", "JUN", "SEP", "DEC")
EXCHANGES = {"EDGX": "Cboe EDGX Options", "BATO": "Cboe BZX Options", "ISE": "Nasdaq ISE",
             "AMEX": "NYSE American Options"}
UNLISTED = "MIAX"  # a venue the lookup table lacks: its rows get a null name
NODE = "node-17000000000{:02d}"


def trades(count: int, seed: int = 7) -> list[dict[str, Any]]:
    """``count`` synthetic trades, the same for the same seed."""
    rng = random.Random(seed)
    rows = []
    for order_id in range(1, count + 1):
        symbol = rng.choice(SYMBOLS)
        instrument = (f"{symbol} {rng.choice(MONTHS)} {rng.randint(1, 28)} {rng.choice((24, 25))} "
                      f"${rng.randrange(50, 400, 10)} {rng.choice(('PUT', 'CALL'))}")
        rows.append({"order_id": order_id, "symbol": symbol, "instrument": instrument, "currency": "usd",
                     "price": round(rng.uniform(0.5, 30.0), 2),
                     "exchange": rng.choice((*EXCHANGES, UNLISTED)),
                     "sold": [rng.randint(1, 9) for _ in range(rng.randint(0, 3))],
                     "bought": [rng.randint(1, 9) for _ in range(rng.randint(1, 3))]})
    return rows


def write_inputs(root: Path, rows: list[dict[str, Any]]) -> None:
    """The trades as JSON lines and the venues as a JSON lookup table, under an object-store root."""
    trades_dir = root / "stock-data" / "options"
    trades_dir.mkdir(parents=True, exist_ok=True)
    (trades_dir / "trades.json").write_text("".join(json.dumps(r) + "\n" for r in rows))
    venues = root / "stock-data" / "exchanges"
    venues.mkdir(parents=True, exist_ok=True)
    (venues / "exchanges.json").write_text("".join(json.dumps({"code": c, "exchange_name": n}) + "\n"
                                                   for c, n in EXCHANGES.items()))


def exchanges_table_input() -> dict[str, Any]:
    """The catalog table over the venues (CreateTable's TableInput)."""
    return {"Name": "exchanges", "TableType": "EXTERNAL_TABLE", "Parameters": {"classification": "json"},
            "StorageDescriptor": {"Location": "s3://stock-data/exchanges/",
                                  "Columns": [{"Name": "code", "Type": "string"},
                                              {"Name": "exchange_name", "Type": "string"}],
                                  "SerdeInfo": {"SerializationLibrary": "org.openx.data.jsonserde.JsonSerDe"}}}


def _visual(name: str, transform: str, parent: int, **parameters: Any) -> dict[str, Any]:
    params = []
    for key, value in parameters.items():
        if isinstance(value, list):
            params.append({"Name": key, "Type": "list", "ListType": "str", "Value": value})
        else:
            params.append({"Name": key, "Type": "str", "Value": [str(value)]})
    return {"DynamicTransform": {
        "Name": name, "TransformName": transform, "Inputs": [NODE.format(parent)], "Parameters": params,
        "FunctionName": transform, "Version": "1.0.0",
        "Path": f"s3://aws-glue-studio-transforms-510798373988-prod-us-east-1/{transform}.py"}}


INPUT_COLUMNS = ("order_id", "symbol", "instrument", "currency", "price", "exchange", "sold", "bought")


def graph(output: str = "s3://stock-results", update_catalog: bool = True) -> dict[str, Any]:
    """The stock-options job graph: 15 nodes, the ten visual transforms among them.

    Without ``update_catalog`` the history is written to S3 only (no catalog table).
    """
    n = NODE.format
    policy = {"SchemaChangePolicy": {"EnableUpdateCatalog": True, "UpdateBehavior": "UPDATE_IN_DATABASE",
                                     "Database": "stocks", "Table": "option_history"}} if update_catalog else {}
    return {
        n(1): {"S3JsonSource": {"Name": "Stock options", "Paths": ["s3://stock-data/options/"],
                                "OutputSchemas": [{"Columns": [{"Name": c} for c in INPUT_COLUMNS]}]}},
        n(2): _visual("Split String", "gs_split", 1, colName="instrument", pattern=" ",
                      newColName="instrument_tokens"),
        n(3): _visual("Array To Columns", "gs_array_to_cols", 2, colName="instrument_tokens",
                      colList="month,day,year,strike_price,type", indexes="2,3,4,5,6"),
        n(4): _visual("Concatenate Columns", "gs_concat", 3, colName="expiration_date",
                      colList=["day", "month", "year"], spacer="-"),
        n(5): _visual("Add Current Timestamp", "gs_now", 4, colName="process_time"),
        n(6): _visual("Unpivot Columns To Rows", "gs_unpivot", 5, unpivotColName="action",
                      unpivotValueColName="contracts", colList=["sold", "bought"]),
        n(7): _visual("Explode Array Or Map Into Rows", "gs_explode", 6, colName="contracts", newCol="contracts"),
        n(8): _visual("Lookup", "gs_lookup", 7, lookupTable="stocks.exchanges", keyColumns="exchange=code",
                      columnsToTake="exchange_name"),
        n(9): _visual("Derived Column", "gs_derived", 8, colName="total_amount", expr="price * contracts"),
        n(10): {"DropFields": {"Name": "Drop Fields", "Inputs": [n(9)], "Paths": [["instrument_tokens"]]}},
        n(11): _visual("Autobalance Processing", "gs_repartition", 10, numPartitionsStr="2"),
        n(12): {"S3DirectTarget": {"Name": "Option history", "Inputs": [n(11)], "Path": f"{output}/history/",
                                   "Format": "parquet", "PartitionKeys": [["action"]], **policy}},
        n(13): {"SelectFields": {"Name": "Summary columns", "Inputs": [n(10)],
                                 "Paths": [["symbol"], ["action"], ["contracts"]]}},
        n(14): _visual("Pivot Rows To Columns", "gs_pivot", 13, aggCol="contracts", aggFunction="sum",
                       colList=["action"]),
        n(15): {"S3DirectTarget": {"Name": "Summary", "Inputs": [n(14)], "Path": f"{output}/summary/",
                                   "Format": "csv", "NumberTargetPartitions": "1"}},
    }


def hand_written(trades_df: Any, exchanges_df: Any) -> tuple[Any, Any]:
    """The same pipeline in plain PySpark: (history, summary) DataFrames."""
    from pyspark.sql import functions as F

    tokens = F.split(F.col("instrument"), " ")
    df = trades_df.select(
        *INPUT_COLUMNS,
        F.get(tokens, 1).alias("month"), F.get(tokens, 2).alias("day"), F.get(tokens, 3).alias("year"),
        F.get(tokens, 4).alias("strike_price"), F.get(tokens, 5).alias("type"))
    df = df.withColumn("expiration_date", F.concat(F.col("day"), F.lit("-"), F.col("month"), F.lit("-"),
                                                   F.col("year")))
    df = df.withColumn("process_time", F.current_timestamp())
    kept = [c for c in df.columns if c not in ("sold", "bought")]
    sides = F.array(*[F.struct(F.lit(side).alias("action"), F.col(side).alias("counts"))
                      for side in ("sold", "bought")])
    fills = (df.select(*kept, F.explode(sides).alias("side"))
             .select(*kept, F.col("side.action").alias("action"), F.explode("side.counts").alias("contracts")))
    venues = exchanges_df.select(F.col("code").alias("exchange"), "exchange_name")
    history = fills.join(venues, "exchange", "left").withColumn("total_amount", F.col("price") * F.col("contracts"))
    grouped = history.drop("process_time")
    summary = (grouped.groupBy("symbol").agg(
        F.sum(F.when(F.col("action") == "bought", F.col("contracts"))).alias("bought"),
        F.sum(F.when(F.col("action") == "sold", F.col("contracts"))).alias("sold")))
    return history, summary
