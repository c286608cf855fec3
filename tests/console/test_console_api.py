"""The console's own HTTP side, without a browser: its refusals and errors (each with a code and a message),
sign-in with identity enforced, the ASGI mounting next to the API, and ``make demo``'s serving of it."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import urllib3

from glueball.app import Glueball, embedded_client
from glueball.config import Settings
from glueball.console.signin import COOKIE
from glueball.console.web import Console, mounted
from glueball.demo.pipeline import serve_console
from tests.helpers import free_port, wait_for

CSRF = {"x-glueball-console": "1"}


@pytest.fixture(scope="module")
def open_console(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Glueball, Console]]:
    glue = Glueball(Settings(home=tmp_path_factory.mktemp("console-off")))
    yield glue, Console(glue.console_needs())
    glue.close()


@pytest.fixture(scope="module")
def iam_console(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Glueball, Console, tuple[str, str]]]:
    glue = Glueball(Settings(home=tmp_path_factory.mktemp("console-iam"), auth="iam"))
    key = glue.ensure_root_key()
    assert key is not None
    yield glue, Console(glue.console_needs()), key
    glue.close()


def answer(console: Console, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None,
           query: str = "") -> tuple[int, dict[str, str], Any]:
    data = body if isinstance(body, bytes) else json.dumps(body).encode() if body is not None else b""
    status, out, payload = console.answer(method, path, query, {**CSRF, **(headers or {})}, data)
    kind = dict(out).get("content-type", "")
    return status, dict(out), json.loads(payload) if kind == "application/json" else payload


def error(console: Console, method: str, path: str, body: Any = None, **kwargs: Any) -> tuple[int, str, str]:
    status, _, found = answer(console, method, path, body, **kwargs)
    return status, found["error"]["code"], found["error"]["message"]


def call(service: str, operation: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"Service": service, "Operation": operation, "Params": params or {}}


def test_calls_answer_as_the_api_and_refuse_what_it_refuses(open_console: tuple[Glueball, Console]) -> None:
    glue, console = open_console
    embedded_client(glue).create_database(DatabaseInput={"Name": "console_calls"})
    status, _, found = answer(console, "POST", "/api/call", call("glue", "GetDatabase", {"Name": "console_calls"}))
    assert status == 200 and found["Database"]["Name"] == "console_calls"
    assert isinstance(found["Database"]["CreateTime"], float)  # epoch seconds, as on the wire
    assert error(console, "POST", "/api/call", call("glue", "GetTable", {"DatabaseName": "console_calls",
                                                                        "Name": "nope"})) == (
        400, "EntityNotFoundException", "Table nope not found.")
    assert error(console, "POST", "/api/call", call("glue", "GetTable", {"DatabaseName": "x"}))[:2] == (
        400, "ParamValidationError")
    assert error(console, "POST", "/api/call", call("s3", "ListBuckets")) == (
        400, "UnknownService", "The console calls glue, glueball, sts, athena, logs, not 's3'")
    assert error(console, "POST", "/api/call", call("glue", "DropEverything")) == (
        400, "UnknownOperation", "glue has no operation 'DropEverything'")


def test_malformed_console_requests_are_refused_with_the_reason(open_console: tuple[Glueball, Console]) -> None:
    _, console = open_console
    status, _, found = answer(console, "POST", "/api/call", call("glue", "GetDatabases"), headers={
        "x-glueball-console": ""})
    assert (status, found["error"]["code"]) == (403, "Forbidden")
    assert "x-glueball-console" in found["error"]["message"]
    assert error(console, "POST", "/api/call", b"{not json")[:2] == (400, "InvalidInput")
    assert error(console, "POST", "/api/call", [1, 2]) == (400, "InvalidInput", "The request body is a JSON object")
    assert error(console, "POST", "/api/call", {"Service": "glue"}) == (
        400, "InvalidInput", "A call names Service and Operation (strings) and Params (object)")
    assert error(console, "GET", "/api/job-log", query="job=j&run=r&log=secrets") == (
        400, "InvalidInputException", "log must be output or error, not 'secrets'")
    assert error(console, "GET", "/api/job-log", query="job=nojob&run=jr_1")[1] == "EntityNotFoundException"
    assert error(console, "GET", "/api/crawl-log", query="crawler=nocrawler&crawl=c1")[1] == "EntityNotFoundException"
    assert error(console, "GET", "/api/nothing") == (404, "NotFound", "No console operation GET nothing")
    assert error(console, "GET", "/static/../web.py")[:2] == (404, "NotFound")
    assert error(console, "GET", "/elsewhere") == (404, "NotFound", "No console page /elsewhere")


def test_a_crawls_log_needs_that_crawl(open_console: tuple[Glueball, Console]) -> None:
    glue, console = open_console
    embedded_client(glue).create_crawler(Name="console-crawler", Role="r", DatabaseName="console_calls",
                                         Targets={"S3Targets": [{"Path": "s3://nowhere/"}]})
    assert error(console, "GET", "/api/crawl-log", query="crawler=console-crawler&crawl=c-1") == (
        400, "EntityNotFoundException", "Crawler console-crawler has no crawl c-1")


def test_a_job_runs_log_is_read_from_cloudwatch_logs_not_from_the_drivers_host(
        open_console: tuple[Glueball, Console], tmp_path: Path) -> None:
    """Any server behind a load balancer shows a run's log: the console reads the run's log streams (in the
    store every server shares), not the files on the disk of the host that ran its driver."""
    glue, console = open_console
    script = tmp_path / "chatty.py"
    script.write_text("import sys\nfor i in range(2500):\n    print(f'line {i}')\nprint('oops', file=sys.stderr)\n")
    client = embedded_client(glue)
    client.create_job(Name="console-chatty", Role="r", Command={"Name": "pythonshell", "ScriptLocation": str(script)},
                      DefaultArguments={"--custom-logGroup-prefix": "/team/etl"})
    run_id = client.start_job_run(JobName="console-chatty")["JobRunId"]
    wait_for(lambda: client.get_job_run(JobName="console-chatty", RunId=run_id)["JobRun"]["JobRunState"]
             == "SUCCEEDED", 120, "the run")
    asked = f"job=console-chatty&run={run_id}"
    status, _, first = answer(console, "GET", "/api/job-log", query=asked + "&log=output")
    assert status == 200 and first["Exists"] and first["JobRunState"] == "SUCCEEDED"
    assert first["Text"].splitlines() == [f"line {i}" for i in range(2000)]  # a page of 2,000 lines
    for folder in (glue.settings.home / "runs").rglob("output.log"):  # the host's files gone: the log is not
        folder.unlink()
    _, _, second = answer(console, "GET", "/api/job-log", query=asked + f"&log=output&token={first['Next']}")
    assert second["Text"].splitlines() == [f"line {i}" for i in range(2000, 2500)]
    _, _, third = answer(console, "GET", "/api/job-log", query=asked + f"&log=output&token={second['Next']}")
    assert third["Text"] == "" and third["Next"] == second["Next"]  # the end, until more comes
    _, _, errors = answer(console, "GET", "/api/job-log", query=asked + "&log=error")
    assert "oops" in errors["Text"]
    # the groups the job named (--custom-logGroup-prefix), as GetJobRunMetrics says
    _, _, named = answer(console, "POST", "/api/call", call("glueball", "GetJobRunMetrics",
                                                            {"JobName": "console-chatty", "RunId": run_id}))
    assert named["LogGroups"] == {"Output": "/team/etl/output", "Error": "/team/etl/error"}
    assert error(console, "GET", "/api/job-log", query=asked + "&token=not-a-token")[:2] == (
        400, "InvalidParameterException")


def test_a_run_without_log_lines_yet_has_an_empty_log(open_console: tuple[Glueball, Console]) -> None:
    glue, console = open_console
    client = embedded_client(glue)
    client.create_job(Name="console-quiet", Role="r", Command={"Name": "pythonshell", "ScriptLocation": "/dev/null"},
                      DefaultArguments={"--custom-logGroup-prefix": "/never/written"})
    run_id = client.start_job_run(JobName="console-quiet")["JobRunId"]
    _, _, piece = answer(console, "GET", "/api/job-log", query=f"job=console-quiet&run={run_id}")
    assert piece["Text"] == "" and piece["Exists"] is False and piece["Next"] == ""


def test_the_page_lists_the_pages_whose_operations_are_served(open_console: tuple[Glueball, Console]) -> None:
    _, console = open_console
    status, headers, page = answer(console, "GET", "/")
    assert status == 200 and headers["content-type"].startswith("text/html")
    config = json.loads(page.decode().split('type="application/json">')[1].split("</script>")[0])
    names = [p["name"] for p in config["pages"]]
    assert names[:3] == ["catalog", "query", "connections"] and "spend" in names and config["enforced"] is False
    registry = "ListRegistries" in console.needs.implemented("glue")
    assert ("registry" in names) is registry  # shown only where the schema registry is served
    status, headers, script = answer(console, "GET", "/static/vendor/uPlot.iife.min.js")
    assert status == 200 and headers["content-type"].startswith("text/javascript") and b"uPlot" in script


def test_with_identity_enforced_the_console_needs_a_sign_in(iam_console: tuple[Glueball, Console, Any]) -> None:
    glue, console, (key, secret) = iam_console
    assert error(console, "POST", "/api/call", call("glue", "GetDatabases")) == (
        401, "NotSignedIn", "Sign in with an access key to use the console")
    assert error(console, "POST", "/api/signin", {"AccessKeyId": key}) == (
        400, "InvalidInput", "Sign in with AccessKeyId and SecretAccessKey")
    status, code, message = error(console, "POST", "/api/signin", {"AccessKeyId": key, "SecretAccessKey": "wrong"})
    assert status == 401 and code == "SignatureDoesNotMatch" and message.startswith("Sign-in refused: ")
    assert error(console, "POST", "/api/signin", {"AccessKeyId": "AKIAUNKNOWN0000000000", "SecretAccessKey": "x"}
                 )[1] == "InvalidClientTokenId"
    status, headers, found = answer(console, "POST", "/api/signin", {"AccessKeyId": key, "SecretAccessKey": secret})
    assert status == 200 and found["arn"].endswith(":root")
    cookie = headers["set-cookie"].split(";")[0]
    assert "HttpOnly" in headers["set-cookie"] and "SameSite=Strict" in headers["set-cookie"]
    signed = {"cookie": cookie}
    assert answer(console, "GET", "/api/whoami", headers=signed)[2] == {"enforced": True, "arn": found["arn"]}
    assert answer(console, "POST", "/api/call", call("glue", "GetDatabases"), headers=signed)[0] == 200
    stored = list((glue.settings.home / "console" / "sessions").iterdir())
    assert len(stored) == 1 and cookie.split("=", 1)[1] not in stored[0].name  # kept by the token's hash
    assert oct(stored[0].stat().st_mode & 0o777) == "0o600"
    kept = json.loads(stored[0].read_text())
    stored[0].write_text(json.dumps({**kept, "expires": time.time() - 1}))
    assert error(console, "POST", "/api/call", call("glue", "GetDatabases"), headers=signed)[:2] == (
        401, "NotSignedIn")  # expired: gone
    assert list((glue.settings.home / "console" / "sessions").iterdir()) == []
    assert error(console, "POST", "/api/call", call("glue", "GetDatabases"), headers={"cookie": f"{COOKIE}=forged"}
                 )[1] == "NotSignedIn"


def test_the_console_is_mounted_next_to_the_api(open_console: tuple[Glueball, Console]) -> None:
    glue, _ = open_console
    seen: list[str] = []

    async def inner(scope: dict[str, Any], receive: Any, send: Any) -> None:
        seen.append(scope["path"])
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"api"})

    app = mounted(inner, glue.console_needs())

    async def get(path: str) -> tuple[int, dict[bytes, bytes]]:
        sent: list[dict[str, Any]] = []

        async def receive() -> dict[str, Any]:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        await app({"type": "http", "method": "GET", "path": path, "headers": [], "query_string": b""}, receive, send)
        return sent[0]["status"], dict(sent[0].get("headers", []))

    assert asyncio.run(get("/console"))[0] == 308
    status, headers = asyncio.run(get("/console/api/whoami"))
    assert status == 200 and headers[b"server-timing"].startswith(b"app;dur=")
    assert asyncio.run(get("/consoles"))[0] == 200 and seen == ["/consoles"]  # the API's, not the console's


def test_the_demo_serves_the_console_until_ctrl_c(tmp_path: Path) -> None:
    """As ``make demo`` does: Spark for the report started and stopped first (PySpark's own Ctrl-C handler must not
    outlive it), then the console served until Ctrl-C, which ends it cleanly."""
    port = free_port()
    script = ("import sys\nfrom glueball.app import Glueball\nfrom glueball.config import Settings\n"
              "from glueball.demo.pipeline import report_spark, serve_console\n"
              "with report_spark() as spark:\n    spark.range(3).count()\n"
              f"sys.exit(0 if serve_console(Glueball(Settings(home=__import__('pathlib').Path({str(tmp_path)!r})))) "
              "else 3)")  # 3: it did not serve
    env = {**os.environ, "DEMO_PORT": str(port)}
    env.pop("DEMO_SERVE", None)
    demo = subprocess.Popen([sys.executable, "-c", script], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        http = urllib3.PoolManager()
        deadline = time.monotonic() + 120
        while True:
            try:
                page = http.request("GET", f"http://127.0.0.1:{port}/console/", timeout=1)
                break
            except urllib3.exceptions.HTTPError:
                assert time.monotonic() < deadline and demo.poll() is None, demo.stderr.read() if demo.stderr else ""
                time.sleep(0.2)
        assert page.status == 200 and b"glueball console" in page.data
        demo.send_signal(signal.SIGINT)
        out, errors = demo.communicate(timeout=30)
    finally:
        if demo.poll() is None:
            demo.kill()
    assert demo.returncode == 0, errors.decode()[-3000:]
    assert b"Traceback" not in errors, errors.decode()[-3000:]
    assert f"The console: http://127.0.0.1:{port}/console/" in out.decode()


def test_demo_serve_0_skips_the_console(open_console: tuple[Glueball, Console], monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("DEMO_SERVE", "0")
    assert serve_console(open_console[0]) is False
    assert capsys.readouterr().out == ""
