"""The identity area: the IAM and STS operations it serves (query protocol) and what they need."""

from __future__ import annotations

from dataclasses import dataclass

from glueball.api.operations import Operations
from glueball.iam.credentials import Identities
from glueball.iam.policies import PolicyService
from glueball.iam.resource_policies import ResourcePolicies
from glueball.iam.service import IamService

IAM_OPERATIONS = Operations("iam")
STS_OPERATIONS = Operations("sts")
GLUE_POLICY_OPERATIONS = Operations("glue")  # the Data Catalog's resource policies


@dataclass(frozen=True, eq=False)
class IdentityNeeds:
    """What IAM and STS handlers are given: the identity services over the store."""

    iam: IamService
    policies: PolicyService
    identities: Identities
    resource_policies: ResourcePolicies
