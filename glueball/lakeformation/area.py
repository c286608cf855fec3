"""The Lake Formation area: the permission operations of the ``lakeformation`` service (REST-JSON).

glueball governs the catalog with IAM alone, as an AWS account that never turned Lake Formation on
(every database and table keeps ``IAM_ALLOWED_PRINCIPALS``). Tools that grant Lake Formation
permissions as a matter of course (dbt-glue grants on every database it creates) get each grant
refused as an entry of ``Failures``, the way such an account refuses a caller who is no data lake
administrator; nothing is stored.
"""

from __future__ import annotations

from dataclasses import dataclass

from glueball.api.operations import Operations

OPERATIONS = Operations("lakeformation")


@dataclass(frozen=True)
class LakeFormationNeeds:
    """The permission handlers need nothing: they store nothing."""
