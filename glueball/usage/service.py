"""Usage of an account in a region, computed from the runs the store keeps (nothing is estimated ahead).

A run counts from its start to its end (to now while it runs). ``group_by`` keys: ``tag:<key>`` (the
resource's tag; ``(untagged)`` when it has none), ``resource``, ``kind``, ``user`` (who started the
run: the IAM user, the assumed role's session, the account root, or the access key glueball did not
know). Runs started by a trigger or a workflow are the starting trigger's (``user`` = ``trigger:<name>``).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterable, Sequence

from sqlalchemy import select
from sqlalchemy.orm import Session

from glueball.errors import InvalidInputException
from glueball.store.athena_tables import AthenaQueryRow
from glueball.store.engine import Store
from glueball.store.identity_tables import AccessKeyRow, PrincipalRow, SessionRow
from glueball.store.schema import CrawlerRow, CrawlRow, DataQualityRunRow, JobRow, JobRunRow, TagRow
from glueball.store.scoped import Scope
from glueball.store.session_tables import GlueSessionRow
from glueball.usage.models import CRAWL_DPUS, UsageGroup, UsageKind, UsageRecord, run_dpus

UNTAGGED = "(untagged)"


def check_group_by(group_by: Sequence[str]) -> None:
    for key in group_by:
        if key not in ("resource", "kind", "user") and not (key.startswith("tag:") and len(key) > 4):
            raise InvalidInputException(f"GroupBy {key!r}: expected tag:<key>, resource, kind or user")


class UsageService:
    """Billed use of one account in one region."""

    def __init__(self, store: Store, scope: Scope) -> None:
        self.store = store
        self.scope = scope

    def records(self, since: float | None = None, until: float | None = None,
                kinds: Iterable[UsageKind] | None = None) -> list[UsageRecord]:
        """Every run that started in [since, until), of the given kinds (all by default)."""
        wanted = set(kinds or UsageKind)
        found: list[UsageRecord] = []
        now = time.time()
        with self.store.read() as session:
            users = _Users(session)
            if UsageKind.JOB_RUN in wanted:
                found += self._job_runs(session, users, now)
            if UsageKind.CRAWL in wanted:
                found += self._crawls(session, users, now)
            if UsageKind.DATA_QUALITY_RUN in wanted:
                found += self._quality_runs(session, now)
            if UsageKind.SESSION in wanted:
                found += self._sessions(session, users, now)
            if UsageKind.ATHENA_QUERY in wanted:
                found += self._athena_queries(session, users, now)
            arns = list({r.resource_arn for r in found})
            tags: dict[str, dict[str, str]] = {}
            for row in session.scalars(select(TagRow).where(TagRow.resource_arn.in_(arns))) if arns else []:
                tags.setdefault(row.resource_arn, {})[row.key] = row.value
        return [dataclasses.replace(r, tags=tags.get(r.resource_arn, {}))
                for r in found if (since is None or r.started_on >= since) and (until is None or r.started_on < until)]

    def _job_runs(self, session: Session, users: _Users, now: float) -> list[UsageRecord]:
        rows = session.execute(select(JobRunRow, JobRow.name).join(JobRow, JobRow.id == JobRunRow.job_id).where(
            JobRow.account_id == self.scope.account_id, JobRow.region == self.scope.region))
        return [UsageRecord(UsageKind.JOB_RUN, name, self.scope.arn(f"job/{name}"), run.run_id, run.started_on,
                            (run.completed_on or now) - run.started_on, run_dpus(run.spec),
                            run.spec.get("ExecutionClass") == "FLEX",
                            f"trigger:{run.trigger_name}" if run.trigger_name else users.of(run.access_key))
                for run, name in rows]

    def _crawls(self, session: Session, users: _Users, now: float) -> list[UsageRecord]:
        rows = session.execute(select(CrawlRow, CrawlerRow.name).join(CrawlerRow, CrawlerRow.id == CrawlRow.crawler_id)
                               .where(CrawlerRow.account_id == self.scope.account_id,
                                      CrawlerRow.region == self.scope.region))
        return [UsageRecord(UsageKind.CRAWL, name, self.scope.arn(f"crawler/{name}"), crawl.crawl_id,
                            crawl.start_time, (crawl.end_time or now) - crawl.start_time, CRAWL_DPUS,
                            user=users.of(crawl.access_key))
                for crawl, name in rows]

    def _quality_runs(self, session: Session, now: float) -> list[UsageRecord]:
        rows = session.scalars(select(DataQualityRunRow).where(DataQualityRunRow.account_id == self.scope.account_id,
                                                               DataQualityRunRow.region == self.scope.region))
        return [UsageRecord(UsageKind.DATA_QUALITY_RUN, f"{row.database_name}.{row.table_name}",
                            self.scope.arn(f"dataQualityRun/{row.run_id}"), row.run_id, row.started_on,
                            (row.completed_on or now) - row.started_on,
                            run_dpus({"WorkerType": "G.1X", "NumberOfWorkers": row.spec.get("NumberOfWorkers", 5)}))
                for row in rows]

    def _sessions(self, session: Session, users: _Users, now: float) -> list[UsageRecord]:
        rows = session.scalars(select(GlueSessionRow).where(
            GlueSessionRow.account_id == self.scope.account_id, GlueSessionRow.region == self.scope.region))
        return [UsageRecord(UsageKind.SESSION, row.session_id, self.scope.arn(f"session/{row.session_id}"),
                            row.session_id, row.created_on, (row.completed_on or now) - row.created_on,
                            run_dpus(row.spec if row.spec.get("WorkerType") or row.spec.get("MaxCapacity")
                                     else {"WorkerType": "G.1X", "NumberOfWorkers": 5}),
                            user=users.of(row.access_key))
                for row in rows]

    def _athena_queries(self, session: Session, users: _Users, now: float) -> list[UsageRecord]:
        rows = session.scalars(select(AthenaQueryRow).where(
            AthenaQueryRow.account_id == self.scope.account_id, AthenaQueryRow.region == self.scope.region))
        records = []
        for row in rows:
            billed = row.statement_type == "DML" and row.state in ("SUCCEEDED", "CANCELLED")
            scanned = int((row.statistics or {}).get("DataScannedInBytes", 0)) if billed else None
            records.append(UsageRecord(
                UsageKind.ATHENA_QUERY, row.workgroup,
                f"arn:aws:athena:{self.scope.region}:{self.scope.account_id}:workgroup/{row.workgroup}",
                row.query_id, row.submitted, (row.completed or now) - row.submitted, 0.0,
                user=users.of(row.access_key), scanned_bytes=scanned))
        return records

    def grouped(self, group_by: Sequence[str], since: float | None = None, until: float | None = None,
                kinds: Iterable[UsageKind] | None = None) -> list[UsageGroup]:
        """Usage summed per distinct value of ``group_by`` (most expensive first)."""
        check_group_by(group_by)
        groups: dict[tuple[str, ...], UsageGroup] = {}
        for record in self.records(since, until, kinds):
            keys = {key: _key_of(record, key) for key in group_by}
            group = groups.setdefault(tuple(keys.values()), UsageGroup(keys))
            group.runs += 1
            group.dpu_seconds += record.dpu_seconds
            group.cost += record.cost
        return sorted(groups.values(), key=lambda g: (-g.dpu_seconds, tuple(g.keys.values())))


def _key_of(record: UsageRecord, key: str) -> str:
    if key.startswith("tag:"):
        return record.tags.get(key[4:], UNTAGGED)
    return {"resource": record.resource, "kind": record.kind.value, "user": record.user}[key]


class _Users:
    """Who holds an access key: an IAM user's ARN, an assumed role's session ARN, an account root."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.known: dict[str | None, str] = {}

    def of(self, access_key: str | None) -> str:
        if access_key not in self.known:
            self.known[access_key] = self._find(access_key)
        return self.known[access_key]

    def _find(self, access_key: str | None) -> str:
        if access_key is None:
            return "unknown"
        key = self.session.get(AccessKeyRow, access_key)
        if key is not None:
            if key.user_id is None:
                return f"arn:aws:iam::{key.account_id}:root"
            user = self.session.get(PrincipalRow, key.user_id)
            return f"arn:aws:iam::{user.account_id}:user{user.path}{user.name}" if user else access_key
        found = self.session.get(SessionRow, access_key)
        if found is not None:
            role = self.session.get(PrincipalRow, found.role_id)
            if role is not None:
                return f"arn:aws:sts::{role.account_id}:assumed-role/{role.name}/{found.session_name}"
        return f"access key {access_key}"
