"""The console's data calls: real boto3 requests signed as the signed-in principal, answered in-process.

A call goes through the edge exactly as one from boto3 over HTTP (signature, policies, validation, the
handler), so the console shows what the principal's policies allow and a refusal is the API's own
error, message included. Answers are made JSON-ready here (timestamps as epoch seconds, as the wire
has them).
"""

from __future__ import annotations

import base64
import datetime as dt
import json
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from botocore import xform_name
from botocore.exceptions import ClientError, ParamValidationError

from glueball.console.signin import Credentials

# (service, access key, secret, session token) -> a boto3 client answered by the installation in-process
ClientFactory = Callable[[str, str | None, str | None, str | None], Any]
SERVICES = ("glue", "glueball", "sts", "athena", "logs")  # what the console's pages call
LOG_PIECE = 256 * 1024  # about the most of a crawl's log one request returns
LOG_EVENTS = 2000  # the most lines of a job run's log one request returns
CRAWLER_GROUP = "/aws-glue/crawlers"  # Glue's crawlers' log group, a stream per crawler


@dataclass(frozen=True)
class ConsoleNeeds:
    """What the console needs from the installation (given by the composition root)."""

    client: ClientFactory
    enforced: bool  # --auth iam: every page needs a sign-in
    home: Path  # GLUEBALL_HOME: the sign-ins live under it
    implemented: Callable[[str], frozenset[str]]  # the operations a service answers (which pages exist)
    region: str = "us-east-1"  # the region the console's calls are made in (resource ARNs name it)


@dataclass
class CallError(Exception):
    """A call the API refused (or that could not be made): its code, message and HTTP status."""

    code: str
    message: str
    status: int = 400

    def to_json(self) -> dict[str, Any]:
        return {"error": {"code": self.code, "message": self.message}}


def jsonable(value: Any) -> Any:
    """A boto3 answer as JSON: datetimes as epoch seconds, bytes as base64, ``ResponseMetadata`` dropped."""
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items() if k != "ResponseMetadata"}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if isinstance(value, dt.datetime):
        return value.timestamp()
    if isinstance(value, bytes):
        return base64.b64encode(value).decode()
    return value


class Calls:
    """Makes the console's calls; keeps a few clients per signed-in principal (a client costs to build)."""

    def __init__(self, needs: ConsoleNeeds, keep: int = 64) -> None:
        self.needs = needs
        self.keep = keep
        self._clients: OrderedDict[tuple[str, str | None, str | None, str | None], Any] = OrderedDict()
        self._lock = threading.Lock()

    def _client(self, service: str, who: Credentials | None) -> Any:
        key = (service, who.access_key, who.secret, who.token) if who is not None else (service, None, None, None)
        with self._lock:
            client = self._clients.get(key)
            if client is not None:
                self._clients.move_to_end(key)
                return client
        client = self.needs.client(*key)
        with self._lock:
            self._clients[key] = client
            while len(self._clients) > self.keep:
                self._clients.popitem(last=False)
        return client

    def call(self, who: Credentials | None, service: str, operation: str, params: dict[str, Any]) -> dict[str, Any]:
        """``operation`` of ``service`` with ``params``, as ``who`` (None: unsigned identity, ``--auth off``).

        Raises:
            CallError: the API's refusal or error, or a request boto3 would not send.
        """
        if service not in SERVICES:
            raise CallError("UnknownService", f"The console calls {', '.join(SERVICES)}, not {service!r}")
        client = self._client(service, who)
        method = xform_name(operation)
        if operation not in client.meta.service_model.operation_names:
            raise CallError("UnknownOperation", f"{service} has no operation {operation!r}")
        try:
            answer = getattr(client, method)(**params)
        except ClientError as err:
            error = err.response.get("Error", {})
            status = int(err.response.get("ResponseMetadata", {}).get("HTTPStatusCode") or 400)
            raise CallError(str(error.get("Code") or "Error"), str(error.get("Message") or err), status) from None
        except ParamValidationError as err:
            raise CallError("ParamValidationError", str(err)) from None
        result: dict[str, Any] = jsonable(answer)
        return result

    def job_log(self, who: Credentials | None, job: str, run_id: str, which: str, token: str) -> dict[str, Any]:
        """What follows ``token`` (from the start: empty) of a job run's output or error log stream, read from
        CloudWatch Logs as ``who``: its log group is the one ``Glueball.GetJobRunMetrics`` names (the job's
        ``--custom-logGroup-prefix`` applies), its stream the run id. Whichever server answers (they share the
        store), the lines are the same: not a file of the host that ran the driver."""
        if which not in ("output", "error"):
            raise CallError("InvalidInputException", f"log must be output or error, not {which!r}")
        metrics = self.call(who, "glueball", "GetJobRunMetrics", {"JobName": job, "RunId": run_id})
        group = (metrics.get("LogGroups") or {}).get("Output" if which == "output" else "Error")
        request: dict[str, Any] = {"logGroupName": group, "logStreamName": run_id, "startFromHead": True,
                                   "limit": LOG_EVENTS}
        if token:
            request["nextToken"] = token
        piece = self._events(who, "GetLogEvents", request)
        if piece is None:
            return {"Text": "", "Next": token, "Exists": False, "JobRunState": metrics.get("JobRunState")}
        text = "".join(event["message"] + "\n" for event in piece.get("events") or [])
        return {"Text": text, "Next": piece.get("nextForwardToken") or token, "Exists": True,
                "JobRunState": metrics.get("JobRunState")}

    def crawl_log(self, who: Credentials | None, crawler: str, crawl_id: str) -> dict[str, Any]:
        """A crawl's log: allowed when ``who`` may list the crawler's crawls (``ListCrawls``); its lines are the
        events of the crawler's stream in ``/aws-glue/crawlers`` that name the crawl (each line does), read from
        CloudWatch Logs as ``who``."""
        found = self.call(who, "glue", "ListCrawls", {"CrawlerName": crawler, "Filters": [
            {"FieldName": "CRAWL_ID", "FilterOperator": "EQ", "FieldValue": crawl_id}]})
        if not found.get("Crawls"):
            raise CallError("EntityNotFoundException", f"Crawler {crawler} has no crawl {crawl_id}", 400)
        request: dict[str, Any] = {"logGroupName": CRAWLER_GROUP, "logStreamNames": [crawler],
                                   "filterPattern": json.dumps(f"[{crawl_id}]")}
        lines: list[str] = []
        size = 0
        while size < LOG_PIECE:
            piece = self._events(who, "FilterLogEvents", request)
            if piece is None:
                return {"Text": "", "Exists": False}
            for event in piece.get("events") or []:
                lines.append(event["message"] + "\n")
                size += len(lines[-1])
            if not piece.get("nextToken"):
                break
            request["nextToken"] = piece["nextToken"]
        return {"Text": "".join(lines), "Exists": True}

    def _events(self, who: Credentials | None, operation: str, request: dict[str, Any]) -> dict[str, Any] | None:
        """A CloudWatch Logs read as ``who``; None when its group or stream does not exist (yet)."""
        try:
            return self.call(who, "logs", operation, request)
        except CallError as err:
            if err.code == "ResourceNotFoundException":
                return None
            raise


