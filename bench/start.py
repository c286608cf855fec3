"""How fast runs start: warm drivers (``glueball server --warm-drivers 1``) against cold ones, in one run.

Run ``.venv/bin/python bench/start.py [--rounds R] [--no-demo] [--server-starts N] [--only-server]``. First, how
long a ``glueball server`` itself takes to start on a fresh home (``--warm-drivers 0``): N starts, the median time
to its first ``/health`` answer and the CPU its process used by then, beside the CPU of the import of
``glueball.server`` alone and of a bare interpreter (``python -c pass``), each in a fresh process. Then two
servers (``--warm-drivers 0`` and ``1``) serve the same trivial glueetl job; for each round it prints, per mode:

- StartJobRun -> the script's first Spark job done (the script prints the time after
  ``spark.range(10).count()``), and StartJobRun -> SUCCEEDED (as GetJobRun reports it, polled every 20 ms);
- CreateSession -> READY, the first ``spark.range(10).count()`` statement's round trip
  (RunStatement -> AVAILABLE), and the median round trip of ten more, and of ten ``1 + 1``;

then the resident memory of one idle warm driver (its Python, and the warm JVM it is attached to), and
the wall time of ``make demo``'s two workflow runs and of the whole demo (``python -m glueball.demo`` on a
fresh home: a workflow of two crawlers and two Spark jobs, run twice, then a Spark SQL report) with
``GLUEBALL_WARM_DRIVERS=0`` and ``1``. Every round waits until the warm
server's pool has refilled (a refill is a JVM starting: on 2 cores it would slow whatever runs beside
it), as a server between runs would. Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.helpers import ServerProcess  # noqa: E402

SCRIPT = """\
import sys, time
from awsglue.context import GlueContext
from pyspark.context import SparkContext
glueContext = GlueContext(SparkContext.getOrCreate())
glueContext.spark_session.range(10).count()
print("FIRST_JOB_DONE", time.time(), flush=True)
"""
ROLE = "arn:aws:iam::123456789012:role/GlueRole"


def idle_warm(home: Path) -> list[int]:
    return [int(ready.read_text()) for ready in (home / "warm").glob("*/ready") if ready.read_text().strip()]


def wait_for_warm(home: Path, timeout: float = 180) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = idle_warm(home)
        if found:
            return found[0]
        time.sleep(0.1)
    raise RuntimeError("no warm driver became ready")


def rss_of_tree(pid: int) -> int:
    """Resident bytes of ``pid`` and its descendants (a warm driver's Python; a warm JVM's keeper and JVM)."""
    total, pending = 0, [pid]
    while pending:
        current = pending.pop()
        try:
            for line in Path(f"/proc/{current}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
            children = Path(f"/proc/{current}/task/{current}/children").read_text().split()
        except OSError:
            continue
        pending += [int(child) for child in children]
    return total


def job_round(server: ServerProcess, glue: Any, warm: bool) -> tuple[float, float]:
    if warm:
        wait_for_warm(server.home)
    started = time.time()
    run_id = glue.start_job_run(JobName="trivial")["JobRunId"]
    while True:
        run = glue.get_job_run(JobName="trivial", RunId=run_id)["JobRun"]
        if run["JobRunState"] in ("SUCCEEDED", "FAILED", "ERROR", "TIMEOUT"):
            break
        time.sleep(0.02)
    ended = time.time()
    if run["JobRunState"] != "SUCCEEDED":
        raise RuntimeError(f"the trivial job ended {run['JobRunState']}: {run.get('ErrorMessage')}")
    log = (server.home / "logs" / "jobs" / "trivial" / run_id / "output.log").read_text()
    first = float(log.split("FIRST_JOB_DONE")[1].split()[0])
    return first - started, ended - started


def statement(glue: Any, session_id: str, code: str) -> float:
    started = time.time()
    number = glue.run_statement(SessionId=session_id, Code=code)["Id"]
    while glue.get_statement(SessionId=session_id, Id=number)["Statement"]["State"] not in (
            "AVAILABLE", "ERROR", "CANCELLED"):
        time.sleep(0.005)
    return time.time() - started


def session_round(server: ServerProcess, glue: Any, warm: bool, name: str) -> tuple[float, ...]:
    if warm:
        wait_for_warm(server.home)
    started = time.time()
    glue.create_session(Id=name, Role=ROLE, Command={"Name": "glueetl", "PythonVersion": "3"})
    while glue.get_session(Id=name)["Session"]["Status"] == "PROVISIONING":
        time.sleep(0.01)
    ready = time.time() - started
    first = statement(glue, name, "spark.range(10).count()")
    if warm:
        wait_for_warm(server.home)  # the pool's refill would compete with the statements for 2 cores
    more = statistics.median(statement(glue, name, "spark.range(10).count()") for _ in range(10))
    plain = statistics.median(statement(glue, name, "1 + 1") for _ in range(10))
    glue.stop_session(Id=name)
    return ready, first, more, plain


BASELINE = """\
import statistics, sys, time
from glueball.runtime.spark import spark_session
spark = spark_session(app_name="baseline")
spark.range(1000).selectExpr("sum(id)").collect()
times = []
for _ in range(12):
    started = time.perf_counter()
    spark.range(10).count()
    times.append(time.perf_counter() - started)
print(statistics.median(times[2:]))
"""


def plain_spark_count() -> float:
    """``spark.range(10).count()`` in a plain Spark session (glueball's settings, AQE on as in Glue), in
    process: the query's own cost, the floor under a statement that runs it."""
    done = subprocess.run([sys.executable, "-c", BASELINE], check=True, capture_output=True, text=True,
                          env={**os.environ, "GLUEBALL_SPARK_MASTER": "local[2]"})
    return float(done.stdout.strip().splitlines()[-1])


_COMPLETED = re.compile(r"COMPLETED in (?:(\d+) min )?([\d.]+) s")


def demo_seconds(warm: int) -> tuple[float, float]:
    """The wall time of ``python -m glueball.demo``, and the sum of its two workflow runs' (as the demo prints)."""
    home = Path(tempfile.mkdtemp(prefix=f"glueball-bench-demo-{warm}-"))
    env = {**os.environ, "GLUEBALL_HOME": str(home), "GLUEBALL_WARM_DRIVERS": str(warm), "DEMO_SERVE": "0"}
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "glueball.demo"], env=env, check=True, capture_output=True,
                          text=True)
    runs = [int(m or 0) * 60 + float(s) for m, s in _COMPLETED.findall(done.stdout)]
    return time.monotonic() - started, sum(runs)


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def _child_cpu(code: str) -> float:
    before = os.times()
    subprocess.run([sys.executable, "-c", code], check=True)
    after = os.times()
    return (after.children_user + after.children_system) - (before.children_user + before.children_system)


def server_starts(count: int) -> None:
    """A server's own start, fresh home, no warm drivers: wall to /health, its CPU by then; and the floor."""
    ready, used = [], []
    for _ in range(count):
        with tempfile.TemporaryDirectory(prefix="glueball-bench-server-") as folder:
            begun = time.perf_counter()
            server = ServerProcess(Path(folder)).start()
            ready.append(time.perf_counter() - begun)
            assert server.proc is not None
            used.append(_cpu_seconds(server.proc.pid))
            server.stop()
    imports = [_child_cpu("import glueball.server") for _ in range(count)]
    bare = [_child_cpu("pass") for _ in range(count)]
    print(f"A server's start, {count} fresh homes (median): /health answers after {statistics.median(ready):.2f} s, "
          f"its process having used {statistics.median(used):.2f} s of CPU; the import of glueball.server alone "
          f"{statistics.median(imports):.2f} s of CPU, a bare interpreter {statistics.median(bare):.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-demo", action="store_true")
    parser.add_argument("--server-starts", type=int, default=5, help="fresh servers started to time their start")
    parser.add_argument("--only-server", action="store_true", help="time the server's own start, nothing else")
    args = parser.parse_args()
    server_starts(args.server_starts)
    if args.only_server:
        return
    root = Path(tempfile.mkdtemp(prefix="glueball-bench-start-"))
    servers = {"cold": ServerProcess(root / "cold", warm_drivers=0), "warm": ServerProcess(root / "warm",
                                                                                            warm_drivers=1)}
    script = root / "trivial.py"
    script.write_text(SCRIPT)
    results: dict[str, dict[str, list[float]]] = {mode: {} for mode in servers}
    try:
        for server in servers.values():
            server.home.mkdir(parents=True)
            server.start()
            glue = server.client()
            glue.create_job(Name="trivial", Role=ROLE, GlueVersion="4.0",
                            Command={"Name": "glueetl", "ScriptLocation": str(script)})
        for number in range(args.rounds):
            for mode, server in servers.items():
                glue = server.client()
                wait_for_warm(servers["warm"].home)  # no refill of the warm server competes with this round
                first, done = job_round(server, glue, mode == "warm")
                wait_for_warm(servers["warm"].home)
                ready, first_statement, statements, plain = session_round(server, glue, mode == "warm",
                                                                          f"s{number}")
                for key, value in (("job first", first), ("job done", done), ("session ready", ready),
                                   ("first statement", first_statement), ("statement", statements),
                                   ("plain", plain)):
                    results[mode].setdefault(key, []).append(value)
        driver = wait_for_warm(servers["warm"].home)
        python_rss = rss_of_tree(driver)
        keeper = next(p for p in (servers["warm"].home / "warm").glob("*/ready") if p.read_text() == str(driver))
        jvm_rss = rss_of_tree(int((keeper.parent / "jvm").read_text()))
    finally:
        for server in servers.values():
            server.stop()
    print(f"Starting runs, {args.rounds} rounds (median seconds; cold = --warm-drivers 0, warm = 1):")
    labels = {"job first": "StartJobRun -> first Spark job done", "job done": "StartJobRun -> SUCCEEDED",
              "session ready": "CreateSession -> READY", "first statement": "first spark.range(10).count()",
              "statement": "spark.range(10).count() round trip", "plain": "1 + 1 round trip"}
    for key, label in labels.items():
        cold, warm = (statistics.median(results[mode][key]) for mode in ("cold", "warm"))
        print(f"  {label:40} cold {cold:7.3f}  warm {warm:7.3f}  ({cold / warm:.1f}x)")
    print(f"  {'the same count in plain Spark, in process':40} {plain_spark_count():7.3f}  (no session, no API)")
    print(f"  one idle warm driver: {(python_rss + jvm_rss) / 2**20:.0f} MiB resident (its Python "
          f"{python_rss / 2**20:.0f} MiB, the warm JVM it is attached to {jvm_rss / 2**20:.0f} MiB)")
    if not args.no_demo:
        (cold_total, cold_flow), (warm_total, warm_flow) = demo_seconds(0), demo_seconds(1)
        print(f"make demo's two workflow runs: cold {cold_flow:.1f} s, warm {warm_flow:.1f} s "
              f"({cold_flow / warm_flow:.2f}x); the whole demo: cold {cold_total:.1f} s, warm {warm_total:.1f} s "
              f"({cold_total / warm_total:.2f}x)")


if __name__ == "__main__":
    main()
