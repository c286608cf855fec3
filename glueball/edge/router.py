"""The edge: which service a request is for, its protocol, validation, the handler, the wire answer.

A request is routed by what identifies its service on the wire, in this order:

1. ``X-Amz-Target: <prefix>.<Operation>`` — AWS JSON services (``AWSGlue`` is Glue,
   ``Glueball`` glueball's own operations);
2. the SigV4 credential scope's service (``.../us-east-1/sts/aws4_request``), in the
   ``Authorization`` header or a presigned URL's ``X-Amz-Credential``;
3. for an unsigned query-protocol request, its ``Version`` parameter (each query service has
   its own API version);
4. an unsigned request that is not a JSON or form POST (``GET /bucket/key``, ``PUT``, ``HEAD``,
   ``DELETE``, ``POST /bucket/key?uploads``): S3, addressed by path or host;
5. otherwise the default service (Glue), whose protocol then names what is missing.

S3 uploads (``PUT``/``POST`` for S3) reach the edge with their body already written to a file in
the service's spool folder (:mod:`glueball.edge.spool`), never whole in memory.

The service's protocol reads the operation and its parameters, the service's botocore model
validates them, the handler the composition root mounted answers, and the protocol writes the
answer or the error. This is the one place where an exception becomes a wire error: a
:class:`~glueball.errors.ServiceError` in the protocol's form, anything else a 500 with the
request id (logged with its trace). The edge imports no area.
"""

from __future__ import annotations

import base64
import datetime as dt
import functools
import hmac
import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import botocore.model

from glueball.api.identity import Caller, KeyHolder
from glueball.api.operations import Handler, Operations, Request
from glueball.api.pagination import serving
from glueball.edge.failures import environment_cause
from glueball.edge.model import service_model
from glueball.edge.protocols import JsonProtocol, Protocol, QueryProtocol, RestProtocol
from glueball.edge.protocols.base import CodedError
from glueball.edge.protocols.plain import PlainJsonProtocol
from glueball.edge.protocols.query import FORM, QueryError, form_pairs
from glueball.edge.signing import SecretKey, SignatureFailure, read_signature
from glueball.edge.sigv4 import AccountDirectory, CredentialScope, credential_scope
from glueball.edge.spool import Spooler, SpoolError, is_aws_chunked
from glueball.edge.validation import check_storable, validate
from glueball.edge.verified import VerifiedRequests
from glueball.edge.wire import WireRequest, WireResponse
from glueball.errors import SerializationException, ServiceError

log = logging.getLogger("glueball.edge")

# a service's check of a request before its handler; it may answer the caller the request is served
# for (a cross-account catalog request allowed by a resource policy is served in the catalog's account)
Guard = Callable[[Caller, str, Request], Caller | None]
KeyLookup = Callable[[str], KeyHolder | None]


_KNOWN_KEYS = 10000


@dataclass(frozen=True, slots=True)
class _KnownKey:
    """What the edge keeps of one access key between its requests: the holder the key lookup answered (the
    entry stands while the lookup answers this very object), the key to verify with and the caller."""

    holder: KeyHolder
    key: SecretKey
    caller: Caller


@dataclass
class _Mounted:
    handler: Handler
    needs: Any


@dataclass
class Service:
    """One service the edge answers: its model, protocol and mounted operations."""

    name: str
    protocol: Protocol
    model: botocore.model.ServiceModel | None
    label: str
    guard: Guard | None = None
    validates: bool = True
    operations: dict[str, _Mounted] = field(default_factory=dict)
    spool: Path | None = None  # uploads to this service are written here as they arrive
    open_enums: frozenset[str] = frozenset()  # enum shapes the service does not enforce (edge.validation)
    signed_paths: bool = False  # a path service whose requests may be SigV4-signed (not only HTTP Basic)
    by_path: bool = False  # a path-routed plain JSON service (add_path_service): HTTP Basic with --auth iam

    def qualified(self, operation: str) -> str:
        return f"{self.label}.{operation}"


class Edge:
    """Routes requests to the services mounted on it; answers every request, never raises.

    Args:
        accounts: maps access keys to accounts (the caller of each request) when signatures are not
            verified (``--auth off``).
        region: the region of requests whose credential scope names none.
        keys: with ``--auth iam``, what the server knows of an access key: every request must then be
            signed with a key it knows, and the caller is that key's holder.
        body_spool: where the server keeps a large body it will read whole (a JSON or query request)
            while it arrives, rather than in memory.
        clock: the time request times are checked against (UTC).
    """

    def __init__(self, accounts: AccountDirectory, region: str, keys: KeyLookup | None = None,
                 body_spool: Path | None = None, clock: Callable[[], dt.datetime] | None = None) -> None:
        self.accounts = accounts
        self.region = region
        self.keys = keys
        self.body_spool = body_spool
        self.clock = clock or functools.partial(dt.datetime.now, dt.UTC)
        self.services: dict[str, Service] = {}
        self._by_target: dict[str, Service] = {}
        self._by_version: dict[str, Service] = {}
        self._by_signing_name: dict[str, Service] = {}
        self._default: Service | None = None
        self._by_path: Service | None = None  # unsigned requests that are neither JSON nor form posts (S3)
        self._by_prefix: list[tuple[PlainJsonProtocol, Service]] = []  # path-routed JSON services
        self._known: dict[str, _KnownKey] = {}  # access key -> what verifies its requests and who they are for
        self._verified = VerifiedRequests()  # requests verified last, recognised when sent again unchanged

    # -- wiring (the composition root)

    def add_json_service(self, name: str, target_prefix: str, validates: bool = True, guard: Guard | None = None,
                         default: bool = False, open_enums: frozenset[str] = frozenset(),
                         validation_code: str | None = None) -> Service:
        """Serve ``name`` over AWS JSON 1.1 for ``X-Amz-Target: <target_prefix>.*``.

        With ``validates`` False the model names the operations (and serves clients) but the
        handlers check their own input (glueball's own operations, whose messages say more than
        the model's constraints can). ``open_enums`` names the model's enum shapes the service
        accepts other values of; ``validation_code`` the code of input the model refuses, when the
        service does not call it ``ValidationException``.
        """
        model = service_model(name)
        service = Service(name, JsonProtocol(model, target_prefix, validation_code=validation_code), model,
                          target_prefix, guard, validates=validates, open_enums=open_enums)
        self.services[name] = service
        self._by_signing_name.setdefault(str(model.signing_name), service)
        self._by_target[target_prefix] = service
        if default:
            self._default = service
        return service

    def add_query_service(self, name: str, guard: Guard | None = None) -> Service:
        """Serve ``name`` over the query protocol (signed with scope ``name``, or by its API version)."""
        model = service_model(name)
        service = Service(name, QueryProtocol(model), model, name, guard)
        self.services[name] = service
        self._by_signing_name[str(model.signing_name)] = service
        self._by_version[str(model.api_version)] = service
        return service

    def add_json_variant(self, name: str, validation_code: str | None = None) -> Service:
        """Serve ``name``, already served over the query protocol, over AWS JSON too (its model's
        ``protocols`` list both; CloudWatch): ``X-Amz-Target: <the model's targetPrefix>.*``, the same
        operations and guard, JSON 1.0 or 1.1 as the model's ``jsonVersion`` says."""
        served = self.services[name]
        assert served.model is not None
        prefix = str(served.model.metadata["targetPrefix"])
        content_type = f"application/x-amz-json-{served.model.metadata.get('jsonVersion', '1.1')}"
        variant = Service(name, JsonProtocol(served.model, prefix, content_type, validation_code), served.model, prefix,
                          served.guard, operations=served.operations)
        self._by_target[prefix] = variant
        return variant

    def add_rest_service(self, name: str, guard: Guard | None = None, protocol: RestProtocol | None = None,
                         spool: Path | None = None, unsigned: bool = False) -> Service:
        """Serve ``name`` over its REST protocol (REST-JSON or REST-XML), for requests signed for it.

        Args:
            protocol: the protocol, when the service needs more than the model says (S3's addressing).
            spool: write uploads to this folder as they arrive (S3's objects) instead of holding them.
            unsigned: also answer unsigned requests that are not JSON or form posts (S3, the one such).
        """
        model = service_model(name)
        if model.protocol not in ("rest-json", "rest-xml"):
            raise ValueError(f"{name} speaks {model.protocol}, not a REST protocol")
        service = Service(name, protocol or RestProtocol(model), model, name, guard, spool=spool)
        self.services[name] = service
        self._by_signing_name[str(model.signing_name)] = service
        if unsigned:
            self._by_path = service
        return service

    def add_path_service(self, name: str, prefix: str, content_type: str = "application/json",
                         guard: Guard | None = None, protocol: PlainJsonProtocol | None = None,
                         signed: bool = False) -> Service:
        """Serve ``name`` as plain JSON over HTTP paths under ``prefix`` (no model; its one operation
        ``Request`` routes by path itself, :mod:`glueball.edge.protocols.plain`). With ``--auth iam`` its
        requests authenticate with HTTP Basic: an access key id and its secret (as the Confluent clients'
        ``basic.auth.user.info``). ``protocol``: a path protocol of its own (its error model), under ``prefix``.
        ``signed``: its requests may also be SigV4-signed (whatever signing name their credential scope gives, as
        Iceberg's REST clients sign with ``rest.signing-name``); such a request is verified as any signed one."""
        protocol = protocol or PlainJsonProtocol(prefix, content_type)
        service = Service(name, protocol, None, name, guard, signed_paths=signed, by_path=True)
        self.services[name] = service
        self._by_prefix.append((protocol, service))
        return service

    def mount(self, operations: Operations, needs: Any) -> None:
        """Answer ``operations`` with their handlers, each given ``needs``.

        Raises:
            ValueError: the service is not added, an operation is not in its model, or is mounted twice.
        """
        service = self.services.get(operations.service)
        if service is None:
            raise ValueError(f"no service {operations.service!r} on this edge")
        for name, handler in operations.handlers.items():
            if service.model is not None and name not in service.model.operation_names:
                raise ValueError(f"{name} is not an operation of the {service.name} service model")
            if name in service.operations:
                raise ValueError(f"{service.name}:{name} is mounted twice")
            service.operations[name] = _Mounted(handler, needs)

    def implemented(self, service: str) -> frozenset[str]:
        """The operations of ``service`` that have a handler."""
        found = self.services.get(service)
        return frozenset(found.operations) if found is not None else frozenset()

    # -- serving

    def spool_folder(self, request: WireRequest) -> Path | None:
        """Where to write the body of ``request`` (headers only yet) as it arrives, or None to hold it."""
        if request.method not in ("PUT", "POST") or request.header("x-amz-target"):
            return None
        service = self._route(request, credential_scope(request.header("authorization"), request.query))
        return service.spool if service is not None else None

    def holds_body(self, request: WireRequest) -> bool:
        """Whether serving ``request`` (headers only yet) reads its body whole into memory: every request
        but a streamed upload (an S3 object or part)."""
        service = self._route(request, credential_scope(request.header("authorization"), request.query))
        return service is None or service.protocol.holds_body(request)

    def refuse(self, request: WireRequest, code: str, message: str, status: int = 400) -> WireResponse:
        """The error ``code`` for a request that could not even be read, in its service's protocol."""
        return self._refused(request, lambda protocol: CodedError(code, message, status))

    def limit(self, request: WireRequest, kind: str, message: str) -> WireResponse:
        """A request refused for what reading its body would take (``throttled``, ``too large``), in its
        service's protocol (:meth:`Protocol.limit_error`)."""
        return self._refused(request, lambda protocol: protocol.limit_error(kind, message))

    def internal(self, request: WireRequest, message: str) -> WireResponse:
        """The service's internal error (a 500) for a request the server could not serve (``message`` says why)."""
        return self._refused(request, lambda protocol: protocol.internal_error(message))

    def _refused(self, request: WireRequest, error: Callable[[Protocol], ServiceError]) -> WireResponse:
        service = self._route(request, credential_scope(request.header("authorization"), request.query))
        protocol = service.protocol if service is not None else _JSON_ERRORS
        if service is None and (request.content_type == FORM or "Action=" in request.query):
            protocol = _QUERY_ERRORS
        return protocol.error(error(protocol), str(uuid.uuid4()))

    def handle(self, request: WireRequest) -> WireResponse:
        """Serve one request in its service's protocol; never raises."""
        if request.spooled is None and request.body and is_aws_chunked(request.headers):
            return self._unchunked(request)
        response = self._handle(request)
        if request.method == "HEAD":  # headers only, errors included (S3 answers a HEAD error by status)
            response.head = True
            if response.stream is None and response.status >= 300:
                response.body = b""
        return response

    def _unchunked(self, request: WireRequest) -> WireResponse:
        """An aws-chunked body that arrived whole (an in-process client): decoded as the server decodes one."""
        folder = self.spool_folder(request)
        if folder is None:
            return self.refuse(request, "InvalidRequest", "An aws-chunked body is only accepted for uploads")
        spooler = Spooler(folder, chunked=True)
        try:
            try:
                spooler.feed(request.body)
                spooled = spooler.finish()
            except SpoolError as err:
                return self.refuse(request, "IncompleteBody", str(err))
            return self.handle(replace(request, body=b"", spooled=spooled))
        finally:
            spooler.discard()

    def _handle(self, request: WireRequest) -> WireResponse:
        request_id = str(uuid.uuid4())
        scope = credential_scope(request.header("authorization"), request.query)
        service = self._route(request, scope)
        if service is None:
            return self._unroutable(request, request_id)
        protocol = service.protocol
        operation = None
        try:
            caller = self._caller(request, service, scope)  # authentication comes before anything is read
            operation = protocol.operation(request)
            mounted = self._mounted(service, operation)
            try:
                params = protocol.parameters(request, operation)
            except ServiceError as err:  # unreadable input, named as the protocol names it
                raise protocol.validation_error(err) from err
            params = self._validated(service, operation, params)
            if service.guard is not None:
                caller = service.guard(caller, operation, params) or caller
            with serving(service.qualified(operation)):
                result = mounted.handler(mounted.needs, caller, params)
            return protocol.answer(operation, result, request_id)
        except ServiceError as err:
            _forget(err)
            return protocol.error(err, request_id)
        except Exception as exc:  # a bug of ours (or a full disk): answer as the service does, trace in the log
            where = service.qualified(operation) if operation else service.name
            log.exception("%s failed (request %s)", where, request_id)
            what = environment_cause(exc) or type(exc).__name__
            _forget(exc)
            return protocol.error(protocol.internal_error(f"Internal error in {where}: {what}"), request_id)

    def _caller(self, request: WireRequest, service: Service, scope: CredentialScope | None) -> Caller:
        """Who the request is for: with ``keys``, the verified signer; else the access key's account."""
        if self.keys is None:
            return self.accounts.caller(scope, self.region, request.source_ip)
        if service.by_path and not (service.signed_paths and scope is not None and scope.service != "s3"):
            return self._basic_caller(request, service)
        try:
            s3_style = service.name == "s3"
            # a request identical to one verified before is recognised (glueball.edge.verified): its signature
            # would compute the same with the same key; what depends on the moment is checked every time
            recalled = self._verified.recall(request, s3_style)
            signed = recalled.signed if recalled is not None else read_signature(request)
            holder = self.keys(signed.access_key)
            known = self._known.get(signed.access_key) if holder is not None else None
            region = signed.region or self.region
            if known is None or known.holder is not holder or known.caller.region != region or \
                    known.caller.source_ip != request.source_ip:
                known = self._remember(signed.access_key, holder, region, request.source_ip)
            self._verified.verify(request, signed, known.key if known is not None else None,
                                  self.clock(), s3_style, recalled)
        except SignatureFailure as failure:
            # the log names the key id and why, never a secret
            key_id = scope.access_key if scope is not None else "-"
            log.warning("refused %s request signed with key %s: %s", service.name, key_id, failure)
            raise service.protocol.auth_error(failure.kind.value, failure.message) from None
        assert known is not None
        return known.caller

    def _remember(self, access_key: str, holder: KeyHolder | None, region: str,
                  source_ip: str | None) -> _KnownKey | None:
        """The server's key and the caller of ``holder`` (None: not a key to verify with), remembered for the
        requests that follow while the key lookup answers the same holder (a holder changes with the key, its
        principal or its policies, and the lookup's memory is its own to keep fresh)."""
        if holder is None or not holder.active:
            self._known.pop(access_key, None)
            return None
        known = _KnownKey(holder, SecretKey(holder.secret, holder.session_token, holder.expires_at),
                          Caller(access_key, holder.principal.account_id, region, holder.principal, source_ip,
                                 holder.session_tags, holder.restrictions, holder.run_id))
        if len(self._known) >= _KNOWN_KEYS:  # keys come from requests: bounded
            self._known.clear()
        self._known[access_key] = known
        return known

    def _basic_caller(self, request: WireRequest, service: Service) -> Caller:
        """The caller of a path-routed request with ``--auth iam``: HTTP Basic with an access key and its secret."""
        assert self.keys is not None
        header = request.header("authorization") or ""
        kind, _, encoded = header.partition(" ")
        try:
            key, colon, secret = base64.b64decode(encoded, validate=True).decode().partition(":")
        except (ValueError, UnicodeDecodeError):
            key, colon, secret = "", "", ""
        if kind.lower() != "basic" or not colon:
            raise service.protocol.auth_error("missing", "Requests need HTTP Basic authentication with an access "
                                                         "key id and its secret access key")
        holder = self.keys(key)
        if holder is None or not holder.active or holder.session_token is not None or not hmac.compare_digest(
                holder.secret.encode(), secret.encode()):
            log.warning("refused %s request with key %s: unknown key or wrong secret", service.name, key)
            raise service.protocol.auth_error("bad signature", "The access key or its secret is not valid")
        return Caller(key, holder.principal.account_id, self.region, holder.principal, request.source_ip,
                      holder.session_tags, holder.restrictions, holder.run_id)

    def _route(self, request: WireRequest, scope: CredentialScope | None) -> Service | None:
        target = request.header("x-amz-target")
        if target:
            return self._by_target.get(target.partition(".")[0])
        for protocol, service in self._by_prefix:
            # a signed request reaches a path service only when it is not signed for S3 (whose bucket could be named
            # as the prefix is)
            signed_here = service.signed_paths and scope is not None and scope.service != "s3"
            if (scope is None or signed_here) and protocol.serves(request.path):
                return service
        if scope is not None:
            return self._by_signing_name.get(scope.service)
        # query-protocol services are posted forms to "/" (a form posted to /bucket?delete is S3's)
        query_form = request.method == "POST" and request.content_type == FORM and request.path in ("", "/")
        if query_form or "Action=" in request.query:
            try:
                versions = [v for k, v in form_pairs(request) if k == "Version"]
            except QueryError:
                versions = []
            return self._by_version.get(versions[0]) if versions else None
        if self._by_path is not None and (request.method != "POST" or not request.content_type.startswith(
                "application/x-amz-json")):
            return self._by_path
        return self._default

    def _unroutable(self, request: WireRequest, request_id: str) -> WireResponse:
        target = request.header("x-amz-target")
        scope = credential_scope(request.header("authorization"), request.query)
        if target:
            what = f"Unknown operation {target}"
        elif scope is not None:
            what = f"glueball does not serve the service {scope.service!r}"
        else:
            what = "The request names no service glueball serves (no X-Amz-Target, credential scope or Version)"
        if request.content_type == FORM or "Action=" in request.query:
            try:
                form_pairs(request)
            except QueryError as err:  # unreadable: say so rather than that the service is unknown
                return _QUERY_ERRORS.error(err, request_id)
            return _QUERY_ERRORS.error(QueryError("InvalidAction", what), request_id)
        return _JSON_ERRORS.error(_JSON_ERRORS.unknown_operation(what), request_id)

    @staticmethod
    def _mounted(service: Service, operation: str) -> _Mounted:
        mounted = service.operations.get(operation)
        if mounted is not None:
            return mounted
        protocol = service.protocol
        if service.model is not None and operation in service.model.operation_names:
            raise protocol.unknown_operation(
                f"{service.qualified(operation)} is not implemented by glueball; see docs/IMPLEMENTATION_COVERAGE.md")
        if isinstance(protocol, QueryProtocol):
            version = service.model.api_version if service.model is not None else ""
            raise protocol.unknown_operation(f"Could not find operation {operation} for version {version}")
        raise protocol.unknown_operation(f"Unknown operation {service.qualified(operation)}")

    @staticmethod
    def _validated(service: Service, operation: str, params: Any) -> Request:
        if service.model is None or not service.validates:  # the handler validates its input
            if not isinstance(params, dict):
                raise SerializationException(f"{service.qualified(operation)} expects a JSON object")
            try:  # but values no store can keep are refused for every operation
                check_storable(service.model.operation_model(operation).input_shape if service.model else None,
                               params)
            except ServiceError as err:
                raise service.protocol.validation_error(err) from err
            return params
        try:
            validate(service.model.operation_model(operation).input_shape, params, service.open_enums)
        except ServiceError as err:
            raise service.protocol.validation_error(err) from err
        return params if isinstance(params, dict) else {}


def _forget(error: BaseException) -> None:
    """Drop the tracebacks (and chain) of an answered error. Its traceback's frames hold the request, its
    body and parsed values, and the frames hold the error: a cycle that would keep them all until the
    garbage collector runs, which may be long after a large request was answered."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        following = current.__cause__ or current.__context__
        current.__traceback__ = None
        current.__cause__ = current.__context__ = None
        current = following


class _UnmodelledQuery(QueryProtocol):
    """Writes query-protocol errors for requests that reached no query service."""

    def __init__(self) -> None:
        Protocol.__init__(self, None)
        self.namespace = ""


_QUERY_ERRORS = _UnmodelledQuery()
_JSON_ERRORS = JsonProtocol(None, "")
