"""Glue security configurations, per account and region: stored, listed and deleted as Glue does.

Checks: a KMS mode (``SSE-KMS``, ``CSE-KMS``) needs the ARN of its key. Nothing is encrypted with a
configuration: glueball keeps it so that jobs, crawlers and dev endpoints that name one are accepted
and infrastructure code round-trips (docs/security-configurations.md says what is not enforced).
"""

from __future__ import annotations

from glueball.api.pagination import page_in_order
from glueball.clock import now
from glueball.errors import InvalidInputException
from glueball.security.models import KMS_MODES, SETTINGS, SecurityConfiguration
from glueball.store.documents import Documents
from glueball.store.engine import Store
from glueball.store.resource_tables import SECURITY_CONFIGURATION
from glueball.store.scoped import Scope

NOUN = "Security configuration"


def check_configuration(configuration: SecurityConfiguration) -> None:
    """Every KMS mode names its key.

    Raises:
        InvalidInputException: naming the member whose key is missing.
    """
    for member, items in configuration.settings.items():
        mode_key, key_key = SETTINGS[member]
        for item in items:
            if item.mode in KMS_MODES and not item.kms_key_arn:
                raise InvalidInputException(f"{member}.{key_key} is required when {mode_key} is {item.mode}")


def security_configurations(store: Store, scope: Scope) -> Documents:
    """The stored security configurations of ``scope``."""
    return Documents(store, scope, SECURITY_CONFIGURATION, NOUN)


class SecurityConfigurationService:
    """Create, read, list and delete security configurations (per account and region)."""

    def __init__(self, store: Store, scope: Scope) -> None:
        self.documents = security_configurations(store, scope)

    def create(self, configuration: SecurityConfiguration) -> SecurityConfiguration:
        """Mirror CreateSecurityConfiguration.

        Raises:
            InvalidInputException: a KMS mode without its key.
            AlreadyExistsException: a configuration of this name exists.
        """
        check_configuration(configuration)
        document = self.documents.create(configuration.name, configuration.to_spec(), now())
        return SecurityConfiguration.from_spec(document.name, document.spec, document.create_time)

    def get(self, name: str) -> SecurityConfiguration:
        """Mirror GetSecurityConfiguration.

        Raises:
            EntityNotFoundException: no configuration of this name.
        """
        document = self.documents.get(name)
        return SecurityConfiguration.from_spec(document.name, document.spec, document.create_time)

    def page(self, max_results: int, token: str | None) -> tuple[list[SecurityConfiguration], str | None]:
        """Mirror GetSecurityConfigurations: in name order, one page at a time."""
        found, following = page_in_order(self.documents.all(), lambda d: d.name, max_results, token)
        return [SecurityConfiguration.from_spec(d.name, d.spec, d.create_time) for d in found], following

    def delete(self, name: str) -> None:
        """Mirror DeleteSecurityConfiguration.

        Raises:
            EntityNotFoundException: no configuration of this name.
        """
        self.documents.delete(name)
