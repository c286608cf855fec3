"""A failed run's ErrorMessage keeps the Java cause of a Py4J error."""

from __future__ import annotations

from pathlib import Path

from glueball.supervise.process import error_message

PY4J_STDERR = """26/11/25 09:00:01 WARN SparkSession: something harmless
Traceback (most recent call last):
  File "/scripts/job.py", line 12, in <module>
    frame = spark.read.format("jdbc").options(url=url, dbtable="t").load()
  File "/venv/pyspark/sql/readwriter.py", line 314, in load
    return self._df(self._jreader.load())
py4j.protocol.Py4JJavaError: An error occurred while calling o45.load.
: java.sql.SQLException: No suitable driver found for jdbc:nowhere://x
\tat java.sql/java.sql.DriverManager.getDriver(DriverManager.java:299)
\tat org.apache.spark.sql.execution.datasources.jdbc.JDBCOptions.$anonfun$driverClass$2(JDBCOptions.scala:118)
Caused by: java.net.UnknownHostException: x: Name or service not known
\tat java.base/java.net.Inet6AddressImpl.lookupAllHostAddr(Native Method)

26/11/25 09:00:02 INFO ShutdownHookManager: Shutdown hook called
"""


def test_a_py4j_error_keeps_its_java_cause_and_root_cause(tmp_path: Path) -> None:
    log = tmp_path / "error.log"
    log.write_text(PY4J_STDERR)
    assert error_message(log) == (
        "py4j.protocol.Py4JJavaError: An error occurred while calling o45.load. "
        ": java.sql.SQLException: No suitable driver found for jdbc:nowhere://x "
        "Caused by: java.net.UnknownHostException: x: Name or service not known")


def test_a_python_error_is_its_last_line_and_nothing_after(tmp_path: Path) -> None:
    log = tmp_path / "error.log"
    log.write_text('Traceback (most recent call last):\n  File "job.py", line 1, in <module>\n'
                   "    raise ValueError('empty')\nValueError: empty\n26/11/25 INFO ShutdownHookManager: done\n")
    assert error_message(log) == "ValueError: empty"


def test_no_traceback_no_message(tmp_path: Path) -> None:
    log = tmp_path / "error.log"
    log.write_text("26/11/25 INFO all fine\n")
    assert error_message(log) is None
    assert error_message(tmp_path / "missing.log") is None
