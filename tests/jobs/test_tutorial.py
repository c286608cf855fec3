"""AWS's "Joining and relationalizing data" tutorial end to end, black-box against a `glueball server`.

The six JSON files of ``us-legislators/all`` (six shapes in one folder) are crawled by a crawler whose
database does not exist yet, into six tables named after the files; a job joins persons, memberships
and organizations, relationalizes the history and writes every frame to PostgreSQL through a catalog
connection, while a database Spark cannot name (``doc-example-database``, from AWS's getting-started
tutorial) is in the catalog. A script under ``glueball run`` then lists the job's output by Glue's
``run-`` prefix and reads the catalog with plain boto3 clients. A job whose JDBC read fails reports
the Java cause in its ErrorMessage.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.api.test_crawlers import wait_ready, write_object
from tests.crawlers.helpers import LEGISLATORS
from tests.helpers import ServerProcess, unique
from tests.jobs.test_runs import create_job, wait_run
from tools import services

DATA = "awsglue-datasets/examples/us-legislators/all"

# the tutorial's script (join_and_relationalize.py), with glueball's arguments for where things go
TUTORIAL = '''
import json, sys
import boto3
from awsglue.context import GlueContext
from awsglue.job import Job
from awsglue.transforms import Join
from awsglue.utils import getResolvedOptions
from pyspark.context import SparkContext

args = getResolvedOptions(sys.argv, ["JOB_NAME", "database", "connection", "prefix", "TempDir", "history",
                                     "summary"])
glueContext = GlueContext(SparkContext.getOrCreate())
job = Job(glueContext)
job.init(args["JOB_NAME"], args)
db = args["database"]

persons = glueContext.create_dynamic_frame.from_catalog(database=db, table_name="persons_json")
memberships = glueContext.create_dynamic_frame.from_catalog(database=db, table_name="memberships_json")
orgs = glueContext.create_dynamic_frame.from_catalog(database=db, table_name="organizations_json")
orgs = orgs.drop_fields(["other_names", "identifiers"]).rename_field("id", "org_id").rename_field("name", "org_name")
l_history = Join.apply(orgs, Join.apply(persons, memberships, "id", "person_id"),
                       "org_id", "organization_id").drop_fields(["person_id", "org_id"])
glueContext.write_dynamic_frame.from_options(frame=l_history, connection_type="s3",
                                             connection_options={"path": args["history"]}, format="json")
dfc = l_history.relationalize("hist_root", args["TempDir"])
for df_name in dfc.keys():
    glueContext.write_dynamic_frame.from_jdbc_conf(frame=dfc.select(df_name), catalog_connection=args["connection"],
                                                   connection_options={"dbtable": args["prefix"] + df_name,
                                                                       "database": "test"})
tables = boto3.client("glue").get_tables(DatabaseName=db)["TableList"]
hyphenated = glueContext.spark_session.sql("SHOW TABLES IN `doc-example-database`").collect()
json.dump({"fields": sorted(l_history.toDF().columns), "count": l_history.count(), "keys": sorted(dfc.keys()),
           "tables": sorted(t["Name"] for t in tables), "hyphenated": sorted(r.tableName for r in hyphenated)},
          open(args["summary"], "w"))
job.commit()
'''

# run with `glueball run` pointed at the server: the script's own boto3 clients must reach it
LISTING = '''
import json, sys
import boto3
from awsglue.context import GlueContext
from pyspark.context import SparkContext

args = dict(zip(sys.argv[1::2], sys.argv[2::2]))
glueContext = GlueContext(SparkContext.getOrCreate())
bucket, _, prefix = args["--history"][len("s3://"):].partition("/")
listed = boto3.client("s3").list_objects_v2(Bucket=bucket, Prefix=prefix + "/run-")
glue = boto3.client("glue")
database = glue.get_database(Name=args["--database"])["Database"]
count = glueContext.create_dynamic_frame.from_catalog(database=args["--database"], table_name="areas_json").count()
json.dump({"objects": [o["Key"] for o in listed.get("Contents", [])], "database": database["Name"],
           "areas": count, "databases": sorted(d["Name"] for d in glue.get_databases()["DatabaseList"])},
          open(args["--out"], "w"))
'''

BAD_JDBC = '''
from awsglue.context import GlueContext
from pyspark.context import SparkContext

glueContext = GlueContext(SparkContext.getOrCreate())
glueContext.spark_session.read.format("jdbc").option("url", "jdbc:nowhere://db/x").option("dbtable", "t").load()
'''

HIST_TABLES = ["hist_root", "hist_root_contact_details", "hist_root_identifiers", "hist_root_images",
               "hist_root_links", "hist_root_other_names"]
# the fields of l_history.printSchema() in the tutorial: one `links`, one `image`
HISTORY_FIELDS = sorted(["role", "seats", "org_name", "links", "type", "sort_name", "area_id", "images",
                         "on_behalf_of_id", "other_names", "contact_details", "name", "birth_date",
                         "organization_id", "gender", "classification", "death_date", "legislative_period_id",
                         "identifiers", "image", "given_name", "family_name", "id", "start_date", "end_date"])


@pytest.fixture(scope="module")
def tutorial_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    proc = ServerProcess(tmp_path_factory.mktemp("tutorial")).start()
    yield proc
    proc.stop()


def _legislators(server: ServerProcess) -> None:
    persons = LEGISLATORS["persons.json"][0]
    rows = {**LEGISLATORS, "persons.json": [{**persons, "sort_name": "Smith, Ann", "death_date": "2020-01-01",
                                             "images": [{"url": "http://x/p1.jpg"}],
                                             "other_names": [{"lang": "en", "name": "Annie", "note": "nick"}]}]}
    for name, records in rows.items():
        write_object(server, f"{DATA}/{name}", "".join(json.dumps(r) + "\n" for r in records))


def _pg_tables(prefix: str) -> dict[str, int]:
    import psycopg

    with psycopg.connect(services.postgres().url, autocommit=True) as conn:
        names = [r[0] for r in conn.execute("SELECT table_name FROM information_schema.tables "
                                            "WHERE table_name LIKE %s", (prefix + "%",))]
        return {n[len(prefix):]: conn.execute(f'SELECT count(*) FROM "{n}"').fetchone()[0] for n in names}


def _drop_pg_tables(prefix: str) -> None:
    import psycopg

    with psycopg.connect(services.postgres().url, autocommit=True) as conn:
        for name in _pg_tables(prefix):
            conn.execute(f'DROP TABLE IF EXISTS "{prefix}{name}"')


def test_the_legislators_tutorial_crawls_joins_relationalizes_and_loads_postgresql(
        tutorial_server: ServerProcess, tmp_path: Path) -> None:
    server, glue = tutorial_server, tutorial_server.client()
    _legislators(server)
    # AWS's getting-started tutorial database: Spark SQL names it in backticks, and no script breaks over it
    glue.create_database(DatabaseInput={"Name": "doc-example-database"})
    glue.create_table(DatabaseName="doc-example-database", TableInput={
        "Name": "orders", "Parameters": {"classification": "json"},
        "StorageDescriptor": {"Columns": [{"Name": "id", "Type": "int"}], "Location": "s3://elsewhere/orders/"}})

    database = unique("legislators")                   # the crawler creates it
    crawler = unique("legislators_crawler")
    glue.create_crawler(Name=crawler, Role="AWSGlueServiceRole-tutorial", DatabaseName=database,
                        Targets={"S3Targets": [{"Path": f"s3://{DATA}"}]})
    glue.start_crawler(Name=crawler)
    assert wait_ready(glue, crawler, timeout=120)["LastCrawl"]["Status"] == "SUCCEEDED"
    tables = {t["Name"]: t for t in glue.get_tables(DatabaseName=database)["TableList"]}
    assert sorted(tables) == ["areas_json", "countries_json", "events_json", "memberships_json",
                              "organizations_json", "persons_json"]
    assert tables["persons_json"]["StorageDescriptor"]["Location"] == f"s3://{DATA}/persons.json"

    connection = unique("pg")
    glue.create_connection(ConnectionInput={"Name": connection, "ConnectionType": "JDBC",
                                            "ConnectionProperties": services.postgres().connection_properties()})
    prefix = unique("tut") + "_"
    summary = tmp_path / "summary.json"
    history = f"s3://out/{unique('legislators')}/history"
    job = create_job(glue, server, TUTORIAL, kind="glueetl", WorkerType="G.1X", NumberOfWorkers=2, DefaultArguments={
        "--database": database, "--connection": connection, "--prefix": prefix, "--TempDir": "s3://tmp/tutorial/",
        "--history": history, "--summary": str(summary)})
    try:
        run = wait_run(glue, job, glue.start_job_run(JobName=job)["JobRunId"], timeout=600)
        assert run["JobRunState"] == "SUCCEEDED", run.get("ErrorMessage")
        result = json.loads(summary.read_text())
        assert result["fields"] == HISTORY_FIELDS
        assert result["count"] == 1
        assert result["keys"] == HIST_TABLES
        assert result["tables"] == sorted(tables)
        assert result["hyphenated"] == ["orders"]      # Spark SQL names it in backticks
        loaded = _pg_tables(prefix)
        assert sorted(loaded) == HIST_TABLES
        assert loaded["hist_root"] == 1 and loaded["hist_root_links"] == 1 and loaded["hist_root_images"] == 1
    finally:
        _drop_pg_tables(prefix)

    # a script under `glueball run`, pointed at the server, uses plain boto3 clients: they reach glueball
    out = tmp_path / "listing.json"
    script = tmp_path / "listing.py"
    script.write_text(LISTING)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_ENDPOINT_URL", "GLUEBALL_"))}
    env.update(GLUEBALL_ENDPOINT=server.endpoint, GLUEBALL_HOME=str(server.home),
               AWS_ACCESS_KEY_ID="AKIDEXAMPLE", AWS_SECRET_ACCESS_KEY="secret", AWS_DEFAULT_REGION="us-east-1")
    done = subprocess.run([sys.executable, "-m", "glueball", "run", str(script), "--history", history,
                           "--database", database, "--out", str(out), "--spark-master", "local[1]"],
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    listing = json.loads(out.read_text())
    assert listing["objects"] and all(k.rsplit("/", 1)[-1].startswith("run-") and "-part-r-" in k
                                      for k in listing["objects"])
    assert listing["database"] == database and listing["areas"] == 1
    assert {"doc-example-database", database} <= set(listing["databases"])


def test_a_failed_jdbc_read_reports_its_java_cause(tutorial_server: ServerProcess) -> None:
    glue = tutorial_server.client()
    job = create_job(glue, tutorial_server, BAD_JDBC, kind="glueetl", WorkerType="G.1X", NumberOfWorkers=2)
    run = wait_run(glue, job, glue.start_job_run(JobName=job)["JobRunId"], timeout=300)
    assert run["JobRunState"] == "FAILED"
    message = run["ErrorMessage"]
    assert "An error occurred while calling" in message and "java.sql.SQLException: No suitable driver" in message
