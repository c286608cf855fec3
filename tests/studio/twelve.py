"""A 12-node job graph over orders and customers: CSV and JSON sources, Glue transforms, SQL, a join, an
aggregate, a visual transform and three targets (its script is the golden file ``golden/twelve_nodes.py``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

N = "node-16900000000{:02d}"

ORDERS = [  # order_id, customer, amount, status
    (1, "c1", "12.50", "shipped"), (2, "c2", "7.25", "cancelled"), (3, "c1", "30.00", "shipped"),
    (4, "c3", "5.00", "shipped"), (5, "c2", "19.75", "pending"), (6, "c4", "3.10", "shipped"),
    (7, "c1", "8.40", "shipped"), (7, "c1", "8.40", "shipped"),
]
CUSTOMERS = [{"id": "c1", "name": "Ada", "country": "UK"}, {"id": "c2", "name": "Linus", "country": "FI"},
             {"id": "c3", "name": "Grace", "country": "US"}]


def write_inputs(root: Path) -> None:
    orders = root / "shop" / "orders"
    orders.mkdir(parents=True, exist_ok=True)
    (orders / "orders.csv").write_text("order_id,customer,amount,status\n"
                                       + "".join(",".join(map(str, o)) + "\n" for o in ORDERS))
    customers = root / "shop" / "customers"
    customers.mkdir(parents=True, exist_ok=True)
    (customers / "customers.json").write_text("".join(json.dumps(c) + "\n" for c in CUSTOMERS))


def graph() -> dict[str, Any]:
    n = N.format
    return {
        n(1): {"S3CsvSource": {"Name": "Orders", "Paths": ["s3://shop/orders/"], "Separator": "comma",
                               "QuoteChar": "quote", "WithHeader": True, "Recurse": True,
                               "OutputSchemas": [{"Columns": [{"Name": "order_id", "Type": "string"},
                                                              {"Name": "customer", "Type": "string"},
                                                              {"Name": "amount", "Type": "string"},
                                                              {"Name": "status", "Type": "string"}]}]}},
        n(2): {"S3JsonSource": {"Name": "Customers", "Paths": ["s3://shop/customers/"],
                                "OutputSchemas": [{"Columns": [{"Name": "id"}, {"Name": "name"},
                                                               {"Name": "country"}]}]}},
        n(3): {"ApplyMapping": {"Name": "Change Schema", "Inputs": [n(1)], "Mapping": [
            {"ToKey": "order_id", "FromPath": ["order_id"], "FromType": "string", "ToType": "long", "Dropped": False},
            {"ToKey": "customer_id", "FromPath": ["customer"], "FromType": "string", "ToType": "string",
             "Dropped": False},
            {"ToKey": "amount", "FromPath": ["amount"], "FromType": "string", "ToType": "double", "Dropped": False},
            {"ToKey": "status", "FromPath": ["status"], "FromType": "string", "ToType": "string", "Dropped": False}]}},
        n(4): {"DropDuplicates": {"Name": "Drop Duplicates", "Inputs": [n(3)]}},
        n(5): {"Filter": {"Name": "Not cancelled", "Inputs": [n(4)], "LogicalOperator": "AND", "Filters": [
            {"Operation": "EQ", "Negated": True, "Values": [{"Type": "COLUMNEXTRACTED", "Value": ["status"]},
                                                             {"Type": "CONSTANT", "Value": ["cancelled"]}]}]}},
        n(6): {"RenameField": {"Name": "Rename name", "Inputs": [n(2)], "SourcePath": ["name"],
                               "TargetPath": ["customer_name"]}},
        n(7): {"Join": {"Name": "Join", "Inputs": [n(5), n(6)], "JoinType": "left", "Columns": [
            {"From": n(5), "Keys": [["customer_id"]]}, {"From": n(6), "Keys": [["id"]]}]}},
        n(8): {"DynamicTransform": {
            "Name": "Derived Column", "TransformName": "gs_derived", "Inputs": [n(7)], "FunctionName": "gs_derived",
            "Path": "s3://aws-glue-studio-transforms-510798373988-prod-us-east-1/gs_derived.py", "Version": "1.0.0",
            "Parameters": [{"Name": "colName", "Type": "str", "Value": ["amount_cents"]},
                           {"Name": "expr", "Type": "str", "Value": ["cast(round(amount * 100) as bigint)"]}]}},
        n(9): {"SparkSQL": {"Name": "SQL Query", "Inputs": [n(8)], "SqlAliases": [{"From": n(8), "Alias": "orders"}],
                            "SqlQuery": "select order_id, customer_id, coalesce(customer_name, 'unknown') as "
                                        "customer_name, country, amount_cents from orders"}},
        n(10): {"Aggregate": {"Name": "Aggregate", "Inputs": [n(9)], "Groups": [["customer_name"]],
                              "Aggs": [{"Column": ["amount_cents"], "AggFunc": "sum"},
                                       {"Column": ["order_id"], "AggFunc": "count"}]}},
        n(11): {"S3GlueParquetTarget": {"Name": "Orders out", "Inputs": [n(9)], "Path": "s3://shop-out/orders/",
                                        "Compression": "snappy", "PartitionKeys": [["country"]]}},
        n(12): {"S3DirectTarget": {"Name": "Totals", "Inputs": [n(10)], "Path": "s3://shop-out/totals/",
                                   "Format": "json"}},
    }
