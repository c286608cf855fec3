"""Who holds an access key, what they may do, and STS's temporary credentials.

:meth:`Identities.authenticate` answers the edge's question for ``--auth iam``: the secret of an
access key (long-term keys of users and account roots, or an assumed role's session) and the
principal it stands for. :meth:`Identities.policies` gives a principal's identity-based policies
(a user's own, its groups', a role's), parsed; :meth:`Identities.context` the global condition
keys that describe it. :meth:`Identities.assume_role` is STS AssumeRole: the role's trust policy
must allow the caller, and, unless the trust policy names the caller itself in its own account,
the caller's identity-based policies must allow ``sts:AssumeRole`` on the role too.
"""

from __future__ import annotations

import datetime as dt
import re
import secrets
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from glueball.api.identity import KeyHolder, Principal, PrincipalKind
from glueball.clock import now
from glueball.iam.conditions import CallerContext
from glueball.iam.errors import InvalidInput, MalformedPolicyDocument, StsAccessDenied
from glueball.iam.evaluation import Request, authorize, context_of, trust_allows
from glueball.iam.models import SESSION_KEY_PREFIX, Credentials, Kind, Tag, new_id, new_secret
from glueball.iam.policies import PolicyService
from glueball.iam.policy import Policy, PolicyError, PolicyKind, parse_policy, stored_policy
from glueball.iam.remembered import Remembered
from glueball.iam.service import IamService
from glueball.store.identity_tables import AccessKeyRow, PrincipalRow, SessionRow

_ROLE_ARN = re.compile(r"arn:aws:iam::(?P<account>\d{12}):role(?P<path>/(?:[^/]+/)*)(?P<name>[\w+=,.@-]+)")
MIN_DURATION = 900
CHAINED_MAX_DURATION = 3600
GLUE_SERVICE = "glue.amazonaws.com"  # the principal whose runs act as their role; marks the sessions it minted


class RunIdentityError(ValueError):
    """A run cannot act as its role (no such role, or the role does not trust Glue)."""


@dataclass(frozen=True)
class _Known:
    policies: tuple[Policy, ...]
    tags: tuple[tuple[str, str], ...]


class Identities:
    """Authentication, identity-based policies and STS sessions over the IAM store."""

    def __init__(self, iam: IamService, policies: PolicyService) -> None:
        self.iam = iam
        self.policy_service = policies
        self.store = iam.store
        changes = lambda: iam.generation  # noqa: E731
        self._known: Remembered[str, _Known] = Remembered(changes)
        self._holders: Remembered[str, KeyHolder | None] = Remembered(changes)
        self._contexts: Remembered[tuple[str, tuple[tuple[str, str], ...], str | None],
                                   CallerContext] = Remembered(changes)

    # -- authentication

    def authenticate(self, access_key: str) -> KeyHolder | None:
        """The holder of ``access_key``, or None when glueball does not know the key (known holders are
        remembered for a second, and forgotten at once after an IAM change of this process)."""
        # an unknown key is not remembered: one just made by another process works at once
        return self._holders.get(access_key, lambda: self._holder(access_key), keep=lambda h: h is not None)

    def _holder(self, access_key: str) -> KeyHolder | None:
        with self.store.read() as session:
            key = session.get(AccessKeyRow, access_key)
            if key is not None:
                if key.user_id is None:
                    return KeyHolder(key.secret, Principal.root(key.account_id), active=key.status == "Active")
                user = session.get(PrincipalRow, key.user_id)
                assert user is not None
                principal = Principal(PrincipalKind.USER, user.account_id,
                                      f"arn:aws:iam::{user.account_id}:user{user.path}{user.name}",
                                      unique_id=user.unique_id, name=user.name)
                return KeyHolder(key.secret, principal, active=key.status == "Active")
            found = session.get(SessionRow, access_key)
            if found is None:
                return None
            role = session.get(PrincipalRow, found.role_id)
            if role is None:  # the role was deleted: its sessions end with it
                return None
            principal = Principal(
                PrincipalKind.ASSUMED_ROLE, role.account_id,
                f"arn:aws:sts::{role.account_id}:assumed-role/{role.name}/{found.session_name}",
                role_arn=f"arn:aws:iam::{role.account_id}:role{role.path}{role.name}",
                unique_id=f"{role.unique_id}:{found.session_name}", name=found.session_name)
            run_id = found.session_name if found.source_arn == GLUE_SERVICE else None
            narrowed = stored_policy(found.session_policy) if found.session_policy else None
            return KeyHolder(found.secret, principal, found.session_token, found.expires_at,
                                 tuple((t["Key"], t["Value"]) for t in found.session_tags),
                                 restrictions=narrowed, run_id=run_id)

    # -- what a principal may do

    def _load(self, principal: Principal) -> _Known:
        return self._known.get(principal.arn, lambda: self._read_known(principal))

    def _read_known(self, principal: Principal) -> _Known:
        with self.store.read() as session:
            ids: list[int] = []
            tags: tuple[tuple[str, str], ...] = ()
            if principal.kind is PrincipalKind.USER:
                user = self.iam.find_row(session, principal.account_id, Kind.USER, principal.name)
                if user is not None:
                    ids = [user.id, *(g.id for g in self.iam._group_rows(session, user.id))]
                    tags = tuple((t["Key"], t["Value"]) for t in user.tags)
            elif principal.kind is PrincipalKind.ASSUMED_ROLE and principal.role_arn:
                role = self.iam.find_row(session, principal.account_id, Kind.ROLE, principal.role_arn.rsplit("/", 1)[1])
                if role is not None:
                    ids = [role.id]
                    tags = tuple((t["Key"], t["Value"]) for t in role.tags)
            documents = self.policy_service.documents_of(session, ids)
        return _Known(tuple(stored_policy(d, PolicyKind.IDENTITY) for d in documents), tags)

    def policies(self, principal: Principal) -> tuple[Policy, ...]:
        """The identity-based policies of ``principal`` (none for a root user, who needs none)."""
        return self.policies_read(principal)[0]

    def policies_read(self, principal: Principal) -> tuple[tuple[Policy, ...], float]:
        """:meth:`policies`, and when they were read (``time.monotonic()``; remembered ones may be older)."""
        if principal.kind in (PrincipalKind.ROOT, PrincipalKind.SERVICE):
            return (), time.monotonic()
        known, made = self._known.entry(principal.arn, lambda: self._read_known(principal))
        return known.policies, made

    def context(self, principal: Principal, session_tags: Sequence[tuple[str, str]] = (),
                source_ip: str | None = None, timed: bool = True) -> Mapping[str, tuple[str, ...]]:
        """The global condition keys of a request by ``principal``: what describes the principal, made once
        per caller and remembered as its policies are (not to be changed), and, when ``timed``, the request's
        time (``aws:CurrentTime``, ``aws:EpochTime``; leave it out only for policies that do not read it)."""
        described = self._contexts.get((principal.arn, tuple(session_tags), source_ip),
                                       lambda: self._principal_context(principal, session_tags, source_ip))
        if not timed:
            return described
        at = dt.datetime.now(dt.UTC)
        return {**described, "aws:currenttime": (at.strftime("%Y-%m-%dT%H:%M:%SZ"),),
                "aws:epochtime": (str(int(at.timestamp())),)}

    def _principal_context(self, principal: Principal, session_tags: Sequence[tuple[str, str]],
                           source_ip: str | None) -> CallerContext:
        keys: dict[str, str | None] = {
            "aws:PrincipalArn": principal.role_arn or principal.arn,
            "aws:PrincipalAccount": principal.account_id,
            "aws:PrincipalType": {PrincipalKind.ROOT: "Account", PrincipalKind.USER: "User",
                                  PrincipalKind.ASSUMED_ROLE: "AssumedRole",
                                  PrincipalKind.SERVICE: "Service"}[principal.kind],
            "aws:userid": principal.unique_id or None,
            "aws:username": principal.name if principal.kind is PrincipalKind.USER else None,
            "aws:SourceIp": source_ip,
            "aws:SecureTransport": "false",
        }
        tags: dict[str, str] = {}
        if principal.kind in (PrincipalKind.USER, PrincipalKind.ASSUMED_ROLE):
            tags.update(dict(self._load(principal).tags))
        tags.update(dict(session_tags))  # session tags override the role's tags of the same key
        for name, value in tags.items():
            keys[f"aws:PrincipalTag/{name}"] = value
        return CallerContext(context_of(keys))

    def forget(self) -> None:
        """Drop cached policies (after IAM changes made in this process)."""
        for memory in (self._known, self._holders, self._contexts):
            memory.clear()

    # -- the identity of runs

    def run_credentials(self, account_id: str, role: str, run_id: str, seconds: float) -> tuple[str, str, str]:
        """Temporary credentials of ``role`` for the run ``run_id`` (a job run, crawl or data quality run),
        valid ``seconds``: what the run's driver signs its requests with, acting as its role.

        Raises:
            RunIdentityError: the role does not exist in ``account_id`` (name or ARN), or its trust
                policy does not let Glue (``glue.amazonaws.com``) assume it.
        """
        match = _ROLE_ARN.fullmatch(role)
        account, name = (match["account"], match["name"]) if match else (account_id, role)
        with self.store.read() as session:
            row = self.iam.find_row(session, account, Kind.ROLE, name)
        if row is None or row.trust_policy is None:
            raise RunIdentityError(f"The role {role} does not exist in account {account}: with --auth iam a run acts "
                                   f"as its role")
        glue = Principal(PrincipalKind.SERVICE, account_id, GLUE_SERVICE, service=GLUE_SERVICE)
        allowed, _, reason = trust_allows(stored_policy(row.trust_policy, PolicyKind.TRUST), glue, "sts:AssumeRole",
                                          context_of({}))
        if not allowed:
            raise RunIdentityError(f"Glue cannot assume the role {role} {reason}: its trust policy must allow the "
                                   f"service principal {GLUE_SERVICE}")
        stamp = now()
        key = SessionRow(access_key_id=new_id(SESSION_KEY_PREFIX), secret=new_secret(),
                         session_token=secrets.token_urlsafe(96), account_id=row.account_id, role_id=row.id,
                         session_name=run_id[:64], source_arn=GLUE_SERVICE, session_tags=[], session_policy=None,
                         expires_at=stamp + seconds, create_time=stamp)
        with self.store.write() as session:
            session.add(key)
        return key.access_key_id, key.secret, key.session_token

    # -- STS

    def assume_role(self, caller: Principal, caller_tags: Sequence[tuple[str, str]], role_arn: str,
                    session_name: str, duration: int | None, external_id: str | None, tags: Sequence[Tag],
                    session_policy: str | None, source_ip: str | None) -> Credentials:
        """STS AssumeRole for ``caller``.

        Raises:
            StsAccessDenied: the role does not exist, its trust policy does not allow the caller, or the
                caller's own policies do not allow ``sts:AssumeRole`` on it.
            InvalidInput: DurationSeconds outside what the role allows (as ``ValidationError``).
        """
        refused = f"User: {caller.arn} is not authorized to perform: sts:AssumeRole on resource: {role_arn}"
        if caller.kind is PrincipalKind.ROOT:
            raise StsAccessDenied("Roles may not be assumed by root accounts.")
        match = _ROLE_ARN.fullmatch(role_arn)
        if match is None:
            raise _validation(f"Value '{role_arn}' at 'roleArn' failed to satisfy constraint: it is not a role ARN")
        if session_policy is not None:
            try:
                parse_policy(session_policy, PolicyKind.IDENTITY)
            except PolicyError as exc:
                raise MalformedPolicyDocument(str(exc)) from exc
        with self.store.read() as session:
            role = self.iam.find_row(session, match["account"], Kind.ROLE, match["name"])
        if role is None or role.path != match["path"] or role.trust_policy is None:
            raise StsAccessDenied(refused)
        limit = CHAINED_MAX_DURATION if caller.kind is PrincipalKind.ASSUMED_ROLE else (role.max_session_duration
                                                                                          or 3600)
        seconds = duration if duration is not None else 3600
        if seconds < MIN_DURATION or seconds > limit:
            raise _validation(f"The requested DurationSeconds exceeds the MaxSessionDuration set for this role "
                              f"({limit} seconds)." if seconds > limit else
                              f"DurationSeconds must be at least {MIN_DURATION} seconds.")
        context = dict(self.context(caller, caller_tags, source_ip))
        request_tags = {t.key: t.value for t in tags}
        context.update(context_of({"sts:ExternalId": external_id, "sts:RoleSessionName": session_name,
                                   "aws:TagKeys": list(request_tags) or None,
                                   **{f"aws:RequestTag/{k}": v for k, v in request_tags.items()}}))
        trust = stored_policy(role.trust_policy, PolicyKind.TRUST)
        allowed, through_account, reason = trust_allows(trust, caller, "sts:AssumeRole", context)
        if not allowed:
            raise StsAccessDenied(f"{refused} {reason}")
        if tags:
            tag_allowed, _, tag_reason = trust_allows(trust, caller, "sts:TagSession", context)
            if not tag_allowed:
                raise StsAccessDenied(f"User: {caller.arn} is not authorized to perform: sts:TagSession on "
                                      f"resource: {role_arn} {tag_reason}")
        if through_account or caller.account_id != role.account_id:
            # the trust policy (the role's resource policy) has allowed it: now the caller's own side
            outcome = authorize(Request(caller, "sts:AssumeRole", (role_arn,), caller.account_id, context),
                                self.policies(caller))
            if not outcome.allowed:
                raise StsAccessDenied(f"{refused} {outcome.reason}")
        stamp = now()
        row = SessionRow(access_key_id=new_id(SESSION_KEY_PREFIX), secret=new_secret(),
                         session_token=secrets.token_urlsafe(96), account_id=role.account_id, role_id=role.id,
                         session_name=session_name, source_arn=caller.arn,
                         session_tags=[{"Key": k, "Value": v} for k, v in request_tags.items()],
                         session_policy=session_policy, expires_at=stamp + seconds, create_time=stamp)
        with self.store.write() as session:
            session.add(row)
        packed = None
        if tags or session_policy:
            packed = min(100, 6 * len(tags) + (len(session_policy or "") * 100) // 2048)
        return Credentials(row.access_key_id, row.secret, row.session_token, row.expires_at,
                           f"arn:aws:sts::{role.account_id}:assumed-role/{role.name}/{session_name}",
                           f"{role.unique_id}:{session_name}", packed)


def _validation(message: str) -> InvalidInput:
    error = InvalidInput(message)
    error.code = "ValidationError"
    return error
