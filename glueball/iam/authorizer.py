"""Authorization of requests with ``--auth iam``: the caller's identity-based policies (and an assumed
role's session policy) evaluated for the request's action and resources.

The composition root installs :meth:`Authorizer.glue_guard` and :meth:`Authorizer.iam_guard` on
the edge. A refusal names the principal, the action, the resource and what decided, as AWS's
messages do: ``User: arn:aws:iam::111122223333:user/alice is not authorized to perform:
glue:GetTable on resource: arn:aws:glue:us-east-1:111122223333:table/sales/orders because no
identity-based policy allows the glue:GetTable action``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from glueball.api.identity import Caller, PrincipalKind
from glueball.errors import AccessDeniedException, ServiceError
from glueball.iam.actions import (
    Ask,
    asked_by_name,
    athena_ask,
    cloudwatch_ask,
    databrew_ask,
    glue_ask,
    iam_ask,
    logs_ask,
    s3_asks,
)
from glueball.iam.credentials import Identities
from glueball.iam.errors import (
    CloudWatchAccessDenied,
    DataBrewAccessDenied,
    IamAccessDenied,
    LogsAccessDenied,
    S3AccessDenied,
)
from glueball.iam.evaluation import Decision, Outcome, Request, authorize, context_of
from glueball.iam.models import Kind
from glueball.iam.policy import Policy
from glueball.iam.remembered import CallerMemory, Remembered
from glueball.iam.resource_policies import ResourcePolicies
from glueball.iam.service import IamService

# (account, region, connection names) -> glue:VpcIds / glue:SubnetIds / glue:SecurityGroupIds of those connections
NetworkLookup = Callable[[str, str, list[str]], dict[str, list[str]]]
# resource ARNs -> the tags of those that have any
TagLookup = Callable[[list[str]], dict[str, dict[str, str]]]


def connection_names(operation: str, request: Mapping[str, Any]) -> list[str]:
    """The connections a job or session request names (``Connections.Connections``, also inside ``JobUpdate``)."""
    holder = request.get("JobUpdate") if operation == "UpdateJob" else request
    connections = (holder or {}).get("Connections") or {}
    return [str(name) for name in connections.get("Connections") or []]


def passed_role(operation: str, request: Mapping[str, Any]) -> str | None:
    """The role a request hands to Glue (a job's, crawler's, session's or data quality run's ``Role``)."""
    if operation == "UpdateJob":
        return (request.get("JobUpdate") or {}).get("Role")
    if operation == "UpdateCrawler" or operation.startswith(("Create", "Start")):
        role = request.get("Role")
        return str(role) if role else None
    return None


class Authorizer:
    """Decides, per request, whether the caller may do what it asks.

    ``network`` tells the VPCs, subnets and security groups of named connections (glueball keeps no
    VPCs: the VPC of a subnet is what the operator declared with ``--subnet-vpc``).
    """

    def __init__(self, iam: IamService, identities: Identities, network: NetworkLookup | None = None,
                 resource_policies: ResourcePolicies | None = None, tags: TagLookup | None = None,
                 bucket_owner: Callable[[str], str | None] | None = None) -> None:
        self.iam = iam
        self.identities = identities
        self.network = network
        self.resource_policies = resource_policies
        self.tags = tags
        self.bucket_owner = bucket_owner  # the account of an S3 bucket (None: no such bucket)
        # (account, region, "query" | "named", id) -> the workgroup of an Athena query or named query
        self.athena_workgroup_of: Callable[[str, str, str, str], str | None] | None = None
        # decisions on the same question with the same policies: a request's time and its resources'
        # tags are not part of the question, so decisions that read them are never kept
        self._decisions: Remembered[tuple[Any, ...], tuple[Outcome, tuple[Policy, ...]]] = Remembered(
            lambda: iam.generation)

    def check(self, caller: Caller, ask: Ask, resource_account: str, deny: Callable[[str], ServiceError],
              resource_policies: tuple[Policy, ...] = ()) -> None:
        """Raise ``deny(message)`` unless ``caller`` may do ``ask`` in ``resource_account`` (whose resource
        policies are ``resource_policies``)."""
        self._check(self.memory(caller), caller, ask, resource_account, deny, resource_policies)

    def _check(self, memory: CallerMemory, caller: Caller, ask: Ask, resource_account: str,
               deny: Callable[[str], ServiceError], resource_policies: tuple[Policy, ...] = ()) -> bool:
        """:meth:`check`; True when the decision is remembered in ``memory``."""
        extra = tuple(sorted((k, v if isinstance(v, str | None) else tuple(v)) for k, v in ask.context.items())
                      ) if ask.context else ()
        # the caller (its principal, session tags, source address and session policy) is the memory's own
        question = (ask.action, ask.resources, resource_account, extra)
        kept = memory.decisions.get(question)
        if kept is not None and kept[1] == resource_policies:
            outcome, remembered = kept[0], True
        else:
            outcome, remembered = self._outcome(caller, ask, resource_account, resource_policies, memory, question)
        if not outcome.allowed:
            raise deny(f"User: {caller.who.arn} is not authorized to perform: {ask.action} on resource: "
                       f"{outcome.resource} {outcome.reason}")
        return remembered

    def memory(self, caller: Caller) -> CallerMemory:
        """What this authorizer keeps of ``caller`` (this very object), made anew after an IAM change of this
        process or a second."""
        generation = self.iam.generation
        memory = caller.memo.get(self)
        if not isinstance(memory, CallerMemory) or not memory.current(generation):
            memory = caller.memo[self] = CallerMemory(generation)
        return memory

    def _outcome(self, caller: Caller, ask: Ask, resource_account: str, resource_policies: tuple[Policy, ...],
                 memory: CallerMemory, question: tuple[Any, ...]) -> tuple[Outcome, bool]:
        """The decision on ``question``, remembered in ``memory`` (and for other callers of the same principal)
        unless a policy makes it for one request only."""
        principal = caller.who
        identity_policies = memory.identity_policies
        if identity_policies is None:
            identity_policies, read = self.identities.policies_read(principal)
            memory.identity_policies = identity_policies
            memory.read(read)
        restrictions = caller.restrictions if isinstance(caller.restrictions, Policy) else None
        policies = identity_policies
        if resource_policies or restrictions:
            policies = (*identity_policies, *resource_policies, *((restrictions,) if restrictions else ()))
        if any(policy.decided_per_request for policy in policies):
            return self._decide(caller, ask, resource_account, identity_policies, resource_policies, policies), False
        # a session policy is one parsed object per text (stored_policy): it names itself in the question
        shared = (principal.arn, caller.session_tags, caller.source_ip, restrictions, *question)
        outcome, decided_with = self._decisions.get(shared, lambda: (self._decide(
            caller, ask, resource_account, identity_policies, resource_policies, policies), policies))
        # remembered with other policy objects (changed since; a Policy equals only itself): decide afresh
        if decided_with != policies:
            outcome = self._decide(caller, ask, resource_account, identity_policies, resource_policies, policies)
        memory.keep(question, outcome, resource_policies)
        return outcome, True

    def _decide(self, caller: Caller, ask: Ask, resource_account: str, identity_policies: tuple[Policy, ...],
                resource_policies: tuple[Policy, ...], policies: tuple[Policy, ...]) -> Outcome:
        principal = caller.who
        # the caller's keys, made once per caller and remembered; the request's time only when a policy reads it
        context = self.identities.context(principal, caller.session_tags, caller.source_ip,
                                          timed=any(p.reads_time for p in policies))
        if ask.context:
            context = {**context, **context_of(ask.context)}
        per_resource = {}
        if self.tags is not None and any(p.reads_resource_tags for p in policies):
            tagged = self._resource_tags(tuple(r for r in ask.resources if r != "*"))
            per_resource = {arn: context_of({f"aws:ResourceTag/{k}": v for k, v in tags.items()})
                            for arn, tags in tagged.items()}
        request = Request(principal, ask.action, ask.resources, resource_account, context, per_resource)
        outcome = authorize(request, identity_policies, resource_policies)
        if outcome.allowed and isinstance(caller.restrictions, Policy):
            narrowed = authorize(request, [caller.restrictions])
            if not narrowed.allowed:
                reason = ("with an explicit deny in a session policy" if narrowed.decision is Decision.EXPLICIT_DENY
                          else f"because no session policy allows the {ask.action} action")
                outcome = type(narrowed)(narrowed.decision, narrowed.resource, reason)
        return outcome

    def _resource_tags(self, arns: tuple[str, ...]) -> dict[str, dict[str, str]]:
        """The resources' tags as they are now (one indexed query; a tag just written decides at once)."""
        assert self.tags is not None
        return self.tags(list(arns)) if arns else {}

    def glue_guard(self, caller: Caller, operation: str, request: Mapping[str, Any]) -> Caller | None:
        """A Glue request: its action on its resources, with the catalog's resource policy. A request for
        another account's catalog (``CatalogId``) that both sides allow is served in that account."""
        catalog = str(request.get("CatalogId") or caller.account_id)
        memory = self.memory(caller)
        # a request naming its resources by name alone (GetTable, GetDatabase ...) that this caller was allowed,
        # with a decision the memory keeps: allowed again (it names no role to pass and no connection)
        named = asked_by_name(request)
        by_name = (operation, catalog, *named) if named is not None else None
        if by_name is not None and by_name in memory.allowed_by_name:
            return replace(caller, account_id=catalog) if catalog != caller.account_id else None
        ask = glue_ask(operation, request, catalog, caller.region)
        names = connection_names(operation, request) if "Connections" in request or "JobUpdate" in request else []
        if names and self.network is not None:
            ask = Ask(ask.action, ask.resources, {**ask.context, **self.network(catalog, caller.region, names)})
        on_catalog: tuple[Policy, ...] = ()
        if self.resource_policies is not None:
            found = memory.catalogs.get((catalog, caller.region))
            if found is None:
                found, read = self.resource_policies.evaluated_read(catalog, caller.region)
                memory.catalogs[(catalog, caller.region)] = found
                memory.read(read)
            on_catalog = found
        remembered = self._check(memory, caller, ask, catalog, AccessDeniedException, on_catalog)
        if by_name is not None and remembered:
            memory.allow_by_name(by_name)
        role = passed_role(operation, request)
        if role is not None:
            arn = self.role_arn(caller.account_id, role)
            self.check(caller, Ask("iam:PassRole", (arn,), {"iam:PassedToService": "glue.amazonaws.com"}),
                       arn.split(":")[4], AccessDeniedException)
        return replace(caller, account_id=catalog) if catalog != caller.account_id else None

    def role_arn(self, account_id: str, role: str) -> str:
        """A role named by name (Glue accepts either) as its ARN, with its path when IAM knows it."""
        if role.startswith("arn:"):
            return role
        with self.iam.store.read() as session:
            row = self.iam.find_row(session, account_id, Kind.ROLE, role)
        return f"arn:aws:iam::{account_id}:role{row.path if row is not None else '/'}{role}"

    def internal_guard(self, caller: Caller, operation: str, request: Mapping[str, Any]) -> None:
        """glueball's own ``Glueball.*`` operations are the drivers': a run's credentials (those the server
        gave it, and only for that run), or the account's root; anyone else needs ``glueball:<Operation>``
        allowed, and only to read."""
        if caller.who.kind is PrincipalKind.ROOT:
            return
        named_run = request.get("RunId") or request.get("JobRunId") or request.get("SessionId")
        if caller.run_id is not None:
            if named_run is not None and str(named_run)[:64] != caller.run_id:  # session names keep 64 characters
                raise AccessDeniedException(f"The credentials of run {caller.run_id} cannot act for run {named_run}")
            return
        if not operation.startswith("Get"):
            raise AccessDeniedException(f"Glueball.{operation} is for the drivers of runs: it takes the credentials "
                                        f"the server gave the run")
        self.check(caller, Ask(f"glueball:{operation}", ("*",)), caller.account_id, AccessDeniedException)

    def s3_guard(self, caller: Caller, operation: str, request: Mapping[str, Any]) -> None:
        """An S3 request: its actions on the bucket or objects, in the account that owns the bucket (a
        bucket of another account is refused: glueball keeps no bucket policies to share one)."""
        bucket = request.get("Bucket")
        owner = self.bucket_owner(str(bucket)) if bucket and self.bucket_owner is not None else None
        for ask in s3_asks(operation, request):
            self.check(caller, ask, owner or caller.account_id, S3AccessDenied)

    def databrew_guard(self, caller: Caller, operation: str, request: Mapping[str, Any]) -> None:
        """A DataBrew request: ``databrew:<Operation>`` on the recipe it names, in the caller's account."""
        self.check(caller, databrew_ask(operation, request, caller.account_id, caller.region), caller.account_id,
                   DataBrewAccessDenied)

    def logs_guard(self, caller: Caller, operation: str, request: Mapping[str, Any]) -> None:
        """A CloudWatch Logs request: ``logs:<Operation>`` on its log group or stream, in the caller's account."""
        self.check(caller, logs_ask(operation, request, caller.account_id, caller.region), caller.account_id,
                   LogsAccessDenied)

    def athena_guard(self, caller: Caller, operation: str, request: Mapping[str, Any]) -> None:
        """An Athena request: ``athena:<Operation>`` on its workgroup or data catalog, in the caller's account."""
        lookup = self.athena_workgroup_of

        def workgroup_of(kind: str, found: str) -> str | None:
            return lookup(caller.account_id, caller.region, kind, found) if lookup is not None else None

        self.check(caller, athena_ask(operation, request, caller.account_id, caller.region, workgroup_of),
                   caller.account_id, AccessDeniedException)

    def cloudwatch_guard(self, caller: Caller, operation: str, request: Mapping[str, Any]) -> None:
        """A CloudWatch metrics request: ``cloudwatch:<Operation>`` (with ``cloudwatch:namespace`` for
        PutMetricData), in the caller's account."""
        self.check(caller, cloudwatch_ask(operation, request), caller.account_id, CloudWatchAccessDenied)

    def iam_guard(self, caller: Caller, operation: str, request: Mapping[str, Any]) -> None:
        def path_of(kind: str, name: str) -> str | None:
            with self.iam.store.read() as session:
                row = self.iam.find_row(session, caller.account_id, Kind(kind), name)
                return row.path if row is not None else None

        self.check(caller, iam_ask(operation, request, caller.account_id, path_of), caller.account_id,
                   IamAccessDenied)
