"""Typed models of Glue security configurations.

A security configuration names the encryption Glue applies to what jobs, crawlers and dev endpoints
write: S3 data (``SSE-S3``/``SSE-KMS``), CloudWatch logs and job bookmarks (``CSE-KMS``) and data
quality results. glueball stores them and answers them as Glue does; it encrypts nothing with them
(docs/security-configurations.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

Spec = dict[str, Any]

# EncryptionConfiguration member -> (its mode member, its key member)
SETTINGS = {
    "S3Encryption": ("S3EncryptionMode", "KmsKeyArn"),
    "CloudWatchEncryption": ("CloudWatchEncryptionMode", "KmsKeyArn"),
    "JobBookmarksEncryption": ("JobBookmarksEncryptionMode", "KmsKeyArn"),
    "DataQualityEncryption": ("DataQualityEncryptionMode", "KmsKeyArn"),
}
# the modes that encrypt with a KMS key of the caller's, and so need its ARN
KMS_MODES = ("SSE-KMS", "CSE-KMS")


@dataclass(frozen=True)
class EncryptionSetting:
    """One member's encryption: its mode, and the KMS key a KMS mode uses."""

    mode: str | None
    kms_key_arn: str | None = None


@dataclass
class SecurityConfiguration:
    """A Glue security configuration.

    Attributes:
        settings: EncryptionConfiguration member -> its settings (``S3Encryption`` is a list in Glue's
            model; the others hold one each).
    """

    name: str
    settings: dict[str, list[EncryptionSetting]] = field(default_factory=dict)
    created: float = 0.0

    def to_spec(self) -> Spec:
        """The stored form: Glue's EncryptionConfiguration."""
        spec: Spec = {}
        for member, items in self.settings.items():
            mode_key, key_key = SETTINGS[member]
            wire = [{**({mode_key: item.mode} if item.mode else {}),
                     **({key_key: item.kms_key_arn} if item.kms_key_arn else {})} for item in items]
            spec[member] = wire if member == "S3Encryption" else wire[0]
        return spec

    @classmethod
    def from_spec(cls, name: str, spec: Spec, created: float = 0.0) -> SecurityConfiguration:
        settings: dict[str, list[EncryptionSetting]] = {}
        for member, (mode_key, key_key) in SETTINGS.items():
            value = spec.get(member)
            if value is None:
                continue
            items = value if isinstance(value, list) else [value]
            settings[member] = [EncryptionSetting(item.get(mode_key), item.get(key_key) or None)
                                for item in items]
        return cls(name, settings, created)
