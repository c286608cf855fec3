"""Job run latency and bookmarked incremental runs, against a real ``glueball server``.

    .venv/bin/python bench/jobs.py [--runs 3] [--files 200] [--rows-per-file 500] [--poll 0.02]

Through the Glue API only (boto3: CreateJob, StartJobRun, GetJobRun), on a server in a
temporary GLUEBALL_HOME:

1. Latency of a trivial ``glueetl`` job (GlueContext, a 10-row DataFrame, ``job.commit()``)
   and of a trivial ``pythonshell`` job: StartJobRun -> first GetJobRun that shows RUNNING,
   and StartJobRun -> SUCCEEDED, polling GetJobRun every ``--poll`` seconds; p50 of ``--runs``;
   side by side with the same script run directly (``glueball run`` / ``python``), alternating.
2. A bookmarked ``glueetl`` job reading JSON files from the object store and writing Parquet:
   a full run over ``--files`` files, then 1% new files and an incremental run (bookmark
   enabled), then the same job over all files with the bookmark disabled, side by side.
   Rows each run read are reported by the script and checked.

Nothing is asserted against a time; figures and ratios are printed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.helpers import ServerProcess  # noqa: E402

TRIVIAL_ETL = '''
import sys
from awsglue.context import GlueContext
from awsglue.job import Job
from awsglue.utils import getResolvedOptions
from pyspark.context import SparkContext

args = getResolvedOptions(sys.argv, ["JOB_NAME"])
sc = SparkContext()
glue_context = GlueContext(sc)
job = Job(glue_context)
job.init(args["JOB_NAME"], args)
assert glue_context.spark_session.range(10).count() == 10
job.commit()
'''

TRIVIAL_SHELL = '''
import sys
print("hello from a python shell job", sys.argv[1:])
'''

BOOKMARKED = '''
import json, sys
from awsglue.context import GlueContext
from awsglue.job import Job
from awsglue.utils import getResolvedOptions
from pyspark.context import SparkContext

args = getResolvedOptions(sys.argv, ["JOB_NAME", "source", "target", "report"])
sc = SparkContext()
glue_context = GlueContext(sc)
job = Job(glue_context)
job.init(args["JOB_NAME"], args)
events = glue_context.create_dynamic_frame.from_options(
    connection_type="s3", connection_options={"paths": [args["source"]], "recurse": True}, format="json",
    transformation_ctx="events")
frame = events.toDF().cache()
rows = frame.count()
if rows:
    frame.write.mode("append").parquet(args["target"])
with open(args["report"], "a") as out:
    out.write(json.dumps({"rows": rows, "bookmark": args["job_bookmark_option"]}) + "\\n")
job.commit()
'''

ENDED = ("SUCCEEDED", "FAILED", "STOPPED", "TIMEOUT", "ERROR")


def put_object(home: Path, uri: str, text: str) -> None:
    path = home / "s3" / uri.split("://", 1)[1]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def timed_run(glue: Any, job: str, poll: float, arguments: dict[str, str] | None = None,
              timeout: float = 900) -> tuple[float | None, float, dict[str, Any]]:
    """StartJobRun; seconds to RUNNING (None if never seen), seconds to the end, and the final JobRun."""
    start = time.perf_counter()
    run_id = glue.start_job_run(JobName=job, **({"Arguments": arguments} if arguments else {}))["JobRunId"]
    to_running: float | None = None
    deadline = start + timeout
    while time.perf_counter() < deadline:
        run = glue.get_job_run(JobName=job, RunId=run_id)["JobRun"]
        state = run["JobRunState"]
        if state == "RUNNING" and to_running is None:
            to_running = time.perf_counter() - start
        if state in ENDED:
            return to_running, time.perf_counter() - start, run
        time.sleep(poll)
    raise RuntimeError(f"run {run_id} of {job} did not end in {timeout} s")


def check_succeeded(run: dict[str, Any], server: ServerProcess) -> None:
    if run["JobRunState"] != "SUCCEEDED":
        raise RuntimeError(f"run {run['Id']} of {run['JobName']} ended {run['JobRunState']}: "
                           f"{run.get('ErrorMessage', '')}\n(server home {server.home})")


def run_metrics(server: ServerProcess, job: str, run_id: str) -> dict[str, Any]:
    """glueball's own GetJobRunMetrics (rows and bytes from Spark's event log), if the server has it."""
    try:
        status, body = server.raw("GetJobRunMetrics", {"JobName": job, "RunId": run_id},
                                  headers={"X-Amz-Target": "Glueball.GetJobRunMetrics"})
    except Exception:  # noqa: BLE001 - optional figures
        return {}
    return body if status == 200 else {}


def direct_seconds(command: list[str], home: Path) -> float:
    """The same script run by hand, without the server: the baseline of a job run's latency."""
    env = dict(os.environ, GLUEBALL_HOME=str(home))
    env.pop("GLUEBALL_ENDPOINT", None)
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True, env=env, timeout=900)
    return time.perf_counter() - start


def latency(glue: Any, server: ServerProcess, job: str, runs: int, poll: float, direct: list[str],
            direct_label: str) -> None:
    to_running: list[float] = []
    to_success: list[float] = []
    baseline: list[float] = []
    for _ in range(runs):
        running, ended, run = timed_run(glue, job, poll)
        check_succeeded(run, server)
        if running is not None:
            to_running.append(running)
        to_success.append(ended)
        baseline.append(direct_seconds(direct, server.home))
    seen = f"{statistics.median(to_running):6.2f}s" if to_running else "   n/a"
    success, alone = statistics.median(to_success), statistics.median(baseline)
    print(f"  {job:<14} StartJobRun->RUNNING p50 {seen} (seen in {len(to_running)}/{runs})   "
          f"StartJobRun->SUCCEEDED p50 {success:6.2f}s [{', '.join(f'{t:.2f}' for t in to_success)}]")
    print(f"  {'':<14} the same script run directly ({direct_label}) p50 {alone:6.2f}s   "
          f"job run / direct {success / alone:5.2f}x")


def write_events(home: Path, first: int, count: int, rows: int) -> None:
    for index in range(first, first + count):
        lines = (json.dumps({"event_id": index * rows + i, "file": index, "kind": "click" if i % 3 else "view",
                             "amount": round(i * 0.37, 2)}) for i in range(rows))
        put_object(home, f"s3://bench-data/events/part-{index:05d}.json", "\n".join(lines) + "\n")


def bookmarks(glue: Any, server: ServerProcess, work: Path, files: int, rows: int, poll: float) -> None:
    home = server.home
    report = work / "bookmark-report.jsonl"
    put_object(home, "s3://bench-scripts/events_incremental.py", BOOKMARKED)
    write_events(home, 0, files, rows)
    glue.create_job(
        Name="events_incremental", Role="arn:aws:iam::123456789012:role/glue", GlueVersion="4.0",
        Command={"Name": "glueetl", "ScriptLocation": "s3://bench-scripts/events_incremental.py",
                 "PythonVersion": "3"},
        WorkerType="G.1X", NumberOfWorkers=2,
        DefaultArguments={"--job-bookmark-option": "job-bookmark-enable", "--source": "s3://bench-data/events/",
                          "--target": str(work / "events-parquet"), "--report": str(report)})
    new_files = max(1, files // 100)

    _, full, run = timed_run(glue, "events_incremental", poll)
    check_succeeded(run, server)
    full_metrics = run_metrics(server, "events_incremental", run["Id"])
    write_events(home, files, new_files, rows)
    _, incremental, run = timed_run(glue, "events_incremental", poll)
    check_succeeded(run, server)
    incremental_metrics = run_metrics(server, "events_incremental", run["Id"])
    _, unbookmarked, run = timed_run(glue, "events_incremental", poll,
                                     {"--job-bookmark-option": "job-bookmark-disable"})
    check_succeeded(run, server)
    counts = [json.loads(line)["rows"] for line in report.read_text().splitlines()]
    expected = [files * rows, new_files * rows, (files + new_files) * rows]
    verdict = "as expected" if counts == expected else f"EXPECTED {expected}"
    print(f"  rows read per run: full {counts[0]}, incremental {counts[1]}, bookmark disabled {counts[2]} "
          f"({verdict})")
    for label, metrics in (("full", full_metrics), ("incremental", incremental_metrics)):
        if metrics.get("Metrics"):
            print(f"  {label} run metrics from the event log: {json.dumps(metrics['Metrics'])}")
    print(f"  full run over {files} files ({files * rows} rows), StartJobRun->SUCCEEDED   {full:6.2f}s")
    print(f"  incremental run, {new_files} new files (1%)                    {incremental:6.2f}s   "
          f"{incremental / full:5.2f}x the full run")
    print(f"  same job, bookmark disabled, {files + new_files} files               {unbookmarked:6.2f}s   "
          f"incremental is {incremental / unbookmarked:5.2f}x of it")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument("--rows-per-file", type=int, default=500)
    parser.add_argument("--poll", type=float, default=0.02)
    parser.add_argument("--keep", action="store_true", help="keep the temporary home")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="glueball-bench-jobs-"))
    home = work / "home"
    home.mkdir()
    server = ServerProcess(home).start()
    try:
        glue = server.client()
        put_object(home, "s3://bench-scripts/trivial_etl.py", TRIVIAL_ETL)
        put_object(home, "s3://bench-scripts/trivial_shell.py", TRIVIAL_SHELL)
        glue.create_job(Name="trivial_etl", Role="arn:aws:iam::123456789012:role/glue", GlueVersion="4.0",
                        Command={"Name": "glueetl", "ScriptLocation": "s3://bench-scripts/trivial_etl.py",
                                 "PythonVersion": "3"}, WorkerType="G.1X", NumberOfWorkers=2)
        glue.create_job(Name="trivial_shell", Role="arn:aws:iam::123456789012:role/glue",
                        Command={"Name": "pythonshell", "ScriptLocation": "s3://bench-scripts/trivial_shell.py",
                                 "PythonVersion": "3.9"}, MaxCapacity=0.0625)
        print(f"job run latency ({args.runs} runs each, GetJobRun every {args.poll * 1000:.0f} ms)")
        scripts = home / "s3" / "bench-scripts"
        latency(glue, server, "trivial_shell", args.runs, args.poll,
                [sys.executable, str(scripts / "trivial_shell.py")], "python script.py")
        latency(glue, server, "trivial_etl", args.runs, args.poll,
                [sys.executable, "-m", "glueball", "run", str(scripts / "trivial_etl.py"), "--JOB_NAME", "direct"],
                "glueball run script.py")
        print(f"bookmarked job over {args.files} JSON files")
        bookmarks(glue, server, work, args.files, args.rows_per_file, args.poll)
    finally:
        server.stop()
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"kept {work}")


if __name__ == "__main__":
    main()
