"""The composition root: one glueball installation, wired.

:class:`Glueball` builds the settings, the store, the scheduler's clock, the runners of the
long-running things (crawls, job runs) and the edge, then mounts each area's operations on the
edge with only what that area declared it needs (``glueball/<area>/area.py``). Both the HTTP
server (:mod:`glueball.server`) and the in-process clients (:func:`embedded_client`) serve requests through
the same :meth:`Glueball.handle`, so embedded use and server use behave the same.

Only entry points import this module: the CLI, the demo, the server (:mod:`glueball.server`), and the
runtime's embedded client (by name, :mod:`glueball.runtime.client`).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from pathlib import Path
from typing import IO, Any

import botocore.client

from glueball.api.identity import Caller
from glueball.api.operations import Request
from glueball.athena import handlers as _athena  # noqa: F401
from glueball.athena import internal_handlers as _athena_engines  # noqa: F401
from glueball.athena import resource_handlers as _athena_resources  # noqa: F401
from glueball.athena.area import INTERNAL_OPERATIONS as ATHENA_INTERNAL_OPERATIONS
from glueball.athena.area import OPERATIONS as ATHENA_OPERATIONS
from glueball.athena.area import AthenaNeeds
from glueball.athena.engines import EngineRunner
from glueball.athena.engines import reconcile as reconcile_athena_engines
from glueball.athena.queries import workgroup_of as athena_workgroup_of
from glueball.blueprints import handlers as _blueprints  # noqa: F401
from glueball.blueprints.area import OPERATIONS as BLUEPRINT_OPERATIONS
from glueball.blueprints.area import BlueprintNeeds
from glueball.catalog import encryption_handlers as _catalog_encryption  # noqa: F401 - registers on the area
from glueball.catalog import function_handlers as _catalog_functions  # noqa: F401 - registers on the area
from glueball.catalog import handlers as _catalog  # noqa: F401
from glueball.catalog import partition_handlers as _catalog_partitions  # noqa: F401
from glueball.catalog import statistics_handlers as _catalog_statistics  # noqa: F401
from glueball.catalog import statistics_task_handlers as _catalog_statistics_tasks  # noqa: F401
from glueball.catalog import taggable as _catalog_taggable  # noqa: F401 - databases and tables are taggable
from glueball.catalog.area import OPERATIONS as CATALOG_OPERATIONS
from glueball.catalog.area import STATISTICS_TASK_OPERATIONS, CatalogNeeds, StatisticsTaskNeeds
from glueball.catalog.tables import TableService
from glueball.clock import SchedulerClock
from glueball.config import DEFAULT_ACCOUNT_ID, Settings
from glueball.connections import handlers as _connections  # noqa: F401
from glueball.connections.area import OPEN_ENUMS as CONNECTION_OPEN_ENUMS
from glueball.connections.area import OPERATIONS as CONNECTION_OPERATIONS
from glueball.connections.area import ConnectionNeeds
from glueball.connections.service import ConnectionService
from glueball.console.calls import ConsoleNeeds
from glueball.crawlers import handlers as _crawlers  # noqa: F401
from glueball.crawlers.area import OPERATIONS as CRAWLER_OPERATIONS
from glueball.crawlers.area import CrawlerNeeds
from glueball.crawlers.crawl_runs import CrawlRunner, log_path
from glueball.crawlers.crawl_runs import reconcile as reconcile_crawls
from glueball.dataquality import handlers as _dataquality  # noqa: F401
from glueball.dataquality.area import INTERNAL_OPERATIONS as DQ_INTERNAL_OPERATIONS
from glueball.dataquality.area import OPERATIONS as DQ_OPERATIONS
from glueball.dataquality.area import DataQualityNeeds
from glueball.devendpoints import handlers as _devendpoints  # noqa: F401
from glueball.devendpoints.area import OPERATIONS as DEV_ENDPOINT_OPERATIONS
from glueball.devendpoints.area import DevEndpointNeeds
from glueball.edge.inprocess import answer_in_process
from glueball.edge.model import service_model
from glueball.edge.protocols.icebergrest import IcebergRestProtocol
from glueball.edge.protocols.s3 import S3Protocol
from glueball.edge.router import Edge
from glueball.edge.sigv4 import AccountDirectory
from glueball.edge.validation import validate
from glueball.edge.wire import WireRequest, WireResponse
from glueball.errors import AccessDeniedException, GlueError, ServiceError
from glueball.health import readiness
from glueball.iam import glue_policy_handlers as _glue_policies  # noqa: F401
from glueball.iam import iam_handlers as _iam  # noqa: F401
from glueball.iam import sts_handlers as _sts  # noqa: F401
from glueball.iam.area import GLUE_POLICY_OPERATIONS, IAM_OPERATIONS, STS_OPERATIONS, IdentityNeeds
from glueball.iam.authorizer import Authorizer
from glueball.iam.credentials import Identities, RunIdentityError
from glueball.iam.policies import PolicyService
from glueball.iam.resource_policies import ResourcePolicies
from glueball.iam.service import IamService
from glueball.icebergrest import area as iceberg_rest
from glueball.icebergrest import handlers as _iceberg_rest  # noqa: F401 - registers on the area
from glueball.icebergrest import metadata as iceberg_metadata
from glueball.jobs import bookmark_handlers as _bookmarks  # noqa: F401
from glueball.jobs import handlers as _jobs  # noqa: F401
from glueball.jobs.area import INTERNAL_OPERATIONS as JOB_INTERNAL_OPERATIONS
from glueball.jobs.area import OPERATIONS as JOB_OPERATIONS
from glueball.jobs.area import JobNeeds
from glueball.jobs.eventlog import timeline
from glueball.jobs.job_runs import JobRunner
from glueball.jobs.job_runs import reconcile as reconcile_job_runs
from glueball.jobs.launcher import LaunchError, default_shape
from glueball.lakeformation import handlers as _lakeformation  # noqa: F401
from glueball.lakeformation.area import OPERATIONS as LAKE_FORMATION_OPERATIONS
from glueball.lakeformation.area import LakeFormationNeeds
from glueball.logs import handlers as _logs  # noqa: F401
from glueball.logs import metric_handlers as _metrics  # noqa: F401
from glueball.logs.area import METRIC_OPERATIONS, LogsNeeds
from glueball.logs.area import OPERATIONS as LOG_OPERATIONS
from glueball.logs.ingest import Ingester
from glueball.logs.run_sources import run_logs
from glueball.mltransforms import handlers as _mltransforms  # noqa: F401
from glueball.mltransforms.area import OPERATIONS as ML_TRANSFORM_OPERATIONS
from glueball.mltransforms.area import MLTransformNeeds
from glueball.objects import handlers as _objects  # noqa: F401
from glueball.objects import upload_handlers as _uploads  # noqa: F401
from glueball.objects.access import LocalObjects, installation_objects
from glueball.objects.area import S3_OPERATIONS, ObjectNeeds
from glueball.objects.locations import parse_s3
from glueball.objects.remote import RemoteNeeds, RemoteStore, forwarding_operations
from glueball.objects.store import ObjectStore
from glueball.recipes import handlers as _recipes  # noqa: F401
from glueball.recipes.area import OPERATIONS as RECIPE_OPERATIONS
from glueball.recipes.area import RecipeNeeds
from glueball.registry import confluent
from glueball.registry import handlers as _registry  # noqa: F401
from glueball.registry.area import OPERATIONS as REGISTRY_OPERATIONS
from glueball.registry.area import RegistryNeeds
from glueball.registry.references import referenced_columns
from glueball.runtime import jvmshare
from glueball.runtime.client import boto3_session
from glueball.runtime.lake import endpoint_variables
from glueball.runtime.spark import driver_jars, jdbc_jars
from glueball.runtime.streaming.metrics import METRICS_FILE
from glueball.security import handlers as _security  # noqa: F401
from glueball.security.area import OPERATIONS as SECURITY_OPERATIONS
from glueball.security.area import SecurityNeeds
from glueball.sessions import handlers as _sessions  # noqa: F401
from glueball.sessions.area import INTERNAL_OPERATIONS as SESSION_INTERNAL_OPERATIONS
from glueball.sessions.area import OPERATIONS as SESSION_OPERATIONS
from glueball.sessions.area import SessionNeeds
from glueball.sessions.runner import SessionRunner
from glueball.sessions.runner import reconcile as reconcile_sessions
from glueball.store.engine import Store
from glueball.store.scoped import Scope
from glueball.supervise.driverenv import HOME as HOME_VARIABLE
from glueball.supervise.driverenv import RUN_VARIABLES, DriverEnv
from glueball.supervise.warm import Shape, WarmPool, driver_env
from glueball.tagging import handlers as _tagging  # noqa: F401
from glueball.tagging.area import OPERATIONS as TAGGING_OPERATIONS
from glueball.tagging.area import TaggingNeeds
from glueball.tagging.service import tags_of
from glueball.usage import handlers as _usage  # noqa: F401
from glueball.usage.area import INTERNAL_OPERATIONS as USAGE_OPERATIONS
from glueball.usage.area import UsageNeeds
from glueball.workflows import handlers as _workflows  # noqa: F401
from glueball.workflows.area import INTERNAL_OPERATIONS as WORKFLOW_INTERNAL_OPERATIONS
from glueball.workflows.area import OPERATIONS as WORKFLOW_OPERATIONS
from glueball.workflows.area import WorkflowNeeds
from glueball.workflows.scheduler import Scheduler

log = logging.getLogger("glueball")
# what a warm driver must not inherit from the server: any run's own variables, and where Spark was told to go
DRIVER_VARIABLES = (*RUN_VARIABLES, "GLUEBALL_SPARK_CONF", "GLUEBALL_SPARK_MASTER")

GLUE_TARGET_PREFIX = "AWSGlue"
LOGS_TARGET_PREFIX = "Logs_20140328"
ATHENA_TARGET_PREFIX = "AmazonAthena"
INTERNAL_TARGET_PREFIX = "Glueball"


def own_catalog_only(caller: Caller, operation: str, request: Request) -> None:
    """Glue requests name the caller's own catalog, or none (cross-account access comes with identity)."""
    catalog_id = request.get("CatalogId")
    if catalog_id is not None and catalog_id != caller.account_id:
        raise AccessDeniedException(
            f"Cross-account access to catalog {catalog_id} is not allowed for account {caller.account_id}"
        )


def check_data_quality_result(result: Any) -> None:
    """A published result has Glue's ``DataQualityResult`` shape (as the model validator checks it)."""
    validate(service_model("glue").shape_for("DataQualityResult"), result)


class Glueball:
    """The services of one ``GLUEBALL_HOME``, wired to one edge."""

    def __init__(self, settings: Settings | None = None, accounts: AccountDirectory | None = None,
                 migrate: bool = True, clock: SchedulerClock | None = None) -> None:
        self.settings = settings or Settings()
        self.settings.ensure_dirs()
        self.store = Store(self.settings.database_url, migrate=migrate)
        self.accounts = accounts or AccountDirectory()
        self.clock = clock or SchedulerClock()  # every area is wired with this one clock
        self.scheduler: Scheduler | None = None
        self.serves_runs = False  # until reconcile(): what a stopped process left running is not ours
        self.iam = IamService(self.store)
        self.policies = PolicyService(self.iam)
        self.identities = Identities(self.iam, self.policies)
        self.resource_policies = ResourcePolicies(self.iam)
        self.authorizer = Authorizer(self.iam, self.identities, self.connection_network, self.resource_policies,
                                     lambda arns: tags_of(self.store, arns), self.bucket_owner)
        self.authorizer.athena_workgroup_of = lambda account, region, kind, found: athena_workgroup_of(
            self.store, account, region, kind, found)
        enforced = self.settings.auth == "iam"
        self.crawls = CrawlRunner(self.store, self.settings, self.crawl_client, self.action_ended)
        self.warm = WarmPool(self.settings.home / "warm", self.settings.warm_drivers, self.warm_driver_env,
                             lambda: bool(self.jobs.active()))
        self.jobs = JobRunner(self.store, self.settings, self.action_ended, self.run_identity if enforced else None,
                              self.warm)
        self.sessions = SessionRunner(self.store, self.settings, self.run_identity if enforced else None, self.warm)
        self.athena = EngineRunner(self.store, self.settings.home, self.warm, self.athena_engine_plan)
        self.objects = ObjectStore(self.settings.object_store, self.settings.object_work,
                                   self.accounts.default_account, self.settings.region)
        # what glueball's own readers and writers reach s3:// through: the folder, or the remote store
        self.object_access = installation_objects(self.settings.home, self.settings.object_store_url)
        # what runs write, read into CloudWatch Logs and metrics (before each read; every second in a server)
        self.run_logs = Ingester(self.store, lambda since: run_logs(
            self.store, lambda crawler, crawl_id: log_path(self.settings.home, crawler, crawl_id), METRICS_FILE,
            since), timeline)
        self.edge = self._wire()

    def warm_driver_env(self) -> dict[str, str]:
        """What a warm driver starts with: this process's environment without any run's variables, in this
        installation (``--home`` need not be exported). A run it takes brings its own (glueball.runtime.warm_driver)."""
        env = driver_env(DRIVER_VARIABLES)
        env[HOME_VARIABLE] = str(self.settings.home)
        return env

    def start_warm_drivers(self, default: bool = True) -> None:
        """Keep warm drivers (``--warm-drivers``; 0: none) of the shapes of the Spark jobs changed or run most
        recently, of a default Glue job's (unless not ``default``), and of an Athena engine's once this installation
        has run an Athena query."""
        shapes = self.jobs.recent_shapes()
        if default:
            shapes.append(default_shape(self.settings.home))
        if self.athena.ever_started():  # an installation that runs Athena queries: its engine's shape
            shapes.append(self.athena_engine_shape())
        for shape in shapes:
            self.warm.want(shape)

    def await_warm_driver(self, timeout: float = 180.0) -> bool:
        """Wait until a warm driver of a default Glue job's shape is ready (False: none within ``timeout``, or the
        installation keeps none)."""
        return self.warm.wait_ready(default_shape(self.settings.home), timeout)

    def reconcile(self) -> None:
        """Settle what a stopped process left running: crawls end FAILED, job runs are watched again or FAILED.

        Only processes that serve runs call this (``glueball server``, the CLI's embedded commands); an
        embedded installation inside a driver never does, so it cannot take over the server's runs.
        """
        self.serves_runs = True
        reconcile_crawls(self.store, self.settings.home)
        reconcile_job_runs(self.store, self.jobs)
        reconcile_sessions(self.store, self.sessions)
        reconcile_athena_engines(self.store, self.athena)

    def _wire(self) -> Edge:
        enforce = self.settings.auth == "iam"
        edge = Edge(self.accounts, self.settings.region, self.identities.authenticate if enforce else None,
                    body_spool=self.objects.spool)
        # --auth off: a request names the caller's own catalog; iam: policies decide, resource policies included
        glue_guard = self.authorizer.glue_guard if enforce else own_catalog_only
        edge.add_json_service("glue", GLUE_TARGET_PREFIX, guard=glue_guard, default=True,
                              open_enums=CONNECTION_OPEN_ENUMS)
        edge.add_json_service("glueball", INTERNAL_TARGET_PREFIX, validates=False,
                              guard=self.authorizer.internal_guard if enforce else None)
        edge.add_query_service("sts")
        edge.add_query_service("iam", guard=self.authorizer.iam_guard if enforce else None)
        edge.add_rest_service("s3", guard=self.authorizer.s3_guard if enforce else None,
                              protocol=S3Protocol(service_model("s3"), ("localhost", *self.settings.s3_domains)),
                              spool=self.objects.spool, unsigned=True)
        edge.add_rest_service("databrew", guard=self.authorizer.databrew_guard if enforce else None)
        edge.add_json_service("logs", LOGS_TARGET_PREFIX, guard=self.authorizer.logs_guard if enforce else None,
                              validation_code="InvalidParameterException")
        edge.add_query_service("cloudwatch", guard=self.authorizer.cloudwatch_guard if enforce else None)
        edge.add_json_variant("cloudwatch", validation_code="InvalidParameterValue")
        edge.add_rest_service("lakeformation")  # every grant refused: nothing for a policy to allow
        edge.add_json_service("athena", ATHENA_TARGET_PREFIX, guard=self.authorizer.athena_guard if enforce else None,
                              validation_code="InvalidRequestException")
        catalog = CatalogNeeds(self.store, lambda scope, reference: referenced_columns(self.store, scope, reference),
                               lambda name, iceberg, given: iceberg_metadata.create_table_files(
                                   name, iceberg, given, self.write_object))
        edge.mount(CATALOG_OPERATIONS, catalog)
        edge.mount(STATISTICS_TASK_OPERATIONS, StatisticsTaskNeeds(self.store, self.settings, lambda: self.serves_runs,
                                                                   self.run_identity if enforce else None))
        edge.mount(CONNECTION_OPERATIONS, ConnectionNeeds(self.store, jdbc_jars))
        edge.mount(TAGGING_OPERATIONS, TaggingNeeds(self.store))
        registry = RegistryNeeds(self.store)
        edge.mount(REGISTRY_OPERATIONS, registry)
        edge.add_path_service("confluent", confluent.PREFIX, confluent.CONTENT_TYPE,
                              guard=self.confluent_guard if enforce else None)
        edge.mount(confluent.OPERATIONS, registry)
        edge.add_path_service("icebergrest", iceberg_rest.PREFIX, iceberg_rest.CONTENT_TYPE,
                              signed=True,
                              protocol=IcebergRestProtocol(iceberg_rest.PREFIX, iceberg_rest.CONTENT_TYPE))
        edge.mount(iceberg_rest.OPERATIONS, iceberg_rest.IcebergRestNeeds(
            self.caller_glue_client, self.read_object,
            self.write_object, self.settings.endpoint))
        edge.mount(CRAWLER_OPERATIONS, CrawlerNeeds(self.store, self.clock, self.crawls))
        jobs = JobNeeds(self.store, self.jobs)
        edge.mount(JOB_OPERATIONS, jobs)
        edge.mount(JOB_INTERNAL_OPERATIONS, jobs)
        quality = DataQualityNeeds(self.store, self.settings, check_data_quality_result, lambda: self.serves_runs,
                                   self.run_identity if enforce else None)
        edge.mount(DQ_OPERATIONS, quality)
        edge.mount(DQ_INTERNAL_OPERATIONS, quality)
        workflows = self.workflow_needs()
        edge.mount(WORKFLOW_OPERATIONS, workflows)
        edge.mount(WORKFLOW_INTERNAL_OPERATIONS, workflows)
        identity = IdentityNeeds(self.iam, self.policies, self.identities, self.resource_policies)
        edge.mount(STS_OPERATIONS, identity)
        edge.mount(IAM_OPERATIONS, identity)
        edge.mount(GLUE_POLICY_OPERATIONS, identity)
        edge.mount(USAGE_OPERATIONS, UsageNeeds(self.store))
        edge.mount(SECURITY_OPERATIONS, SecurityNeeds(self.store))
        edge.mount(DEV_ENDPOINT_OPERATIONS, DevEndpointNeeds(self.store))
        edge.mount(ML_TRANSFORM_OPERATIONS, MLTransformNeeds(self.store, self.table_columns))
        edge.mount(BLUEPRINT_OPERATIONS, BlueprintNeeds(self.store, self.settings.home, self.read_object,
                                                        self.crawl_client, self.layout_env, lambda: self.serves_runs))
        session_needs = SessionNeeds(self.store, self.sessions)
        edge.mount(SESSION_OPERATIONS, session_needs)
        edge.mount(SESSION_INTERNAL_OPERATIONS, session_needs)
        edge.mount(RECIPE_OPERATIONS, RecipeNeeds(self.store))
        logs = LogsNeeds(self.store, self.run_logs.sync)
        edge.mount(LOG_OPERATIONS, logs)
        edge.mount(METRIC_OPERATIONS, logs)
        edge.mount(LAKE_FORMATION_OPERATIONS, LakeFormationNeeds())
        athena = AthenaNeeds(self.store, self.settings.home, self.athena_queued, self.open_object,
                             self.caller_glue_client, self.query_credentials, self.catalog_table,
                             self.athena_has_iceberg)
        edge.mount(ATHENA_OPERATIONS, athena)
        edge.mount(ATHENA_INTERNAL_OPERATIONS, athena)
        if self.settings.object_store_url:  # the objects live in another S3-compatible store
            remote = RemoteStore.parse(self.settings.object_store_url)
            edge.mount(forwarding_operations(), RemoteNeeds(remote.client(), self.objects.spool))
        else:
            edge.mount(S3_OPERATIONS, ObjectNeeds.of(self.objects))
        return edge

    def table_columns(self, scope: Scope, database: str, table: str) -> list[dict[str, Any]]:
        """A catalog table's columns (Glue ``Column`` structures), its partition keys last.

        Raises:
            EntityNotFoundException: no such database or table.
        """
        spec = self.catalog_table(scope, database, table)
        return [*((spec.get("StorageDescriptor") or {}).get("Columns") or []), *(spec.get("PartitionKeys") or [])]

    def catalog_table(self, scope: Scope, database: str, table: str) -> dict[str, Any]:
        """A catalog table as stored (its ``TableInput`` shape).

        Raises:
            EntityNotFoundException: no such database or table.
        """
        return dict(TableService(self.store, scope).get(database, table).spec)

    def read_object(self, uri: str) -> bytes:
        """The bytes of the object at ``s3://bucket/key`` (in the remote object store when there is one).

        Raises:
            FileNotFoundError: there is no such object. ValueError: not an s3 URI of one object.
        """
        location = parse_s3(uri)
        if location.folder or not location.key:
            raise ValueError(f"{uri} names no object")
        return self.object_access.read(uri)

    def open_object(self, uri: str) -> IO[bytes]:
        """A readable binary file of the object at ``s3://bucket/key`` (Athena's result files, read a page at a time).

        Raises:
            FileNotFoundError: there is no such object.
        """
        return self.object_access.open(uri)

    def athena_queued(self) -> None:
        """An Athena query waits for an engine: a serving process starts one (an embedded one leaves it queued)."""
        if self.serves_runs:
            self.athena.queued()

    def query_credentials(self, access_key: str | None) -> tuple[str, str, str | None] | None:
        """What an Athena engine signs a query's requests with: the credentials of the key that started it (with
        ``--auth iam``, its secret as the server knows it; None once the key is no longer valid)."""
        if self.settings.auth != "iam":
            return access_key or "glueball", "glueball", None
        holder = self.identities.authenticate(access_key) if access_key else None
        if holder is None or not holder.active or (holder.expires_at is not None and holder.expires_at < time.time()):
            return None
        return access_key or "", holder.secret, holder.session_token

    def caller_glue_client(self, caller: Caller) -> Any:
        """A Glue client acting as ``caller``, signed with its credentials under ``--auth iam`` so that Glue's policies
        decide (Athena's catalog operations, the Iceberg REST endpoint's)."""
        credentials = self.query_credentials(caller.access_key)
        key, secret, token = credentials or (caller.access_key or "", "", None)
        return embedded_client(self, "glue", key, caller.region, secret, token)

    def athena_engine_plan(self, engine_id: str, folder: Path) -> tuple[Shape, dict[str, str]]:
        """The shape of an Athena engine's driver (a default Glue job's, so a warm driver takes it) and its
        environment: this installation, this server's endpoint, and credentials for glueball's own operations
        (with ``--auth iam``, the default account's root key)."""
        env = {k: v for k, v in os.environ.items() if k not in DRIVER_VARIABLES and k != "PYSPARK_SUBMIT_ARGS"}
        endpoint = self.settings.endpoint
        DriverEnv(home=self.settings.home, endpoint=endpoint, store_url="" if endpoint else self.settings.store_url,
                  log_dir=folder).apply(env)
        env.update({"AWS_REGION": self.settings.region, "AWS_DEFAULT_REGION": self.settings.region,
                    "PYTHONUNBUFFERED": "1"})
        if endpoint:
            env.update(endpoint_variables(endpoint))
        key = self.iam.root_key(DEFAULT_ACCOUNT_ID) if self.settings.auth == "iam" else None
        env["AWS_ACCESS_KEY_ID"], env["AWS_SECRET_ACCESS_KEY"] = key or ("glueball", "glueball")
        env.pop("AWS_SESSION_TOKEN", None)
        # the engine's JVM starts from a class-data-sharing archive of its jars (with Iceberg's): built once
        jvmshare.build_in_background(driver_jars(("iceberg",) if self.athena_has_iceberg() else ()))
        return self.athena_engine_shape(), env

    def athena_has_iceberg(self) -> bool:
        from glueball import jvm

        return jvm.available("iceberg") is not None

    def athena_engine_shape(self) -> Shape:
        """An Athena engine's driver: a default Glue job's with Iceberg (``--datalake-formats iceberg``: its jars on
        the JVM, ``glue_catalog`` over this catalog) when this installation has Iceberg's jars, so that it reads and
        writes the catalog's Iceberg tables; without them a default job's, and Iceberg statements are refused naming
        ``glueball jars fetch iceberg``."""
        iceberg = {"--datalake-formats": "iceberg"} if self.athena_has_iceberg() else None
        return default_shape(self.settings.home, iceberg)

    def write_object(self, uri: str, data: bytes) -> None:
        """Write ``data`` as the object at ``s3://bucket/key`` (in the remote object store when there is one), in
        one step: a reader sees the whole object or none.

        Raises:
            ServiceError: S3's (NoSuchBucket...). ValueError: not an s3 URI of one object.
        """
        import hashlib
        import tempfile

        from glueball.objects.models import ObjectMeta

        location = parse_s3(uri)
        if location.folder or not location.key:
            raise ValueError(f"{uri} names no object")
        if self.settings.object_store_url:
            self.object_access.write(uri, data)
            return
        handle, name = tempfile.mkstemp(dir=self.objects.spool)
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        try:
            meta = ObjectMeta(hashlib.md5(data).hexdigest(), len(data), 0, "application/json")
            self.objects.place(location.bucket, location.key, Path(name), meta)
        finally:
            Path(name).unlink(missing_ok=True)

    def layout_env(self, scope: Scope, access_key: str | None, role: str, run_id: str) -> dict[str, str]:
        """The environment of a process that runs user code for this installation outside a job (a blueprint's
        layout script): its boto3 clients reach this server (or the embedded installation), as the caller or,
        with ``--auth iam``, as ``role``."""
        env = {k: v for k, v in os.environ.items() if k not in DRIVER_VARIABLES}
        endpoint = self.settings.endpoint
        DriverEnv(home=self.settings.home, endpoint=endpoint, store_url="" if endpoint else self.settings.store_url
                  ).apply(env)
        env.update({"AWS_REGION": scope.region, "AWS_DEFAULT_REGION": scope.region, "PYTHONUNBUFFERED": "1"})
        if endpoint:
            env.update(endpoint_variables(endpoint))
        if self.settings.auth == "iam":
            env["AWS_ACCESS_KEY_ID"], env["AWS_SECRET_ACCESS_KEY"], env["AWS_SESSION_TOKEN"] = \
                self.run_identity(scope, role, run_id, 3600)
        else:
            env["AWS_ACCESS_KEY_ID"] = access_key or "glueball"
            env["AWS_SECRET_ACCESS_KEY"] = "glueball"
            env.pop("AWS_SESSION_TOKEN", None)
        return env
    def confluent_guard(self, caller: Caller, operation: str, request: Request) -> Caller | None:
        """With ``--auth iam``, a Confluent request is authorized as the Glue registry operation it amounts to."""
        glue_operation, glue_request = confluent.glue_equivalent(request)
        try:
            return self.authorizer.glue_guard(caller, glue_operation, glue_request)
        except AccessDeniedException as err:
            raise confluent.ConfluentError(40301, 403, err.message) from None

    def bucket_owner(self, bucket: str) -> str | None:
        """The account that owns an S3 bucket, None when there is no such bucket."""
        try:
            return self.objects.bucket(bucket).owner
        except ServiceError:
            return None

    def run_identity(self, scope: Scope, role: str, run_id: str, seconds: float) -> tuple[str, str, str]:
        """With ``--auth iam``, the temporary credentials a run (job run, data quality run, crawl) acts with:
        its role's, minted for it.

        Raises:
            LaunchError: the run cannot act as its role (no such role, or it does not trust Glue).
        """
        try:
            return self.identities.run_credentials(scope.account_id, role, run_id, seconds)
        except RunIdentityError as exc:
            raise LaunchError(str(exc)) from exc

    def crawl_client(self, scope: Scope, access_key: str | None, role: str, crawl_id: str) -> Any:
        """The Glue client a crawl writes the catalog with: as its role with ``--auth iam``."""
        if self.settings.auth != "iam":
            return self.client(access_key=access_key, region=scope.region)
        key, secret, token = self.run_identity(scope, role, crawl_id, 24 * 3600)
        return embedded_client(self, "glue", key, scope.region, secret, token)

    def connection_network(self, account_id: str, region: str, names: list[str]) -> dict[str, list[str]]:
        """``glue:VpcIds``, ``glue:SubnetIds`` and ``glue:SecurityGroupIds`` of the named connections (those
        with a subnet; the subnet's VPC as declared with ``--subnet-vpc``). An unknown connection adds none."""
        vpcs: list[str] = []
        subnets: list[str] = []
        groups: list[str] = []
        connections = ConnectionService(self.store, Scope(account_id, region))
        for name in names:
            try:
                physical = connections.get(name).physical
            except GlueError:
                continue
            if physical is None or not physical.subnet_id:
                continue
            subnets.append(physical.subnet_id)
            groups += physical.security_group_ids
            vpc = self.settings.subnet_vpcs.get(physical.subnet_id)
            if vpc:
                vpcs.append(vpc)
        found = {"glue:VpcIds": vpcs, "glue:SubnetIds": subnets, "glue:SecurityGroupIds": groups}
        return {key: list(dict.fromkeys(values)) for key, values in found.items() if values}

    def ensure_root_key(self, account_id: str = DEFAULT_ACCOUNT_ID) -> tuple[str, str] | None:
        """With ``--auth iam``, the account's root access key on first start: created, written to
        ``$GLUEBALL_HOME/credentials`` (an AWS shared-credentials file, mode 0600, profile ``glueball``)
        and returned once; None when the account already has one."""
        if self.iam.has_root_key(account_id):
            return None
        key = self.iam.create_access_key(account_id, None)
        assert key.secret is not None
        path = self.settings.home / "credentials"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(f"[glueball]\naws_access_key_id = {key.access_key_id}\n"
                      f"aws_secret_access_key = {key.secret}\n")
        os.chmod(path, 0o600)
        return key.access_key_id, key.secret

    def workflow_needs(self) -> WorkflowNeeds:
        return WorkflowNeeds(self.store, self.clock, self.jobs, self.crawls, self.action_ended)

    def start_scheduler(self, interval: float | None = None) -> Scheduler:
        """Run the scheduler in this process (``glueball server`` and the demo do; embedded clients do not)."""
        if self.scheduler is None:
            self.scheduler = Scheduler(self.workflow_needs(), interval)
            self.scheduler.start()
        return self.scheduler

    def action_ended(self) -> None:
        """A job run or crawl of this process ended: let the scheduler look at workflow runs now."""
        if self.scheduler is not None:
            self.scheduler.poke()

    def start_hive_metastore(self, host: str, port: int) -> Any:
        """Serve the default account's catalog as a Hive metastore (Thrift) on ``host:port`` until the process ends
        (``glueball server --hms-port``): every call goes through this installation's Glue API in-process."""
        from glueball.metastore import HiveMetastoreEndpoint, Metastore, ObjectStoreFiles
        from glueball.runtime.hivecatalog import warehouse

        if not isinstance(self.object_access, LocalObjects):
            raise ValueError("the Hive metastore endpoint manages table folders of the local object store, and this "
                             "installation keeps its objects in a remote store (--object-store)")
        glue = self.client("glue")
        return HiveMetastoreEndpoint(Metastore(client=lambda: glue, warehouse=warehouse(),
                                               files=ObjectStoreFiles(self.object_access)), host, port)

    def client(self, service: str = "glue", access_key: str | None = None, region: str | None = None) -> Any:
        """A boto3 client of ``service`` answered by this installation in-process (:func:`embedded_client`)."""
        return embedded_client(self, service, access_key, region)

    def console_needs(self) -> ConsoleNeeds:
        """What the web console (``/console/``) is given: clients signed as its user, answered in-process."""
        def client(service: str, key: str | None, secret: str | None, token: str | None) -> Any:
            return embedded_client(self, service, key, self.settings.region, secret, token)

        return ConsoleNeeds(client, self.settings.auth == "iam", self.settings.home, self.edge.implemented,
                            self.settings.region)

    def asgi(self) -> Any:
        """The ASGI application of ``glueball server``: the API, and the console at ``/console/``."""
        from glueball.console.web import mounted
        from glueball.edge.asgi import EdgeAsgiApp

        return mounted(EdgeAsgiApp(self.edge, self.close, readiness=lambda: readiness(
            self.store, self.object_access, lambda: self.serves_runs)), self.console_needs())

    def handle(self, request: WireRequest) -> WireResponse:
        """Serve one request of any service glueball serves; never raises."""
        return self.edge.handle(request)

    def close(self) -> None:
        if self.scheduler is not None:
            self.scheduler.close()
        self.run_logs.close()
        self.crawls.close()
        self.jobs.close()
        self.sessions.close()
        self.athena.close()
        self.warm.close()
        self.store.dispose()


def embedded_client(glue: Glueball, service: str = "glue", access_key: str | None = None,
                    region: str | None = None, secret: str | None = None, token: str | None = None) -> Any:
    """A real boto3 client of ``service`` whose requests ``glue`` answers in-process.

    The request is built, signed and its answer parsed by boto3 itself (so shapes, paginators,
    waiters and ``ClientError`` are boto3's); only the HTTP round trip is replaced by
    :meth:`Glueball.handle` (:func:`glueball.edge.inprocess.answer_in_process`).
    """
    client = boto3_session().client(
        service, region_name=region or glue.settings.region, endpoint_url="http://glueball.embedded",
        aws_access_key_id=access_key or "embedded", aws_secret_access_key=secret or "embedded",
        aws_session_token=token,
        config=botocore.client.Config(retries={"max_attempts": 1}),
    )
    answer_in_process(client, glue.handle)
    return client


_embedded: Glueball | None = None
_embedded_lock = threading.Lock()


def _default_installation() -> Glueball:
    """The process's default embedded installation (over ``GLUEBALL_HOME``), made on first use."""
    global _embedded
    with _embedded_lock:
        if _embedded is None:
            _embedded = Glueball()
        return _embedded


def default_embedded_client(service: str = "glue") -> Any:
    """The runtime's embedded client of ``service`` over this process's ``GLUEBALL_HOME``.

    Every service's client of a process shares one installation (:mod:`glueball.runtime.client`);
    ``close_embedded()`` on any of them closes it.
    """
    client = embedded_client(_default_installation(), service)
    client.close_embedded = _close_embedded
    return client


def default_embedded_handle() -> Any:
    """What answers requests in-process for the default embedded installation (the runtime's
    ``glueball.runtime.lake`` hands boto3's default session to it)."""
    return _default_installation().handle


def default_embedded_asgi() -> Any:
    """The default embedded installation's API as an ASGI application (no console): what an embedded driver serves
    on its loopback port to the AWS clients in its JVM (``glueball.runtime.lakeendpoint``)."""
    from glueball.edge.asgi import EdgeAsgiApp

    return EdgeAsgiApp(_default_installation().edge)


def _close_embedded() -> None:
    global _embedded
    with _embedded_lock:
        glue, _embedded = _embedded, None
    if glue is not None:
        glue.close()
