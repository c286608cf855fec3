"""The Data Catalog's encryption settings (GetDataCatalogEncryptionSettings, PutDataCatalogEncryptionSettings).

One setting per catalog (account and region): encryption at rest of the catalog's metadata
(``DISABLED``, ``SSE-KMS``, ``SSE-KMS-WITH-SERVICE-ROLE``) and whether connection passwords are
returned encrypted. glueball stores and answers them as Glue does; it encrypts neither the
metadata nor the passwords (docs/security-configurations.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from glueball.clock import now
from glueball.errors import AlreadyExistsException, InvalidInputException
from glueball.store.documents import Documents
from glueball.store.engine import Store
from glueball.store.resource_tables import CATALOG_ENCRYPTION
from glueball.store.scoped import Scope

_NAME = "catalog"


@dataclass(frozen=True)
class CatalogEncryptionSettings:
    """Glue's DataCatalogEncryptionSettings (the defaults: nothing encrypted)."""

    mode: str = "DISABLED"
    kms_key_id: str | None = None
    service_role: str | None = None
    return_passwords_encrypted: bool = False
    password_kms_key_id: str | None = None

    def to_spec(self) -> dict[str, Any]:
        at_rest: dict[str, Any] = {"CatalogEncryptionMode": self.mode}
        if self.kms_key_id:
            at_rest["SseAwsKmsKeyId"] = self.kms_key_id
        if self.service_role:
            at_rest["CatalogEncryptionServiceRole"] = self.service_role
        passwords: dict[str, Any] = {"ReturnConnectionPasswordEncrypted": self.return_passwords_encrypted}
        if self.password_kms_key_id:
            passwords["AwsKmsKeyId"] = self.password_kms_key_id
        return {"EncryptionAtRest": at_rest, "ConnectionPasswordEncryption": passwords}

    @classmethod
    def from_spec(cls, spec: dict[str, Any]) -> CatalogEncryptionSettings:
        at_rest = spec.get("EncryptionAtRest") or {}
        passwords = spec.get("ConnectionPasswordEncryption") or {}
        return cls(mode=at_rest.get("CatalogEncryptionMode", "DISABLED"), kms_key_id=at_rest.get("SseAwsKmsKeyId"),
                   service_role=at_rest.get("CatalogEncryptionServiceRole"),
                   return_passwords_encrypted=bool(passwords.get("ReturnConnectionPasswordEncrypted")),
                   password_kms_key_id=passwords.get("AwsKmsKeyId"))


def check_settings(settings: CatalogEncryptionSettings) -> None:
    """The members a chosen mode depends on are given.

    Raises:
        InvalidInputException: ``SSE-KMS-WITH-SERVICE-ROLE`` without ``CatalogEncryptionServiceRole``, a service
            role with another mode, or encrypted passwords without ``AwsKmsKeyId``.
    """
    if settings.mode == "SSE-KMS-WITH-SERVICE-ROLE" and not settings.service_role:
        raise InvalidInputException("EncryptionAtRest.CatalogEncryptionServiceRole is required when "
                                    "CatalogEncryptionMode is SSE-KMS-WITH-SERVICE-ROLE")
    if settings.service_role and settings.mode != "SSE-KMS-WITH-SERVICE-ROLE":
        raise InvalidInputException("EncryptionAtRest.CatalogEncryptionServiceRole is only valid when "
                                    f"CatalogEncryptionMode is SSE-KMS-WITH-SERVICE-ROLE, not {settings.mode}")
    if settings.return_passwords_encrypted and not settings.password_kms_key_id:
        raise InvalidInputException("ConnectionPasswordEncryption.AwsKmsKeyId is required when "
                                    "ReturnConnectionPasswordEncrypted is true")


class CatalogEncryptionService:
    """The encryption settings of one catalog."""

    def __init__(self, store: Store, scope: Scope) -> None:
        self.documents = Documents(store, scope, CATALOG_ENCRYPTION, "Data Catalog encryption settings")

    def get(self) -> CatalogEncryptionSettings:
        """Mirror GetDataCatalogEncryptionSettings: the stored settings, or Glue's defaults."""
        document = self.documents.find(_NAME)
        return CatalogEncryptionSettings.from_spec(document.spec) if document else CatalogEncryptionSettings()

    def put(self, settings: CatalogEncryptionSettings) -> None:
        """Mirror PutDataCatalogEncryptionSettings: the given settings replace the stored ones.

        Raises:
            InvalidInputException: as :func:`check_settings`.
        """
        check_settings(settings)
        stamp = now()
        if self.documents.find(_NAME) is None:
            try:
                self.documents.create(_NAME, settings.to_spec(), stamp)
                return
            except AlreadyExistsException:  # another request created it meanwhile: replace theirs
                pass
        self.documents.replace(_NAME, lambda _current: settings.to_spec(), stamp)
