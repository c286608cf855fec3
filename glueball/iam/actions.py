"""What each request asks permission for: its IAM action, the resource ARNs it touches, and the
request's own condition keys.

Glue (the AWS Glue Developer Guide, "Specifying AWS Glue resource ARNs"): every Data Catalog
operation needs the catalog, and the database and table it names (``GetTable`` needs
``catalog``, ``database/db`` and ``table/db/t``; listing a database's tables needs
``table/db/*``); jobs, crawlers, triggers, workflows, connections, data quality rulesets and
sessions, blueprints, dev endpoints and ML transforms have ARNs of their own; operations that name no
resource need ``*``. Requests that carry
tags set ``aws:RequestTag/*`` and ``aws:TagKeys``; requests that name NETWORK connections set
``glue:VpcIds``, ``glue:SubnetIds`` and ``glue:SecurityGroupIds`` from those connections.

IAM: the user, group, role or policy the request names (``iam:CreateUser`` on
``arn:aws:iam::<account>:user/<path><name>``), else ``*``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any
from urllib.parse import unquote

CATALOG_TABLE_OPS_WITHOUT_TABLE = frozenset({"GetTables", "BatchDeleteTable", "GetTableVersions"})


@dataclass(frozen=True)
class Ask:
    """One request's question to the policy evaluator."""

    action: str
    resources: tuple[str, ...]
    context: Mapping[str, str | list[str] | None] = field(default_factory=dict)


_NO_KEYS: Mapping[str, str | list[str] | None] = MappingProxyType({})  # shared by asks: never changed


def _tag_context(tags: Mapping[str, str] | None) -> dict[str, str | list[str] | None]:
    if not tags:
        return {}
    context: dict[str, str | list[str] | None] = {"aws:TagKeys": list(tags)}
    context.update({f"aws:RequestTag/{key}": value for key, value in tags.items()})
    return context


# the members of a request that names at most a database, a table or one other resource by name: its question
# depends on them alone (with the operation, account and region), so it is made once per name
_BY_NAME = frozenset({"CatalogId", "DatabaseName", "Name", "TableName"})
_NAME_TYPES = frozenset({str, type(None)})  # each name a string, or not given


def asked_by_name(request: Mapping[str, Any]) -> tuple[str | None, str | None, str | None] | None:
    """The ``DatabaseName``, ``Name`` and ``TableName`` of a request that names its resources by them alone (with
    perhaps a ``CatalogId``): its question is theirs, the operation's, the account's and the region's. None for
    any other request."""
    if len(request) <= len(_BY_NAME) and _BY_NAME.issuperset(request):
        named = request.get("DatabaseName"), request.get("Name"), request.get("TableName")
        if _NAME_TYPES.issuperset(map(type, named)):
            return named
    return None


def glue_ask(operation: str, request: Mapping[str, Any], account_id: str, region: str) -> Ask:
    """The action, resources and request keys of a Glue ``operation``."""
    named = asked_by_name(request)
    if named is not None:
        return _ask_by_name(operation, account_id, region, *named)
    return _glue_ask(operation, request, account_id, region)


@functools.lru_cache(maxsize=4096)
def _ask_by_name(operation: str, account_id: str, region: str, database: str | None, name: str | None,
                 table: str | None) -> Ask:
    named = {"DatabaseName": database, "Name": name, "TableName": table}
    return _glue_ask(operation, {k: v for k, v in named.items() if v is not None}, account_id, region)


def _glue_ask(operation: str, request: Mapping[str, Any], account_id: str, region: str) -> Ask:
    base = f"arn:aws:glue:{region}:{account_id}"
    catalog = f"{base}:catalog"
    resources: list[str] = []
    database = request.get("DatabaseName") or (request.get("DatabaseInput") or {}).get("Name")
    if operation in ("GetDatabase", "DeleteDatabase", "UpdateDatabase"):
        database = request.get("Name")
    table = request.get("TableName") or (request.get("TableInput") or {}).get("Name")
    if operation in ("GetTable", "DeleteTable"):
        table = request.get("Name")
    if database:
        resources += [catalog, f"{base}:database/{database}"]
        if table:
            resources.append(f"{base}:table/{database}/{table}")
        elif operation in CATALOG_TABLE_OPS_WITHOUT_TABLE or "TablesToDelete" in request:
            resources.append(f"{base}:table/{database}/*")
        function = request.get("FunctionName") or (request.get("FunctionInput") or {}).get("FunctionName")
        if function:
            resources.append(f"{base}:userDefinedFunction/{database}/{function}")
    elif operation in ("GetDatabases", "SearchTables", "GetCatalogImportStatus"):
        resources += [catalog, f"{base}:database/*"]
    for kind, names in _named(operation, request).items():
        if kind == "connection":  # connections live in the catalog
            resources.append(catalog)
        resources += [f"{base}:{kind}/{name}" for name in names]
    resources += _registry_resources(base, request)
    if "ResourceArn" in request:
        resources.append(str(request["ResourceArn"]))
    tags = request.get("Tags")
    return Ask(f"glue:{operation}", tuple(dict.fromkeys(resources)) or ("*",), _tag_context(tags) if tags else _NO_KEYS)


def _registry_resources(base: str, request: Mapping[str, Any]) -> list[str]:
    """The schema registry's resources a request names: its ``RegistryId`` and its ``SchemaId`` (a schema
    named by names is in its registry, ``default-registry`` when it names none)."""
    found: list[str] = []
    registry_id = request.get("RegistryId")
    if registry_id is not None and isinstance(registry_id, Mapping):
        if registry_id.get("RegistryArn"):
            found.append(str(registry_id["RegistryArn"]))
        elif registry_id.get("RegistryName"):
            found.append(f"{base}:registry/{registry_id['RegistryName']}")
    schema_id = request.get("SchemaId")
    if schema_id is not None and isinstance(schema_id, Mapping):
        if schema_id.get("SchemaArn"):
            found.append(str(schema_id["SchemaArn"]))
        elif schema_id.get("SchemaName"):
            registry = schema_id.get("RegistryName") or "default-registry"
            found += [f"{base}:registry/{registry}", f"{base}:schema/{registry}/{schema_id['SchemaName']}"]
    return found


# which request members name which kind of resource, per operation family
_NAMES: dict[str, tuple[str, ...]] = {
    "job": ("JobName", "JobNames", "Job"),
    "crawler": ("CrawlerName", "CrawlerNames", "Crawler"),
    "trigger": ("TriggerName", "TriggerNames", "Trigger"),
    "workflow": ("WorkflowName", "Workflow"),
    "connection": ("ConnectionName", "ConnectionNameList"),
    "dataQualityRuleset": ("RulesetName", "RulesetNames"),
    "session": ("SessionId",),
    "blueprint": ("BlueprintName",),
    "devEndpoint": ("EndpointName", "DevEndpointNames"),
    "mlTransform": ("TransformId",),
}
_NAME_OPERATIONS: dict[str, tuple[str, ...]] = {
    "job": ("CreateJob", "UpdateJob", "DeleteJob", "GetJob"),
    "crawler": ("CreateCrawler", "UpdateCrawler", "DeleteCrawler", "GetCrawler", "StartCrawler", "StopCrawler",
                "UpdateCrawlerSchedule", "StartCrawlerSchedule", "StopCrawlerSchedule"),
    "trigger": ("CreateTrigger", "UpdateTrigger", "DeleteTrigger", "GetTrigger", "StartTrigger", "StopTrigger"),
    "workflow": ("CreateWorkflow", "UpdateWorkflow", "DeleteWorkflow", "GetWorkflow", "StartWorkflowRun",
                 "StopWorkflowRun", "ResumeWorkflowRun", "GetWorkflowRun", "GetWorkflowRuns",
                 "GetWorkflowRunProperties", "PutWorkflowRunProperties"),
    "connection": ("CreateConnection", "UpdateConnection", "DeleteConnection", "GetConnection"),
    "dataQualityRuleset": ("CreateDataQualityRuleset", "UpdateDataQualityRuleset", "DeleteDataQualityRuleset",
                           "GetDataQualityRuleset"),
    "session": ("CreateSession", "GetSession", "DeleteSession", "StopSession", "RunStatement", "GetStatement",
                "ListStatements", "CancelStatement"),
    "blueprint": ("CreateBlueprint", "UpdateBlueprint", "DeleteBlueprint", "GetBlueprint"),
    "devEndpoint": (),
    "mlTransform": (),
}


_MEMBERS = frozenset(member for members in _NAMES.values() for member in members)
_NAMING_OPERATIONS = frozenset(operation for operations in _NAME_OPERATIONS.values() for operation in operations)


def _named(operation: str, request: Mapping[str, Any]) -> dict[str, list[str]]:
    if operation not in _NAMING_OPERATIONS and request.keys().isdisjoint(_MEMBERS):
        return {}  # most requests (catalog reads among them) name no such resource: asked once, not per kind
    found: dict[str, list[str]] = {}
    for kind, members in _NAMES.items():
        names: list[str] = []
        for member in members:
            value = request.get(member)
            if isinstance(value, str):
                names.append(value)
            elif isinstance(value, list):
                names += [v for v in value if isinstance(v, str)]
        if operation in _NAME_OPERATIONS[kind]:
            single = request.get("Name") or request.get("Id")
            if isinstance(single, str):
                names.append(single)
            connection = request.get("ConnectionInput")
            if kind == "connection" and isinstance(connection, dict) and connection.get("Name"):
                names.append(connection["Name"])
        if names:
            found[kind] = names
    return found


def iam_ask(operation: str, request: Mapping[str, Any], account_id: str,
            path_of: Callable[[str, str], str | None]) -> Ask:
    """The action and resources of an IAM ``operation``; ``path_of(kind, name)`` finds an existing
    entity's path (a new one's comes with the request)."""
    resources: list[str] = []
    for member, kind in (("UserName", "user"), ("GroupName", "group"), ("RoleName", "role")):
        name = request.get(member)
        if name:
            path = request.get("Path") or path_of(kind, name) or "/"
            resources.append(f"arn:aws:iam::{account_id}:{kind}{path}{name}")
    if request.get("PolicyArn"):
        resources.append(str(request["PolicyArn"]))
    elif operation == "CreatePolicy":
        resources.append(f"arn:aws:iam::{account_id}:policy{request.get('Path') or '/'}{request['PolicyName']}")
    tags = {t["Key"]: t["Value"] for t in request.get("Tags") or []}
    return Ask(f"iam:{operation}", tuple(resources) or ("*",), _tag_context(tags))


# S3 operations -> (action, on the object rather than the bucket); ``None``: on every resource ("*")
_S3_ACTIONS: dict[str, tuple[str, bool | None]] = {
    "ListBuckets": ("s3:ListAllMyBuckets", None),
    "CreateBucket": ("s3:CreateBucket", False), "DeleteBucket": ("s3:DeleteBucket", False),
    "HeadBucket": ("s3:ListBucket", False), "ListObjects": ("s3:ListBucket", False),
    "ListObjectsV2": ("s3:ListBucket", False), "GetBucketLocation": ("s3:GetBucketLocation", False),
    "ListMultipartUploads": ("s3:ListBucketMultipartUploads", False),
    "PutBucketTagging": ("s3:PutBucketTagging", False), "DeleteBucketTagging": ("s3:PutBucketTagging", False),
    "GetBucketTagging": ("s3:GetBucketTagging", False),
    "GetObject": ("s3:GetObject", True), "HeadObject": ("s3:GetObject", True),
    "PutObject": ("s3:PutObject", True), "CopyObject": ("s3:PutObject", True),
    "CreateMultipartUpload": ("s3:PutObject", True), "UploadPart": ("s3:PutObject", True),
    "CompleteMultipartUpload": ("s3:PutObject", True), "AbortMultipartUpload": ("s3:AbortMultipartUpload", True),
    "ListParts": ("s3:ListMultipartUploadParts", True), "DeleteObject": ("s3:DeleteObject", True),
    "DeleteObjects": ("s3:DeleteObject", True),
    "PutObjectTagging": ("s3:PutObjectTagging", True), "GetObjectTagging": ("s3:GetObjectTagging", True),
    "DeleteObjectTagging": ("s3:DeleteObjectTagging", True),
}


def s3_asks(operation: str, request: Mapping[str, Any]) -> list[Ask]:
    """What an S3 ``operation`` asks, as the S3 User Guide's "Actions, resources and condition keys" maps
    it: ``s3:ListBucket`` on the bucket (with ``s3:prefix``, ``s3:delimiter``, ``s3:max-keys``),
    ``s3:GetObject`` / ``s3:PutObject`` ... on ``arn:aws:s3:::bucket/key``. CopyObject also reads its
    source; DeleteObjects deletes each key it names."""
    action, on_object = _S3_ACTIONS.get(operation, (f"s3:{operation}", False))
    bucket = request.get("Bucket")
    if on_object is None or not bucket:
        return [Ask(action, ("*",))]
    if not on_object:
        context: dict[str, str | list[str] | None] = {}
        if operation in ("ListObjects", "ListObjectsV2"):
            context = {"s3:prefix": request.get("Prefix") or "", "s3:delimiter": request.get("Delimiter"),
                       "s3:max-keys": str(request["MaxKeys"]) if request.get("MaxKeys") is not None else None}
        return [Ask(action, (f"arn:aws:s3:::{bucket}",), context)]
    if operation == "DeleteObjects":
        keys = [str(item.get("Key")) for item in (request.get("Delete") or {}).get("Objects") or []]
        return [Ask(action, tuple(f"arn:aws:s3:::{bucket}/{key}" for key in keys) or (f"arn:aws:s3:::{bucket}/*",))]
    asks = [Ask(action, (f"arn:aws:s3:::{bucket}/{request.get('Key', '')}",))]
    if operation == "CopyObject":
        source = str(request.get("CopySource") or "").partition("?")[0]
        asks.append(Ask("s3:GetObject", (f"arn:aws:s3:::{unquote(source).lstrip('/')}",)))
    return asks


def databrew_ask(operation: str, request: Mapping[str, Any], account_id: str, region: str) -> Ask:
    """What a DataBrew recipe ``operation`` asks: ``databrew:<Operation>`` on the recipe it names
    (``arn:aws:databrew:<region>:<account>:recipe/<name>``), ``*`` for the listings of all recipes;
    CreateRecipe's tags set ``aws:RequestTag/*`` and ``aws:TagKeys``."""
    name = request.get("Name")
    resource = f"arn:aws:databrew:{region}:{account_id}:recipe/{name}" if name else "*"
    return Ask(f"databrew:{operation}", (resource,), _tag_context(request.get("Tags")))


_LOG_STREAM_OPERATIONS = frozenset({"CreateLogStream", "DeleteLogStream", "PutLogEvents", "GetLogEvents"})


def logs_ask(operation: str, request: Mapping[str, Any], account_id: str, region: str) -> Ask:
    """What a CloudWatch Logs ``operation`` asks: ``logs:<Operation>`` on the log group it names
    (``arn:aws:logs:<region>:<account>:log-group:<name>``), or on the stream for the stream operations
    (``...:log-group:<name>:log-stream:<stream>``); ``log-group:*`` for DescribeLogGroups. Tags given set
    ``aws:RequestTag/*`` and ``aws:TagKeys``."""
    base = f"arn:aws:logs:{region}:{account_id}:log-group:"
    arn = request.get("resourceArn") or request.get("logGroupIdentifier")
    if isinstance(arn, str) and arn.startswith("arn:"):
        group = arn.split(":log-group:", 1)[-1].removesuffix(":*")
    else:
        group = str(request.get("logGroupName") or arn or "*")
    resource = base + group
    if operation in _LOG_STREAM_OPERATIONS and request.get("logStreamName"):
        resource += f":log-stream:{request['logStreamName']}"
    tags = request.get("tags") if isinstance(request.get("tags"), Mapping) else None
    return Ask(f"logs:{operation}", (resource,), _tag_context(tags))


def cloudwatch_ask(operation: str, request: Mapping[str, Any]) -> Ask:
    """What a CloudWatch metrics ``operation`` asks: ``cloudwatch:<Operation>`` on ``*`` (metrics have no
    ARNs); PutMetricData sets ``cloudwatch:namespace``."""
    context: dict[str, str | list[str] | None] = {}
    if operation == "PutMetricData":
        context["cloudwatch:namespace"] = str(request.get("Namespace"))
    return Ask(f"cloudwatch:{operation}", ("*",), context)


# Athena's operations on what they name: a workgroup (the query's, the named query's, the request's, else primary)
# or a data catalog; listings of workgroups and catalogs, and engine versions, name none
_ATHENA_ANY = frozenset({"ListWorkGroups", "ListDataCatalogs", "ListEngineVersions", "ListCapacityReservations"})
_ATHENA_CATALOG = frozenset({"CreateDataCatalog", "GetDataCatalog", "UpdateDataCatalog", "DeleteDataCatalog",
                             "ListDatabases", "GetDatabase", "ListTableMetadata", "GetTableMetadata"})


def athena_ask(operation: str, request: Mapping[str, Any], account_id: str, region: str,
               workgroup_of: Callable[[str, str], str | None]) -> Ask:
    """What an Athena ``operation`` asks: ``athena:<Operation>`` on the workgroup it acts in
    (``arn:aws:athena:<region>:<account>:workgroup/<name>``: the request's ``WorkGroup``, the workgroup of the
    query execution or named query it names, ``primary`` by default), on the data catalog it names
    (``datacatalog/<name>``), on the tagged resource's ARN, or ``*`` for the listings of workgroups and
    catalogs. ``workgroup_of(kind, id)`` finds the workgroup of a ``query`` or ``named`` query. Tags given set
    ``aws:RequestTag/*`` and ``aws:TagKeys``."""
    base = f"arn:aws:athena:{region}:{account_id}"
    action = f"athena:{operation}"
    tags = {t.get("Key", ""): t.get("Value", "") for t in request.get("Tags") or [] if isinstance(t, Mapping)}
    if operation in _ATHENA_ANY:
        return Ask(action, ("*",))
    if request.get("ResourceARN"):
        return Ask(action, (str(request["ResourceARN"]),), _tag_context(tags))
    if operation in _ATHENA_CATALOG:
        return Ask(action, (f"{base}:datacatalog/{request.get('Name') or request.get('CatalogName')}",),
                   _tag_context(tags))
    workgroup = request.get("WorkGroup") or (request.get("Name") if "WorkGroup" in operation else None)
    ids = [request.get("QueryExecutionId"), *(request.get("QueryExecutionIds") or [])]
    named = [request.get("NamedQueryId"), *(request.get("NamedQueryIds") or [])]
    groups = {workgroup} if workgroup else set()
    groups |= {workgroup_of("query", str(i)) or "primary" for i in ids if i}
    groups |= {workgroup_of("named", str(i)) or "primary" for i in named if i}
    return Ask(action, tuple(f"{base}:workgroup/{g}" for g in sorted(groups or {"primary"})), _tag_context(tags))
