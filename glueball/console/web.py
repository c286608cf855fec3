"""The console's HTTP side: an ASGI application answering ``/console/...`` and handing everything
else to the API's application, so the console lives on the server's own port.

Routes (all under ``/console``): ``/`` the page; ``/static/...`` the vendored assets; ``/api/whoami``,
``/api/signin``, ``/api/signout``; ``/api/call`` (one API operation as the signed-in principal);
``/api/job-log`` and ``/api/crawl-log``. A state-changing request must carry the header
``X-Glueball-Console`` (which a cross-site form cannot send) besides the ``SameSite=Strict`` cookie.
Every answer says its server time in a ``Server-Timing`` header (``bench/console.py`` reads it).
"""

from __future__ import annotations

import asyncio
import json
import logging
import mimetypes
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qs

from glueball.console.calls import CallError, Calls, ConsoleNeeds
from glueball.console.pages import STATIC, available, index_html
from glueball.console.signin import COOKIE, LIFETIME, Credentials, SignIns

log = logging.getLogger("glueball.console")
PREFIX = "/console"
CSRF_HEADER = "x-glueball-console"
_MAX_BODY = 1024 * 1024
Answer = tuple[int, list[tuple[str, str]], bytes]


def _json(status: int, body: Any, headers: list[tuple[str, str]] | None = None) -> Answer:
    return status, [("content-type", "application/json"), *(headers or [])], json.dumps(body).encode()


def _error(status: int, code: str, message: str) -> Answer:
    return _json(status, {"error": {"code": code, "message": message}})


class Console:
    """The console of one installation: its routes, sign-ins and calls (no HTTP server of its own)."""

    def __init__(self, needs: ConsoleNeeds) -> None:
        self.needs = needs
        self.calls = Calls(needs)
        self.signins = SignIns(needs.home / "console" / "sessions")

    # -- routing (synchronous: runs on a worker thread)

    def answer(self, method: str, path: str, query: str, headers: dict[str, str], body: bytes) -> Answer:
        """The answer to one console request (``path`` below ``/console``); never raises."""
        try:
            if path in ("", "/"):
                return self._index()
            if path.startswith("/static/"):
                return self._static(path[len("/static/"):])
            if path.startswith("/api/"):
                return self._api(method, path[len("/api/"):], query, headers, body)
            return _error(404, "NotFound", f"No console page {path}")
        except CallError as err:
            return _json(err.status, err.to_json())
        except Exception as exc:  # a bug of ours: say so, keep the trace in the log
            log.exception("console request %s %s failed", method, path)
            return _error(500, "InternalError", f"Internal error in the console: {type(exc).__name__}")

    def _index(self) -> Answer:
        pages = available(self.needs.implemented)
        page = index_html(pages, {"enforced": self.needs.enforced, "region": self.needs.region})
        return 200, [("content-type", "text/html; charset=utf-8"), ("cache-control", "no-store")], page.encode()

    @staticmethod
    def _static(name: str) -> Answer:
        path = (STATIC / name).resolve()
        if not path.is_relative_to(STATIC.resolve()) or not path.is_file():
            return _error(404, "NotFound", f"No console asset {name}")
        kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        if kind.startswith("text/") or kind.endswith("javascript"):
            kind += "; charset=utf-8"
        return 200, [("content-type", kind), ("cache-control", "no-cache")], path.read_bytes()

    def _who(self, headers: dict[str, str]) -> tuple[str | None, Credentials | None]:
        cookie = SimpleCookie()
        try:
            cookie.load(headers.get("cookie", ""))
        except Exception:  # an unreadable cookie header: not signed in
            return None, None
        token = cookie[COOKIE].value if COOKIE in cookie else None
        return token, self.signins.get(token)

    def _api(self, method: str, route: str, query: str, headers: dict[str, str], body: bytes) -> Answer:
        if method == "POST" and headers.get(CSRF_HEADER) != "1":
            return _error(403, "Forbidden", f"Console requests that change state carry the {CSRF_HEADER} header")
        token, who = self._who(headers)
        if route == "whoami" and method == "GET":
            return _json(200, {"enforced": self.needs.enforced, "arn": who.arn if who else None})
        if route == "signin" and method == "POST":
            return self._sign_in(body)
        if route == "signout" and method == "POST":
            self.signins.remove(token)
            return _json(200, {}, [("set-cookie", f"{COOKIE}=; Path={PREFIX}/; Max-Age=0; HttpOnly; SameSite=Strict")])
        if self.needs.enforced and who is None:
            return _error(401, "NotSignedIn", "Sign in with an access key to use the console")
        params = {k: v[-1] for k, v in parse_qs(query).items()}
        if route == "call" and method == "POST":
            request = _body(body)
            service, operation = request.get("Service"), request.get("Operation")
            arguments = request.get("Params") or {}
            if not isinstance(service, str) or not isinstance(operation, str) or not isinstance(arguments, dict):
                return _error(400, "InvalidInput", "A call names Service and Operation (strings) and Params (object)")
            return _json(200, self.calls.call(who, service, operation, arguments))
        if route == "job-log" and method == "GET":
            return _json(200, self.calls.job_log(who, params.get("job", ""), params.get("run", ""),
                                                 params.get("log", "output"), params.get("token", "")))
        if route == "crawl-log" and method == "GET":
            return _json(200, self.calls.crawl_log(who, params.get("crawler", ""), params.get("crawl", "")))
        return _error(404, "NotFound", f"No console operation {method} {route}")

    def _sign_in(self, body: bytes) -> Answer:
        request = _body(body)
        key, secret = request.get("AccessKeyId"), request.get("SecretAccessKey")
        token = request.get("SessionToken") or None
        if not isinstance(key, str) or not key or not isinstance(secret, str) or not secret:
            return _error(400, "InvalidInput", "Sign in with AccessKeyId and SecretAccessKey")
        trial = Credentials(key, secret, str(token) if token else None)
        try:
            identity = self.calls.call(trial, "sts", "GetCallerIdentity", {})
        except CallError as err:  # the key id may be logged; the secret never is
            log.info("console sign-in refused for key %s: %s", key, err.code)
            raise CallError(err.code, f"Sign-in refused: {err.message}", 401) from None
        arn = str(identity.get("Arn", ""))
        cookie = self.signins.add(Credentials(key, secret, trial.token, arn))
        return _json(200, {"arn": arn}, [("set-cookie", f"{COOKIE}={cookie}; Path={PREFIX}/; Max-Age={LIFETIME}; "
                                                        "HttpOnly; SameSite=Strict")])


def _body(body: bytes) -> dict[str, Any]:
    try:
        found = json.loads(body or b"{}")
    except ValueError as err:
        raise CallError("InvalidInput", f"The request body is not JSON: {err}") from None
    if not isinstance(found, dict):
        raise CallError("InvalidInput", "The request body is a JSON object")
    return found


class ConsoleAsgi:
    """Serves ``/console`` with ``console`` and hands every other request to ``inner`` (the API)."""

    def __init__(self, inner: Callable[..., Any], console: Console, workers: int = 4) -> None:
        self.inner = inner
        self.console = console
        self.pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="console")

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        path = scope.get("path", "") if scope["type"] == "http" else ""
        if path != PREFIX and not path.startswith(PREFIX + "/"):
            if scope["type"] == "lifespan":
                await self._lifespan(scope, receive, send)
                return
            await self.inner(scope, receive, send)
            return
        started = time.perf_counter()
        if path == PREFIX:
            answer: Answer = (308, [("location", PREFIX + "/")], b"")
        else:
            body = bytearray()
            while True:
                message = await receive()
                body += message.get("body", b"")
                if len(body) > _MAX_BODY:
                    answer = _error(413, "TooLarge", "A console request body is at most 1 MiB")
                    break
                if not message.get("more_body"):
                    headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
                    answer = await asyncio.get_running_loop().run_in_executor(
                        self.pool, self.console.answer, scope["method"], path[len(PREFIX):],
                        scope.get("query_string", b"").decode("latin-1"), headers, bytes(body))
                    break
        status, headers_out, payload = answer
        took = (time.perf_counter() - started) * 1000
        out = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in headers_out]
        out += [(b"content-length", str(len(payload)).encode()), (b"server-timing", f"app;dur={took:.1f}".encode()),
                (b"x-content-type-options", b"nosniff")]
        await send({"type": "http.response.start", "status": status, "headers": out})
        await send({"type": "http.response.body", "body": payload})

    async def _lifespan(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        try:
            await self.inner(scope, receive, send)
        finally:
            self.pool.shutdown(wait=False)


def mounted(inner: Callable[..., Any], needs: ConsoleNeeds) -> ConsoleAsgi:
    """``inner`` (the API's ASGI application) with the console at ``/console/``."""
    return ConsoleAsgi(inner, Console(needs))

