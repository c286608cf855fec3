"""Script generation without a server or Spark: names, literals that survive any text, determinism."""

from __future__ import annotations

import ast
import json
from typing import Any

import pytest

from glueball.errors import InvalidInputException
from glueball.studio.codegen import generate
from glueball.studio.emitting import lit, variable_of
from glueball.studio.job_graph import Node

SOURCE = {"S3JsonSource": {"Name": "Amazon S3", "Paths": ["s3://in/"]}}


def _block(nodes: dict[str, Any], name: str) -> str:
    text = generate(nodes).text()
    ast.parse(text)  # every script is Python
    start = text.index(f"# Script generated for node {name}\n")
    return text[start:text.index("\n\n", start)]


def test_variable_names_follow_studio() -> None:
    assert variable_of(Node("node-1700000000001", "S3JsonSource", {"Name": "Amazon S3"})) == \
        "AmazonS3_node1700000000001"
    assert variable_of(Node("x-2", "S3JsonSource", {"Name": "1st: source!"})) == "n1stsource_nodex2"
    nodes = {"node-1": {"S3JsonSource": {"Name": "Same", "Paths": ["s3://a/"]}},
             "node1": {"S3JsonSource": {"Name": "Same", "Paths": ["s3://b/"]}}}
    text = generate(nodes).text()
    assert "Same_node1 = " in text and "Same_node1_ = " in text  # two ids that sanitise alike stay apart


def test_literals_survive_quotes_backslashes_and_newlines() -> None:
    for value in ['a "quoted" \\ back', "line\nbreak", "ünïcödé", ["x", 1, 2.5, True, None], {"k": ("v",)}]:
        assert ast.literal_eval(lit(value)) == value


def test_sql_with_triple_quotes_and_backslashes() -> None:
    query = "select '\\d+' as pattern, ''' as odd from t"
    nodes = {"node-1": SOURCE, "node-2": {"SparkSQL": {"Name": "Q", "Inputs": ["node-1"], "SqlQuery": query,
                                                       "SqlAliases": [{"From": "node-1", "Alias": "t"}]}}}
    block = _block(nodes, "Q")
    namespace: dict[str, Any] = {}
    exec(block.split("\nQ_node2 = ")[0], namespace)  # noqa: S102 - the query assignment alone
    assert namespace["SqlQuery0"].strip("\n") == query


def test_inline_recipe_steps_survive_quotes() -> None:
    steps = [{"Action": {"Operation": "REPLACE_TEXT",
                         "Parameters": {"sourceColumn": "name", "pattern": "'\\s+'", "value": "it's"}}}]
    nodes = {"node-1": SOURCE, "node-2": {"Recipe": {"Name": "R", "Inputs": ["node-1"], "RecipeSteps": steps}}}
    block = _block(nodes, "R")
    assignment = next(line for line in block.split("\n") if line.startswith("RecipeSteps_"))
    rest = block[block.index(assignment):].split("\nR_node2 = ")[0]
    namespace: dict[str, Any] = {"json": json}
    exec(rest, namespace)  # noqa: S102
    assert namespace["RecipeSteps_R_node2"] == steps


@pytest.mark.parametrize(("value", "rendered"), [("42", "42"), ("-1.5e3", "-1.5e3"), ("inf", '"inf"'),
                                                 ("1_000", '"1_000"'), ("cancelled", '"cancelled"')])
def test_filter_constants(value: str, rendered: str) -> None:
    nodes = {"node-1": SOURCE, "node-2": {"Filter": {"Name": "F", "Inputs": ["node-1"], "LogicalOperator": "OR",
                                                     "Filters": [{"Operation": "GT", "Values": [
                                                         {"Type": "COLUMNEXTRACTED", "Value": ["x"]},
                                                         {"Type": "CONSTANT", "Value": [value]}]}]}}}
    assert f'row["x"] > {rendered}' in _block(nodes, "F")


def test_join_types_and_keys() -> None:
    nodes = {"node-1": SOURCE, "node-2": {"S3JsonSource": {"Name": "B", "Paths": ["s3://b/"]}},
             "node-3": {"Join": {"Name": "J", "Inputs": ["node-1", "node-2"], "JoinType": "leftanti",
                                 "Columns": [{"From": "node-1", "Keys": [["id"], ["day"]]},
                                             {"From": "node-2", "Keys": [["key"], ["date"]]}]}}}
    block = _block(nodes, "J")
    assert '(AmazonS3_node1DF["id"] == B_node2DF["key"]) & (AmazonS3_node1DF["day"] == B_node2DF["date"])' in block
    assert '"leftanti"' in block
    nodes["node-3"]["Join"]["Columns"][1]["Keys"] = [["key"]]
    with pytest.raises(InvalidInputException, match="as many join keys"):
        generate(nodes)


def test_the_same_graph_gives_the_same_text() -> None:
    from tests.studio import stock

    assert generate(stock.graph()).text() == generate(json.loads(json.dumps(stock.graph()))).text()


def _explode(col: str) -> dict[str, Any]:
    return {"DynamicTransform": {
        "Name": "Explode", "TransformName": "gs_explode", "Inputs": ["node-1"], "FunctionName": "gs_explode",
        "Path": "s3://aws-glue-studio-transforms-510798373988-prod-us-east-1/gs_explode.py",
        "Parameters": [{"Name": "colName", "Type": "str", "Value": [col]},
                       {"Name": "outer", "Type": "bool", "Value": ["true"]}]}}


def test_columns_with_dots_and_nested_fields() -> None:
    source = {"S3JsonSource": {"Name": "S", "Paths": ["s3://in/"], "OutputSchemas": [
        {"Columns": [{"Name": "geometry.coordinates"}, {"Name": "address"}]}]}}
    assert "outer=True" in _block({"node-1": source, "node-2": _explode("`geometry.coordinates`")}, "Explode")
    generate({"node-1": source, "node-2": _explode("address.lines")})  # a field of the column address
    with pytest.raises(InvalidInputException, match="names column 'nope'"):
        generate({"node-1": source, "node-2": _explode("`nope`")})


def test_source_and_target_members_are_honoured_or_refused() -> None:
    bounded = {"S3JsonSource": {"Name": "S", "Paths": ["s3://in/"], "MaxBand": 60000, "MaxFilesInBand": 10,
                                "AdditionalOptions": {"BoundedFiles": 5}}}
    block = _block({"node-1": bounded}, "S")
    assert '"maxBand": 60000, "maxFilesInBand": 10, "boundedFiles": "5"' in block
    sampled = {"S3JsonSource": {"Name": "S", "Paths": ["s3://in/"],
                                "AdditionalOptions": {"EnableSamplePath": True, "SamplePath": "s3://in/x.json"}}}
    with pytest.raises(InvalidInputException, match="'S' \\(node-1\\): AdditionalOptions.EnableSamplePath"):
        generate({"node-1": sampled})
    catalog = {"S3CatalogSource": {"Name": "C", "Database": "d", "Table": "t",
                                   "AdditionalOptions": {"BoundedSize": 1024}}}
    assert 'additional_options={"boundedSize": "1024"}' in _block({"node-1": catalog}, "C")
    oracle = {"DirectJDBCSource": {"Name": "O", "Database": "d", "Table": "t", "ConnectionName": "c",
                                   "ConnectionType": "oracle"}}
    with pytest.raises(InvalidInputException, match="ConnectionType oracle is not one glueball reads"):
        generate({"node-1": oracle})
    target = {"S3DirectTarget": {"Name": "T", "Inputs": ["node-1"], "Path": "s3://o/", "Format": "json",
                                 "AutoDataQuality": {"IsEnabled": True}}}
    with pytest.raises(InvalidInputException, match="'T' \\(node-2\\): AutoDataQuality is not supported"):
        generate({"node-1": SOURCE, "node-2": target})
    target["S3DirectTarget"]["AutoDataQuality"] = {"IsEnabled": False}
    generate({"node-1": SOURCE, "node-2": target})
    hudi = {"S3DirectTarget": {"Name": "H", "Inputs": ["node-1"], "Path": "s3://o/", "Format": "hudi"}}
    with pytest.raises(InvalidInputException, match="Format hudi is not one glueball writes"):
        generate({"node-1": SOURCE, "node-2": hudi})
