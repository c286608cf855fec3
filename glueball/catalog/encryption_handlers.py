"""Wire handlers of the Data Catalog's encryption settings."""

from __future__ import annotations

from glueball.api.identity import Caller
from glueball.api.operations import Request, Response
from glueball.catalog.area import OPERATIONS, CatalogNeeds
from glueball.catalog.encryption import CatalogEncryptionService, CatalogEncryptionSettings
from glueball.store.scoped import Scope


def _settings(needs: CatalogNeeds, caller: Caller) -> CatalogEncryptionService:
    return CatalogEncryptionService(needs.store, Scope(caller.account_id, caller.region))


@OPERATIONS.operation("GetDataCatalogEncryptionSettings")
def get_data_catalog_encryption_settings(needs: CatalogNeeds, caller: Caller, request: Request) -> Response:
    return {"DataCatalogEncryptionSettings": _settings(needs, caller).get().to_spec()}


@OPERATIONS.operation("PutDataCatalogEncryptionSettings")
def put_data_catalog_encryption_settings(needs: CatalogNeeds, caller: Caller, request: Request) -> Response:
    settings = CatalogEncryptionSettings.from_spec(request["DataCatalogEncryptionSettings"])
    _settings(needs, caller).put(settings)
    return {}
