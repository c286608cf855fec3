"""Code of the source and target nodes: S3 files, Data Catalog tables and JDBC databases."""

from __future__ import annotations

from typing import Any

from glueball.studio.emitting import Script, call, emitter, lit, path_name
from glueball.studio.job_graph import Node

SEPARATORS = {"comma": ",", "ctrla": "\u0001", "pipe": "|", "semicolon": ";", "tab": "\t"}
QUOTES: dict[str, Any] = {"quote": '"', "quillemet": "\u00ab", "single_quote": "'", "disabled": -1}


def _s3_read(var: str, fmt: str, node: Node, format_options: dict[str, Any]) -> list[str]:
    body = node.body
    connection: dict[str, Any] = {"paths": list(body["Paths"])}
    if body.get("Recurse", True):
        connection["recurse"] = True
    if body.get("Exclusions"):
        connection["exclusions"] = json_list(body["Exclusions"])
    if body.get("CompressionType") and fmt != "parquet":
        connection["compressionType"] = body["CompressionType"]
    for member, option in (("GroupFiles", "groupFiles"), ("GroupSize", "groupSize"), ("MaxBand", "maxBand"),
                           ("MaxFilesInBand", "maxFilesInBand")):
        if body.get(member) is not None:
            connection[option] = body[member]
    connection.update(_bounded(node))
    keywords = {"format_options": lit(format_options)} if format_options else {}
    keywords.update(connection_type=lit("s3"), format=lit(fmt), connection_options=lit(connection),
                    transformation_ctx=lit(var))
    return [f"{var} = " + call("glueContext.create_dynamic_frame.from_options", **keywords)]


def _bounded(node: Node) -> dict[str, Any]:
    """``AdditionalOptions``' BoundedSize/BoundedFiles as Glue's connection options (sample paths are refused)."""
    extra = node.body.get("AdditionalOptions") or {}
    if extra.get("EnableSamplePath") or extra.get("SamplePath"):
        raise node.refuse("AdditionalOptions.EnableSamplePath/SamplePath (data previews) are not supported by "
                          "glueball")
    found = {}
    for member, option in (("BoundedSize", "boundedSize"), ("BoundedFiles", "boundedFiles")):
        if extra.get(member) is not None:
            found[option] = str(extra[member])
    return found


def json_list(values: list[str]) -> str:
    """Exclusions travel as a JSON list in a string, as Glue's connection option wants them."""
    import json

    return json.dumps(list(values))


@emitter("S3CsvSource")
def s3_csv(script: Script, node: Node, var: str) -> list[str]:
    body = node.body
    options: dict[str, Any] = {"quoteChar": QUOTES.get(body["QuoteChar"], body["QuoteChar"]),
                               "withHeader": bool(body.get("WithHeader", False)),
                               "separator": SEPARATORS.get(body["Separator"], body["Separator"])}
    if body.get("Escaper"):
        options["escaper"] = body["Escaper"]
    if body.get("Multiline"):
        options["multiline"] = True
    if body.get("SkipFirst"):
        options["skipFirst"] = True
    return _s3_read(var, "csv", node, options)


@emitter("S3JsonSource")
def s3_json(script: Script, node: Node, var: str) -> list[str]:
    options: dict[str, Any] = {}
    if node.body.get("Multiline"):
        options["multiline"] = True
    if node.body.get("JsonPath"):
        options["jsonPath"] = node.body["JsonPath"]
    return _s3_read(var, "json", node, options)


@emitter("S3ParquetSource")
def s3_parquet(script: Script, node: Node, var: str) -> list[str]:
    return _s3_read(var, "parquet", node, {})


@emitter("S3CatalogSource", "CatalogSource", "PostgreSQLCatalogSource", "MySQLCatalogSource",
         "RelationalCatalogSource")
def catalog_source(script: Script, node: Node, var: str) -> list[str]:
    body = node.body
    keywords = {"database": lit(body["Database"]), "table_name": lit(body["Table"])}
    if body.get("PartitionPredicate"):
        keywords["push_down_predicate"] = lit(body["PartitionPredicate"])
    bounded = _bounded(node)
    if bounded:
        keywords["additional_options"] = lit(bounded)
    keywords["transformation_ctx"] = lit(var)
    return [f"{var} = " + call("glueContext.create_dynamic_frame.from_catalog", **keywords)]


@emitter("DirectJDBCSource")
def direct_jdbc(script: Script, node: Node, var: str) -> list[str]:
    body = node.body
    if body["ConnectionType"] not in ("postgresql", "mysql") or body.get("RedshiftTmpDir"):
        raise node.refuse(f"ConnectionType {body['ConnectionType']} is not one glueball reads (postgresql, mysql; "
                          "the JDBC drivers it has)")
    # the connection's URL names the database; MySQL's database is also the table's qualifier
    qualify = body["ConnectionType"] == "mysql" and "." not in body["Table"]
    table = f"{body['Database']}.{body['Table']}" if qualify else body["Table"]
    options = {"useConnectionProperties": "true", "dbtable": table, "connectionName": body["ConnectionName"]}
    return [f"{var} = " + call("glueContext.create_dynamic_frame.from_options",
                               connection_type=lit(body["ConnectionType"]), connection_options=lit(options),
                               transformation_ctx=lit(var))]


def _no_auto_quality(node: Node) -> None:
    if (node.body.get("AutoDataQuality") or {}).get("IsEnabled"):
        raise node.refuse("AutoDataQuality is not supported by glueball; add an EvaluateDataQuality node")


def _partition_keys(body: Any) -> list[str]:
    return [path_name(p) for p in body.get("PartitionKeys") or []]


def _target_format(node: Node) -> tuple[str, dict[str, Any]]:
    if node.kind == "S3GlueParquetTarget":
        return "glueparquet", {"compression": node.body.get("Compression") or "snappy"}
    fmt = node.body["Format"]
    if fmt not in ("json", "csv", "avro", "orc", "parquet"):
        raise node.refuse(f"Format {fmt} is not one glueball writes (json, csv, avro, orc, parquet)")
    compression = node.body.get("Compression")
    return fmt, ({"compression": compression} if compression and compression != "none" else {})


@emitter("S3DirectTarget", "S3GlueParquetTarget")
def s3_direct_target(script: Script, node: Node, var: str) -> list[str]:
    body = node.body
    _no_auto_quality(node)
    source = script.var(node.inputs[0])
    fmt, format_options = _target_format(node)
    keys = _partition_keys(body)
    frame = source
    lines: list[str] = []
    if body.get("NumberTargetPartitions"):
        frame = f"{source}.coalesce({int(body['NumberTargetPartitions'])})"
    policy = body.get("SchemaChangePolicy") or {}
    if policy.get("EnableUpdateCatalog"):
        if not policy.get("Database") or not policy.get("Table"):
            raise node.refuse("SchemaChangePolicy.EnableUpdateCatalog needs SchemaChangePolicy.Database and Table")
        lines.append(f"{var} = " + call("glueContext.getSink", path=lit(body["Path"]), connection_type=lit("s3"),
                                        updateBehavior=lit(policy.get("UpdateBehavior") or "UPDATE_IN_DATABASE"),
                                        partitionKeys=lit(keys), enableUpdateCatalog="True",
                                        transformation_ctx=lit(var)))
        lines.append(call(f"{var}.setCatalogInfo", catalogDatabase=lit(policy["Database"]),
                          catalogTableName=lit(policy["Table"])))
        lines.append(call(f"{var}.setFormat", lit(fmt), **{k: lit(v) for k, v in format_options.items()}))
        lines.append(call(f"{var}.writeFrame", frame))
        return lines
    keywords = {"frame": frame, "connection_type": lit("s3"), "format": lit(fmt),
                "connection_options": lit({"path": body["Path"], "partitionKeys": keys})}
    if format_options:
        keywords["format_options"] = lit(format_options)
    keywords["transformation_ctx"] = lit(var)
    return [f"{var} = " + call("glueContext.write_dynamic_frame.from_options", **keywords)]


@emitter("S3CatalogTarget", "CatalogTarget", "PostgreSQLCatalogTarget", "MySQLCatalogTarget")
def catalog_target(script: Script, node: Node, var: str) -> list[str]:
    body = node.body
    _no_auto_quality(node)
    options: dict[str, Any] = {}
    policy = body.get("SchemaChangePolicy") or {}
    if policy.get("EnableUpdateCatalog"):
        options.update(enableUpdateCatalog=True, updateBehavior=policy.get("UpdateBehavior") or "UPDATE_IN_DATABASE")
    keys = _partition_keys(body)
    if keys:
        options["partitionKeys"] = keys
    keywords = {"frame": script.var(node.inputs[0]), "database": lit(body["Database"]),
                "table_name": lit(body["Table"])}
    if options:
        keywords["additional_options"] = lit(options)
    keywords["transformation_ctx"] = lit(var)
    return [f"{var} = " + call("glueContext.write_dynamic_frame.from_catalog", **keywords)]
