"""A streaming run's batch summary is kept on the run in the store by the server watching it, so every server
behind a load balancer answers ``Glueball.GetJobRunMetrics`` the same, whether or not the run's folder (on its
driver's host) is on its disk."""

from __future__ import annotations

import json
from pathlib import Path

from glueball.app import Glueball, embedded_client
from glueball.config import Settings
from glueball.runtime.streaming.metrics import METRICS_FILE, RECENT, StreamTally, read_stream_metrics, stream_summary
from tests.helpers import wait_for


def batch(number: int, rows: int) -> dict[str, object]:
    return {"batchId": number, "timestamp": f"2026-11-29T10:00:{number:02d}.000Z", "numInputRows": rows,
            "inputRowsPerSecond": 10.0, "processedRowsPerSecond": 12.0, "batchDurationMs": 900}


def test_the_tally_reads_only_what_was_appended_and_waits_for_a_line_being_written(tmp_path: Path) -> None:
    tally = StreamTally()
    assert tally.read(tmp_path) is False and tally.summary() is None  # no file yet
    lines = [json.dumps(batch(n, n * 10)) for n in range(14)]
    (tmp_path / METRICS_FILE).write_text("\n".join(lines[:12]) + "\n" + lines[12][:20])  # the 13th half-written
    assert tally.read(tmp_path) is True
    summary = tally.summary()
    assert summary is not None and summary["Batches"] == 12 and summary["InputRows"] == sum(n * 10 for n in range(12))
    assert [b["batchId"] for b in summary["RecentBatches"]] == list(range(12 - RECENT, 12))
    assert tally.read(tmp_path) is False  # nothing complete since
    with (tmp_path / METRICS_FILE).open("a") as handle:
        handle.write(lines[12][20:] + "\nnot json\n" + lines[13] + "\n")
    assert tally.read(tmp_path) is True
    assert tally.summary() == stream_summary(read_stream_metrics(tmp_path))  # as reading the whole file says
    assert tally.summary()["LastBatch"]["batchId"] == 13  # type: ignore[index]


def test_get_job_run_metrics_shows_a_streaming_runs_batches_without_its_folder(tmp_path: Path) -> None:
    script = tmp_path / "batches.py"
    script.write_text(
        "import json, os, time\n"
        f"path = os.path.join(os.environ['GLUEBALL_JOB_LOG_DIR'], {METRICS_FILE!r})\n"
        "for n in range(3):\n"
        "    with open(path, 'a') as handle:\n"
        "        handle.write(json.dumps({'batchId': n, 'numInputRows': 5, 'timestamp': 't'}) + '\\n')\n"
        "while not os.path.exists(os.path.join(os.environ['GLUEBALL_JOB_LOG_DIR'], 'go-on')):\n"
        "    time.sleep(0.1)\n"
        "with open(path, 'a') as handle:\n"
        "    handle.write(json.dumps({'batchId': 3, 'numInputRows': 7, 'timestamp': 't'}) + '\\n')\n")
    glue = Glueball(Settings(home=tmp_path / "home"))
    try:
        client = embedded_client(glue)
        internal = embedded_client(glue, "glueball")
        client.create_job(Name="stream-like", Role="r", Command={"Name": "pythonshell", "ScriptLocation": str(script)})
        run_id = client.start_job_run(JobName="stream-like")["JobRunId"]

        def metrics() -> dict[str, object]:
            answer: dict[str, object] = internal.get_job_run_metrics(JobName="stream-like", RunId=run_id)
            return answer

        # while it runs: the watcher keeps the batches on the run
        live = wait_for(lambda: (found := metrics().get("StreamingMetrics")) and found["Batches"] == 3 and found,
                        60, "the running run's batches")
        assert live["InputRows"] == 15
        folder = Path(str(metrics()["LogDirectory"]))
        (folder / "go-on").write_text("")
        wait_for(lambda: client.get_job_run(JobName="stream-like", RunId=run_id)["JobRun"]["JobRunState"]
                 == "SUCCEEDED", 60, "the run's end")
        (folder / METRICS_FILE).unlink()  # what another host sees: no such folder
        final = metrics()["StreamingMetrics"]
        assert isinstance(final, dict) and final["Batches"] == 4 and final["InputRows"] == 22
        assert final["LastBatch"]["batchId"] == 3
    finally:
        glue.close()
