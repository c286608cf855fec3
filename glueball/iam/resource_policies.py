"""Glue's Data Catalog resource policies: PutResourcePolicy, GetResourcePolicy, GetResourcePolicies,
DeleteResourcePolicy. One policy per catalog (an account in a region); it grants other accounts
(or principals of the same account) access to the catalog, its databases and tables.

Writes are conditional as Glue's are: ``PolicyExistsCondition`` (``MUST_EXIST`` / ``NOT_EXIST``) and
``PolicyHashCondition`` (the hash the writer last read); a failed condition answers
``ConditionCheckFailureException`` and changes nothing.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from glueball.clock import now
from glueball.errors import ConditionCheckFailureException, EntityNotFoundException, InvalidInputException
from glueball.iam.policy import Policy, PolicyError, PolicyKind, parse_policy, stored_policy
from glueball.iam.remembered import Remembered
from glueball.iam.service import IamService
from glueball.store.identity_tables import GlueResourcePolicyRow


@dataclass(frozen=True)
class StoredPolicy:
    policy: str
    policy_hash: str
    create_time: float
    update_time: float


def catalog_arn(account_id: str, region: str) -> str:
    return f"arn:aws:glue:{region}:{account_id}:catalog"


def policy_hash(text: str) -> str:
    return base64.b64encode(hashlib.sha256(text.encode()).digest()).decode().rstrip("=")


class ResourcePolicies:
    """The catalog resource policies of every account and region."""

    def __init__(self, iam: IamService) -> None:
        self.iam = iam
        self.store = iam.store
        self._parsed: Remembered[tuple[str, str], tuple[Policy, ...]] = Remembered(lambda: iam.generation)

    def _arn(self, account_id: str, region: str, resource_arn: str | None) -> str:
        arn = catalog_arn(account_id, region)
        if resource_arn not in (None, arn):
            raise InvalidInputException(f"ResourceArn {resource_arn} is not the catalog of account {account_id} in "
                                        f"{region} ({arn}): glueball keeps resource policies on catalogs")
        return arn

    @staticmethod
    def _row(session: Session, account_id: str, region: str, arn: str) -> GlueResourcePolicyRow | None:
        found: GlueResourcePolicyRow | None = session.scalars(select(GlueResourcePolicyRow).where(
            GlueResourcePolicyRow.account_id == account_id, GlueResourcePolicyRow.region == region,
            GlueResourcePolicyRow.resource_arn == arn)).one_or_none()
        return found

    def put(self, account_id: str, region: str, text: str, resource_arn: str | None = None,
            hash_condition: str | None = None, exists_condition: str | None = None) -> str:
        """PutResourcePolicy; returns the new policy's hash."""
        try:
            parse_policy(text, PolicyKind.RESOURCE)
        except PolicyError as exc:
            raise InvalidInputException(f"PolicyInJson is not a valid resource policy: {exc}") from exc
        arn = self._arn(account_id, region, resource_arn)
        with self.iam.writing() as session:
            row = self._row(session, account_id, region, arn)
            if exists_condition == "MUST_EXIST" and row is None:
                raise ConditionCheckFailureException("PolicyExistsCondition MUST_EXIST: there is no policy")
            if exists_condition == "NOT_EXIST" and row is not None:
                raise ConditionCheckFailureException("PolicyExistsCondition NOT_EXIST: a policy already exists")
            if hash_condition is not None and (row is None or row.policy_hash != hash_condition):
                raise ConditionCheckFailureException(f"PolicyHashCondition {hash_condition} does not match the "
                                                     f"current policy's hash")
            digest, stamp = policy_hash(text), now()
            if row is None:
                session.add(GlueResourcePolicyRow(account_id=account_id, region=region, resource_arn=arn, policy=text,
                                                  policy_hash=digest, create_time=stamp, update_time=stamp))
            else:
                row.policy, row.policy_hash, row.update_time = text, digest, stamp
            return digest

    def get(self, account_id: str, region: str, resource_arn: str | None = None) -> StoredPolicy:
        arn = self._arn(account_id, region, resource_arn)
        with self.store.read() as session:
            row = self._row(session, account_id, region, arn)
            if row is None:
                raise EntityNotFoundException("Policy not found")
            return StoredPolicy(row.policy, row.policy_hash, row.create_time, row.update_time)

    def listing(self, account_id: str, region: str) -> list[StoredPolicy]:
        with self.store.read() as session:
            rows = session.scalars(select(GlueResourcePolicyRow).where(
                GlueResourcePolicyRow.account_id == account_id, GlueResourcePolicyRow.region == region)
                .order_by(GlueResourcePolicyRow.resource_arn))
            return [StoredPolicy(r.policy, r.policy_hash, r.create_time, r.update_time) for r in rows]

    def delete(self, account_id: str, region: str, resource_arn: str | None = None,
               hash_condition: str | None = None) -> None:
        arn = self._arn(account_id, region, resource_arn)
        with self.iam.writing() as session:
            row = self._row(session, account_id, region, arn)
            if row is None:
                raise EntityNotFoundException("Policy not found")
            if hash_condition is not None and row.policy_hash != hash_condition:
                raise ConditionCheckFailureException(f"PolicyHashCondition {hash_condition} does not match the "
                                                     f"current policy's hash")
            session.delete(row)

    def evaluated(self, account_id: str, region: str) -> tuple[Policy, ...]:
        """The catalog's resource policy, parsed, for evaluation (cached for a second per process)."""
        return self.evaluated_read(account_id, region)[0]

    def evaluated_read(self, account_id: str, region: str) -> tuple[tuple[Policy, ...], float]:
        """:meth:`evaluated`, and when it was read (``time.monotonic()``; a remembered one may be older)."""
        return self._parsed.entry((account_id, region), lambda: tuple(
            stored_policy(p.policy, PolicyKind.RESOURCE) for p in self.listing(account_id, region)))
