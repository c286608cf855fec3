"""Wire handlers of Glue security configurations."""

from __future__ import annotations

from typing import Any

from glueball.api.identity import Caller
from glueball.api.operations import Request, Response
from glueball.api.pagination import page_size, paged
from glueball.security.area import OPERATIONS, SecurityNeeds
from glueball.security.models import SecurityConfiguration
from glueball.security.service import SecurityConfigurationService
from glueball.store.scoped import Scope


def configurations(needs: SecurityNeeds, caller: Caller) -> SecurityConfigurationService:
    return SecurityConfigurationService(needs.store, Scope(caller.account_id, caller.region))


def configuration_wire(configuration: SecurityConfiguration) -> dict[str, Any]:
    return {"Name": configuration.name, "CreatedTimeStamp": configuration.created,
            "EncryptionConfiguration": configuration.to_spec()}


@OPERATIONS.operation("CreateSecurityConfiguration")
def create_security_configuration(needs: SecurityNeeds, caller: Caller, request: Request) -> Response:
    configuration = SecurityConfiguration.from_spec(request["Name"], request["EncryptionConfiguration"])
    created = configurations(needs, caller).create(configuration)
    return {"Name": created.name, "CreatedTimestamp": created.created}


@OPERATIONS.operation("GetSecurityConfiguration")
def get_security_configuration(needs: SecurityNeeds, caller: Caller, request: Request) -> Response:
    return {"SecurityConfiguration": configuration_wire(configurations(needs, caller).get(request["Name"]))}


@OPERATIONS.operation("GetSecurityConfigurations")
def get_security_configurations(needs: SecurityNeeds, caller: Caller, request: Request) -> Response:
    found, token = configurations(needs, caller).page(page_size(request.get("MaxResults")), request.get("NextToken"))
    return paged("SecurityConfigurations", [configuration_wire(c) for c in found], token)


@OPERATIONS.operation("DeleteSecurityConfiguration")
def delete_security_configuration(needs: SecurityNeeds, caller: Caller, request: Request) -> Response:
    configurations(needs, caller).delete(request["Name"])
    return {}
