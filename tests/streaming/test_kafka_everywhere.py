"""Plain ``spark.readStream.format("kafka")`` and ``spark.read.format("kafka")`` in every kind of glueball driver (a
job run on a warm driver, an interactive session), and what a driver without the connector's jars says:
Glue's Kafka source and ``glueball run`` name the missing feature and the command that fetches it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import ServerProcess, unique
from tests.sessions.test_warm_drivers import ROLE, driver_pid, wait_run, wait_warm
from tests.streaming.helpers import Broker

pytestmark = pytest.mark.spark

PLAIN_KAFKA = '''
import json, sys
from pyspark.sql import SparkSession

args = dict(zip(sys.argv[1::2], sys.argv[2::2]))
spark = SparkSession.builder.getOrCreate()
source = {"kafka.bootstrap.servers": args["--bootstrap"], "subscribe": args["--topic"]}
batch = sorted(r.value.decode() for r in spark.read.format("kafka").options(**source).load().select("value").collect())
streamed = []
query = (spark.readStream.format("kafka").options(**source).option("startingOffsets", "earliest").load()
         .writeStream.foreachBatch(lambda df, _: streamed.extend(r.value.decode() for r in df.collect()))
         .trigger(availableNow=True).option("checkpointLocation", args["--checkpoint"]).start())
query.awaitTermination()
open(args["--out"], "w").write(json.dumps({"batch": batch, "stream": sorted(streamed)}))
'''

NO_JARS = '''
import json, sys
from awsglue.context import GlueContext
from pyspark.context import SparkContext

args = dict(zip(sys.argv[1::2], sys.argv[2::2]))
glue_context = GlueContext(SparkContext.getOrCreate())
try:
    glue_context.create_data_frame.from_options("kafka", {"bootstrap.servers": args["--bootstrap"], "topicName": "t"})
except Exception as e:
    open(args["--out"], "w").write(json.dumps({"type": type(e).__name__, "message": str(e)}))
glue_context.spark_session.readStream.format("kafka").option("kafka.bootstrap.servers", args["--bootstrap"]) \\
    .option("subscribe", "t").load()
'''


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    running = ServerProcess(tmp_path_factory.mktemp("kafka-everywhere"), warm_drivers=1).start()
    yield running
    running.stop()


def test_plain_spark_kafka_in_a_warm_job_run_and_a_session(server: ServerProcess, broker: Broker,
                                                           tmp_path: Path) -> None:
    topic = broker.create_topic(partitions=2)
    broker.produce(topic, [(i % 2, None, f"v{i}".encode()) for i in range(6)])
    expected = {"batch": [f"v{i}" for i in range(6)], "stream": [f"v{i}" for i in range(6)]}
    glue = server.client()
    script = tmp_path / "plain_kafka.py"
    script.write_text(PLAIN_KAFKA)
    name = unique("plain-kafka")
    glue.create_job(Name=name, Role=ROLE, GlueVersion="4.0", Command={"Name": "glueetl", "ScriptLocation": str(script)},
                    DefaultArguments={"--bootstrap": broker.bootstrap, "--topic": topic,
                                      "--checkpoint": str(tmp_path / "job-checkpoint"), "--out": str(tmp_path / "job")})
    warm = wait_warm(server.home)
    run_id = glue.start_job_run(JobName=name)["JobRunId"]
    run = wait_run(glue, name, run_id, ("SUCCEEDED", "FAILED", "ERROR", "TIMEOUT"), timeout=300)
    assert run["JobRunState"] == "SUCCEEDED", run.get("ErrorMessage")
    assert driver_pid(server.home, "glue_job_run", "run_id", run_id) == warm, "it ran on the warm driver"
    assert json.loads((tmp_path / "job").read_text()) == expected

    session = unique("kafka-session")
    glue.create_session(Id=session, Role=ROLE, Command={"Name": "glueetl", "PythonVersion": "3"})
    deadline = time.monotonic() + 300
    while glue.get_session(Id=session)["Session"]["Status"] == "PROVISIONING" and time.monotonic() < deadline:
        time.sleep(0.5)
    code = "import sys\nsys.argv = [''] + " + json.dumps(["--bootstrap", broker.bootstrap, "--topic", topic,
                                                           "--checkpoint", str(tmp_path / "session-checkpoint"),
                                                           "--out", str(tmp_path / "session")]) + "\n" + PLAIN_KAFKA
    number = glue.run_statement(SessionId=session, Code=code)["Id"]
    while (statement := glue.get_statement(SessionId=session, Id=number)["Statement"])["State"] not in (
            "AVAILABLE", "ERROR", "CANCELLED") and time.monotonic() < deadline:
        time.sleep(0.5)
    assert statement["Output"]["Status"] == "ok", statement["Output"]
    assert json.loads((tmp_path / "session").read_text()) == expected
    glue.stop_session(Id=session)


def test_without_the_connector_s_jars_the_feature_and_the_fetch_command_are_named(broker: Broker,
                                                                                   tmp_path: Path) -> None:
    script = tmp_path / "no_jars.py"
    script.write_text(NO_JARS)
    out = tmp_path / "glue-source.json"
    # an empty jar cache and a Maven that fails: as on a machine offline, or without Maven
    env = dict(os.environ, GLUEBALL_HOME=str(tmp_path / "home"), GLUEBALL_JARS_CACHE=str(tmp_path / "no-jars"),
               GLUEBALL_MVN="/bin/false", GLUEBALL_SQL_CATALOG="off")
    done = subprocess.run([sys.executable, "-m", "glueball", "run", str(script), "--bootstrap", broker.bootstrap,
                           "--out", str(out), "--spark-master", "local[1]"],
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 1, done.stderr[-3000:]
    caught: dict[str, Any] = json.loads(out.read_text())
    assert caught["type"] == "JarsUnavailable"
    for message in (caught["message"], done.stderr.strip().splitlines()[-1]):
        assert "Kafka and MSK sources" in message and "glueball's 'kafka' feature" in message, message
        assert "glueball jars fetch kafka" in message, message
    assert "Failed to find data source: kafka" in done.stderr, "Spark's own error comes first, then the reason"
    assert done.stderr.strip().splitlines()[-1].startswith("glueball.jvm.JarsUnavailable: ")
