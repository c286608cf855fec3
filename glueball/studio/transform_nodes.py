"""Code of the transform nodes: Glue's transforms, SQL, custom code, data quality, recipes and visual transforms."""

from __future__ import annotations

import ast
import json
import re
from typing import Any

from glueball.runtime.pii_entities import PII_TYPES, PiiDetectionError, entity_patterns
from glueball.studio.emitting import Script, call, emitter, lit, path_name
from glueball.studio.job_graph import Node
from glueball.studio.visual import dynamic_transform_call

SQL_QUERY = '''def sparkSqlQuery(glueContext, query, mapping, transformation_ctx) -> DynamicFrame:
    for alias, frame in mapping.items():
        frame.toDF().createOrReplaceTempView(alias)
    result = spark.sql(query)
    return DynamicFrame.fromDF(result, glueContext, transformation_ctx)
'''
UNION = '''def sparkUnion(glueContext, unionType, mapping, transformation_ctx) -> DynamicFrame:
    frames = [frame.toDF() for frame in mapping.values()]
    result = frames[0]
    for other in frames[1:]:
        result = result.unionByName(other, allowMissingColumns=True)
    if unionType == "DISTINCT":
        result = result.distinct()
    return DynamicFrame.fromDF(result, glueContext, transformation_ctx)
'''
AGGREGATE = '''def sparkAggregate(glueContext, parentFrame, groups, aggs, transformation_ctx) -> DynamicFrame:
    aggsFuncs = []
    for column, func in aggs:
        aggsFuncs.append(getattr(SqlFuncs, func)(column))
    frame = parentFrame.toDF()
    result = frame.groupBy(*groups).agg(*aggsFuncs) if len(groups) > 0 else frame.agg(*aggsFuncs)
    return DynamicFrame.fromDF(result, glueContext, transformation_ctx)
'''
DROP_NULL_COLUMNS = '''def dropNullColumns(glueContext, frame, nullValues, transformation_ctx) -> DynamicFrame:
    df = frame.toDF()
    counts = df.select([SqlFuncs.count(SqlFuncs.when(~SqlFuncs.col(f"`{c}`").isNull()
                        & ~SqlFuncs.col(f"`{c}`").cast("string").isin(nullValues), 1)).alias(c)
                        for c in df.columns]).collect()[0].asDict()
    return DynamicFrame.fromDF(df.drop(*[c for c, n in counts.items() if n == 0]), glueContext, transformation_ctx)
'''
# Glue's function names for the Aggregate node's AggFunc values
AGG_FUNCTIONS = {"avg": "avg", "countDistinct": "countDistinct", "count": "count", "first": "first", "last": "last",
                 "kurtosis": "kurtosis", "max": "max", "min": "min", "skewness": "skewness",
                 "stddev_samp": "stddev_samp", "stddev_pop": "stddev_pop", "sum": "sum", "sumDistinct": "sum_distinct",
                 "var_samp": "var_samp", "var_pop": "var_pop"}
PII_UNSUPPORTED = ("RedactText", "RedactChar", "MatchPattern", "NumLeftCharsToExclude", "NumRightCharsToExclude",
                   "DetectionParameters", "DetectionSensitivity")
NUMBER = re.compile(r"-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?")
FILTER_OPERATORS = {"EQ": "==", "LT": "<", "GT": ">", "LTE": "<=", "GTE": ">="}


def _paths(node: Node, member: str = "Paths") -> list[str]:
    return [path_name(p) for p in node.body.get(member) or []]


def _frame(script: Script, node: Node, index: int = 0) -> str:
    return script.var(node.inputs[index])


def _dynamic(script: Script) -> None:
    script.need("from awsglue.dynamicframe import DynamicFrame")


def _mapping_tuples(mappings: list[Any], prefix: list[str]) -> list[tuple[str, str, str, str]]:
    found = []
    for mapping in mappings:
        if mapping.get("Dropped"):
            continue
        source = [*prefix, *(mapping.get("FromPath") or [])]
        if mapping.get("Children"):
            found += _mapping_tuples(mapping["Children"], source)
            continue
        target = mapping.get("ToKey") or (source[-1] if source else "")
        to_path = ".".join([*prefix, target]) if prefix else target
        found.append((path_name(source), (mapping.get("FromType") or "string").lower(), to_path,
                      (mapping.get("ToType") or mapping.get("FromType") or "string").lower()))
    return found


@emitter("ApplyMapping")
def apply_mapping(script: Script, node: Node, var: str) -> list[str]:
    mappings = _mapping_tuples(node.body["Mapping"], [])
    return [f"{var} = " + call("ApplyMapping.apply", frame=_frame(script, node), mappings=lit(mappings),
                               transformation_ctx=lit(var))]


@emitter("SelectFields", "DropFields")
def select_or_drop(script: Script, node: Node, var: str) -> list[str]:
    return [f"{var} = " + call(f"{node.kind}.apply", frame=_frame(script, node), paths=lit(_paths(node)),
                               transformation_ctx=lit(var))]


@emitter("RenameField")
def rename_field(script: Script, node: Node, var: str) -> list[str]:
    return [f"{var} = " + call("RenameField.apply", frame=_frame(script, node),
                               old_name=lit(path_name(node.body["SourcePath"])),
                               new_name=lit(path_name(node.body["TargetPath"])), transformation_ctx=lit(var))]


@emitter("Spigot")
def spigot(script: Script, node: Node, var: str) -> list[str]:
    options: dict[str, Any] = {}
    if node.body.get("Topk") is not None:
        options["topk"] = node.body["Topk"]
    if node.body.get("Prob") is not None:
        options["prob"] = node.body["Prob"]
    return [f"{var} = " + call("Spigot.apply", frame=_frame(script, node), path=lit(node.body["Path"]),
                               options=lit(options), transformation_ctx=lit(var))]


@emitter("Join")
def join(script: Script, node: Node, var: str) -> list[str]:
    columns = {c["From"]: [path_name(k) for k in c["Keys"]] for c in node.body["Columns"]}
    left, right = node.inputs
    for side in (left, right):
        if side not in columns:
            raise node.refuse(f"Columns names no keys of input {side}")
    if len(columns[left]) != len(columns[right]) or not columns[left]:
        raise node.refuse(f"the two inputs need as many join keys each, got {columns[left]} and {columns[right]}")
    kind = node.body["JoinType"]
    if kind == "equijoin":
        return [f"{var} = " + call("Join.apply", frame1=script.var(left), frame2=script.var(right),
                                   keys1=lit(columns[left]), keys2=lit(columns[right]), transformation_ctx=lit(var))]
    _dynamic(script)
    lines = [f"{script.var(side)}DF = {script.var(side)}.toDF()" for side in (left, right)]
    condition = " & ".join(f"({script.var(left)}DF[{lit(a)}] == {script.var(right)}DF[{lit(b)}])"
                           for a, b in zip(columns[left], columns[right], strict=True))
    joined = f"{script.var(left)}DF.join({script.var(right)}DF, {condition}, {lit(kind)})"
    lines.append(f"{var} = DynamicFrame.fromDF({joined}, glueContext, {lit(var)})")
    return lines


@emitter("SplitFields")
def split_fields(script: Script, node: Node, var: str) -> list[str]:
    return [f"{var} = " + call("SplitFields.apply", frame=_frame(script, node), paths=lit(_paths(node)),
                               name1=lit(f"{var}1"), name2=lit(f"{var}2"), transformation_ctx=lit(var))]


@emitter("SelectFromCollection")
def select_from_collection(script: Script, node: Node, var: str) -> list[str]:
    collection = _frame(script, node)
    return [f"{var} = " + call("SelectFromCollection.apply", dfc=collection,
                               key=f"list({collection}.keys())[{int(node.body['Index'])}]",
                               transformation_ctx=lit(var))]


@emitter("FillMissingValues")
def fill_missing_values(script: Script, node: Node, var: str) -> list[str]:
    script.need("from awsglueml.transforms import FillMissingValues")
    keywords = {"frame": _frame(script, node), "missing_values_column": lit(node.body["ImputedPath"])}
    if node.body.get("FilledPath"):
        keywords["output_column"] = lit(node.body["FilledPath"])
    keywords["transformation_ctx"] = lit(var)
    return [f"{var} = " + call("FillMissingValues.apply", **keywords)]


def _filter_operand(value: Any) -> str:
    text = (value.get("Value") or [""])[0]
    if value["Type"] == "COLUMNEXTRACTED":
        return f"row[{lit(text)}]"
    return text if NUMBER.fullmatch(text) else lit(text)  # a number compares as a number, as in Studio


def _filter_expression(expression: Any, node: Node) -> str:
    values = expression["Values"]
    operation = expression["Operation"]
    if operation == "ISNULL":
        test = f"{_filter_operand(values[0])} is None"
    elif len(values) != 2:
        raise node.refuse(f"a {operation} filter compares two values, got {len(values)}")
    elif operation == "REGEX":
        test = f"bool(re.match({_filter_operand(values[1])}, str({_filter_operand(values[0])})))"
    else:
        test = f"{_filter_operand(values[0])} {FILTER_OPERATORS[operation]} {_filter_operand(values[1])}"
    return f"not ({test})" if expression.get("Negated") else f"({test})"


@emitter("Filter")
def filter_rows(script: Script, node: Node, var: str) -> list[str]:
    script.need("import re")
    joiner = " and " if node.body["LogicalOperator"] == "AND" else " or "
    test = joiner.join(_filter_expression(e, node) for e in node.body["Filters"])
    return [f"{var} = " + call("Filter.apply", frame=_frame(script, node), f=f"lambda row: ({test})",
                               transformation_ctx=lit(var))]


@emitter("CustomCode")
def custom_code(script: Script, node: Node, var: str) -> list[str]:
    code, name = node.body["Code"], node.body["ClassName"]
    try:
        tree = ast.parse(code)
    except SyntaxError as exc:
        raise node.refuse(f"Code is not Python (line {exc.lineno}: {exc.msg})") from exc
    defined = {d.name for d in tree.body if isinstance(d, ast.FunctionDef | ast.ClassDef)}
    if name not in defined:
        raise node.refuse(f"Code defines no function or class {name!r} (ClassName); it defines "
                          f"{', '.join(sorted(defined)) or 'nothing'}")
    _dynamic(script)
    script.need("from awsglue.dynamicframe import DynamicFrameCollection")
    script.helper(f"custom:{name}", code)
    frames = ", ".join(f"{lit(script.var(i))}: {script.var(i)}" for i in node.inputs)
    return [f"{var} = {name}(glueContext, DynamicFrameCollection({{{frames}}}, glueContext))"]


@emitter("SparkSQL")
def spark_sql(script: Script, node: Node, var: str) -> list[str]:
    _dynamic(script)
    script.helper("sparkSqlQuery", SQL_QUERY)
    aliases = {a["From"]: a["Alias"] for a in node.body["SqlAliases"]}
    missing = [i for i in node.inputs if i not in aliases]
    if missing:
        raise node.refuse(f"SqlAliases gives no alias to input(s) {', '.join(missing)}")
    unknown = [f for f in aliases if f not in node.inputs]
    if unknown:
        raise node.refuse(f"SqlAliases names {', '.join(unknown)}, which are not inputs of the node")
    query = f"SqlQuery{script.count('SqlQuery')}"  # SqlQuery0, SqlQuery1 ... as in Studio
    mapping = "{" + ", ".join(f"{lit(aliases[i])}: {script.var(i)}" for i in node.inputs) + "}"
    text = node.body["SqlQuery"].replace("\\", "\\\\").replace("'''", "\\'\\'\\'")
    return [f"{query} = '''\n{text}\n'''",
            f"{var} = " + call("sparkSqlQuery", "glueContext", query=query, mapping=mapping,
                               transformation_ctx=lit(var))]


@emitter("DropNullFields")
def drop_null_fields(script: Script, node: Node, var: str) -> list[str]:
    boxes = node.body.get("NullCheckBoxList") or {}
    values = [v["Value"] for v in node.body.get("NullTextList") or []]
    if boxes.get("IsEmpty"):
        values.append("")
    if boxes.get("IsNullString"):
        values.append("null")
    if boxes.get("IsNegOne"):
        values.append("-1")
    _dynamic(script)
    script.need("from pyspark.sql import functions as SqlFuncs")
    script.helper("dropNullColumns", DROP_NULL_COLUMNS)
    return [f"{var} = " + call("dropNullColumns", "glueContext", frame=_frame(script, node),
                               nullValues=lit(values), transformation_ctx=lit(var))]


@emitter("Merge")
def merge(script: Script, node: Node, var: str) -> list[str]:
    source = node.body["Source"]
    if source not in node.inputs:
        raise node.refuse(f"Source {source} is not one of its inputs ({', '.join(node.inputs)})")
    staging = next(i for i in node.inputs if i != source)
    keys = [path_name(p) for p in node.body["PrimaryKeys"]]
    if not keys:
        raise node.refuse("PrimaryKeys is empty")
    return [f"{var} = " + call(f"{script.var(source)}.mergeDynamicFrame", stage_dynamic_frame=script.var(staging),
                               primary_keys=lit(keys), transformation_ctx=lit(var))]


@emitter("Union")
def union(script: Script, node: Node, var: str) -> list[str]:
    _dynamic(script)
    script.helper("sparkUnion", UNION)
    mapping = "{" + ", ".join(f"\"source{n}\": {script.var(i)}" for n, i in enumerate(node.inputs, 1)) + "}"
    return [f"{var} = " + call("sparkUnion", "glueContext", unionType=lit(node.body["UnionType"]), mapping=mapping,
                               transformation_ctx=lit(var))]


@emitter("DropDuplicates")
def drop_duplicates(script: Script, node: Node, var: str) -> list[str]:
    _dynamic(script)
    columns = _paths(node, "Columns")
    arguments = lit(columns) if columns else ""
    return [f"{var} = DynamicFrame.fromDF({_frame(script, node)}.toDF().dropDuplicates({arguments}), "
            f"glueContext, {lit(var)})"]


@emitter("Aggregate")
def aggregate(script: Script, node: Node, var: str) -> list[str]:
    _dynamic(script)
    script.need("from pyspark.sql import functions as SqlFuncs")
    script.helper("sparkAggregate", AGGREGATE)
    aggs = [(path_name(a["Column"]), AGG_FUNCTIONS[a["AggFunc"]]) for a in node.body["Aggs"]]
    return [f"{var} = " + call("sparkAggregate", "glueContext", parentFrame=_frame(script, node),
                               groups=lit(_paths(node, "Groups")), aggs=lit(aggs), transformation_ctx=lit(var))]


def _dq_options(body: Any) -> dict[str, Any]:
    publishing = body.get("PublishingOptions") or {}
    options: dict[str, Any] = {"dataQualityEvaluationContext": publishing.get("EvaluationContext") or body["Name"],
                               "enableDataQualityCloudWatchMetrics": bool(publishing.get("CloudWatchMetricsEnabled")),
                               "enableDataQualityResultsPublishing":
                                   bool(publishing.get("ResultsPublishingEnabled", True))}
    if publishing.get("ResultsS3Prefix"):
        options["resultsS3Prefix"] = publishing["ResultsS3Prefix"]
    return options


def _stop_on_failure(node: Node, outcomes: str) -> list[str]:
    timing = (node.body.get("StopJobOnFailureOptions") or {}).get("StopJobOnFailureTiming")
    if timing is None:
        return []
    if timing != "Immediate":
        raise node.refuse(f"StopJobOnFailureTiming {timing} is not supported by glueball (Immediate is)")
    failed = f"{outcomes}_failed"
    return [f"{failed} = [r.Rule for r in {outcomes}.toDF().where(\"Outcome = 'Failed'\").collect()]",
            f"if {failed}:",
            f"    raise Exception({lit(f'Data quality rules failed in node {node.name}: ')} "
            f"+ \", \".join({failed}))"]


@emitter("EvaluateDataQuality")
def evaluate_data_quality(script: Script, node: Node, var: str) -> list[str]:
    script.need("from awsgluedq.transforms import EvaluateDataQuality")
    frame = _frame(script, node)
    keywords = {"frame": frame, "ruleset": lit(node.body["Ruleset"]),
                "publishing_options": lit(_dq_options(node.body))}
    if node.body.get("Output") == "EvaluationResults":
        return [f"{var} = " + call("EvaluateDataQuality.apply", **keywords), *_stop_on_failure(node, var)]
    outcomes = f"{var}_outcomes"
    return [f"{outcomes} = " + call("EvaluateDataQuality.apply", **keywords), *_stop_on_failure(node, outcomes),
            f"{var} = {frame}"]


@emitter("EvaluateDataQualityMultiFrame")
def evaluate_data_quality_multi(script: Script, node: Node, var: str) -> list[str]:
    script.need("from awsgluedq.transforms import EvaluateDataQuality")
    aliases = dict(node.body.get("AdditionalDataSources") or {})
    primary, *others = node.inputs
    unknown = [node_id for node_id in aliases.values() if node_id not in others]
    if unknown or len(aliases) != len(others):
        raise node.refuse("AdditionalDataSources must give an alias to every input after the first "
                          f"({', '.join(others) or 'none'}), got {json.dumps(aliases, sort_keys=True)}")
    sources = "{" + ", ".join(f"{lit(alias)}: {script.var(i)}" for alias, i in sorted(aliases.items())) + "}"
    keywords = {"frame": script.var(primary), "ruleset": lit(node.body["Ruleset"]),
                "publishing_options": lit(_dq_options(node.body))}
    if sources != "{}":
        keywords["additional_data_sources"] = sources
    if node.body.get("AdditionalOptions"):
        keywords["additional_options"] = lit(dict(sorted(node.body["AdditionalOptions"].items())))
    return [f"{var} = " + call("EvaluateDataQuality.apply", **keywords), *_stop_on_failure(node, var)]


@emitter("PIIDetection")
def pii_detection(script: Script, node: Node, var: str) -> list[str]:
    body = node.body
    try:
        entity_patterns(body["EntityTypesToDetect"])
    except PiiDetectionError as exc:
        raise node.refuse(str(exc)) from exc
    unsupported = [m for m in PII_UNSUPPORTED if body.get(m) is not None]
    if unsupported:
        raise node.refuse(f"{', '.join(unsupported)} of PIIDetection are not supported by glueball (regular "
                          "expressions per entity type; see docs/studio.md)")
    if body["PiiType"] not in PII_TYPES:
        raise node.refuse(f"PiiType {body['PiiType']} is not supported by glueball ({', '.join(PII_TYPES)})")
    _dynamic(script)
    script.need("from glueball.runtime.visual.pii import detect_pii")
    keywords = {"output_column": lit(body.get("OutputColumnName") or "DetectedEntities")}
    if body.get("MaskValue"):
        keywords["mask_value"] = lit(body["MaskValue"])
    for member, keyword in (("SampleFraction", "sample_fraction"), ("ThresholdFraction", "threshold_fraction")):
        if body.get(member) is not None:
            keywords[keyword] = lit(float(body[member]))
    detected = call("detect_pii", f"{_frame(script, node)}.toDF()", lit(body["PiiType"]),
                    lit(list(body["EntityTypesToDetect"])), **keywords)
    return [f"{var} = DynamicFrame.fromDF({detected}, glueContext, {lit(var)})"]


def _recipe_name(arn: str, node: Node) -> str:
    name = arn.rsplit(":recipe/", 1)[-1] if ":recipe/" in arn else ""
    if not name or "/" in name:
        raise node.refuse(f"RecipeReference.RecipeArn {arn!r} is not a DataBrew recipe ARN "
                          "(arn:aws:databrew:<region>:<account>:recipe/<name>)")
    return name


@emitter("Recipe")
def recipe(script: Script, node: Node, var: str) -> list[str]:
    from glueball.recipes.steps import RecipeStepError, check_steps

    steps = node.body.get("RecipeSteps")
    reference = node.body.get("RecipeReference")
    if (steps is None) == (reference is None):
        raise node.refuse("a Recipe node needs either RecipeSteps or a RecipeReference")
    _dynamic(script)
    script.need("from glueball.recipes import apply_recipe, recipe_steps" if reference else
                "from glueball.recipes import apply_recipe")
    if reference is not None:  # fetched when the job runs, with the run's identity, as Studio reads it
        name = _recipe_name(reference["RecipeArn"], node)
        version = reference["RecipeVersion"]
        lines = [f"# Recipe {name}, version {version}",
                 f"RecipeSteps_{var} = recipe_steps({lit(name)}, {lit(version)})"]
    else:
        steps = list(steps or [])
        try:
            check_steps(steps)
        except RecipeStepError as exc:
            raise node.refuse(str(exc)) from exc
        script.need("import json")
        rendered = json.dumps(steps, indent=4, sort_keys=True).replace("'", "\\u0027")
        lines = [f"# Recipe steps: {len(steps)}", f"RecipeSteps_{var} = json.loads(r'''{rendered}''')"]
    return [*lines, f"{var} = DynamicFrame.fromDF(apply_recipe({_frame(script, node)}.toDF(), RecipeSteps_{var}), "
                    f"glueContext, {lit(var)})"]


@emitter("DynamicTransform")
def dynamic_transform(script: Script, node: Node, var: str) -> list[str]:
    return dynamic_transform_call(script, node, var)
