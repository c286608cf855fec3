"""The entity types glueball's PII detection recognises, and their regular expressions (Java syntax).

Kept apart from the Spark code (:mod:`glueball.runtime.visual.pii`) so the server can check a
``PIIDetection`` node without loading PySpark.
"""

from __future__ import annotations

from collections.abc import Sequence

ENTITY_PATTERNS = {
    "EMAIL": r"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}",
    "PHONE_NUMBER": r"(\+1[ .-]?)?\(?[2-9][0-9]{2}\)?[ .-][0-9]{3}[ .-][0-9]{4}",
    "USA_SSN": r"\b(?!000|666|9[0-9]{2})[0-9]{3}-(?!00)[0-9]{2}-(?!0000)[0-9]{4}\b",
    "USA_ITIN": r"\b9[0-9]{2}-(5[0-9]|6[0-5]|7[0-9]|8[0-8]|9[0-2]|9[4-9])-[0-9]{4}\b",
    "CREDIT_CARD": r"\b(?:4[0-9]{3}|5[1-5][0-9]{2}|3[47][0-9]{2}|6011)(?:[ -]?[0-9]{4}){2}[ -]?[0-9]{1,4}\b",
    "IP_ADDRESS": r"\b(?:(?:25[0-5]|2[0-4][0-9]|1?[0-9]?[0-9])\.){3}(?:25[0-5]|2[0-4][0-9]|1?[0-9]?[0-9])\b",
    "MAC_ADDRESS": r"\b[0-9A-Fa-f]{2}(?:[:-][0-9A-Fa-f]{2}){5}\b",
    "DATE": r"\b(?:[0-9]{4}-[01][0-9]-[0-3][0-9]|[01]?[0-9]/[0-3]?[0-9]/[0-9]{4})\b",
}
ALIASES = {"USA_SNN": "USA_SSN"}  # the spelling of Glue's API documentation
PII_TYPES = ("RowAudit", "RowMasking", "RowHashing", "ColumnMasking", "ColumnHashing")


class PiiDetectionError(ValueError):
    """A PIIDetection setting glueball cannot honour."""


def entity_patterns(entity_types: Sequence[str]) -> dict[str, str]:
    """The patterns of ``entity_types``.

    Raises:
        PiiDetectionError: an entity type glueball has no pattern for.
    """
    found = {}
    for entity in entity_types:
        name = ALIASES.get(entity, entity)
        if name not in ENTITY_PATTERNS:
            raise PiiDetectionError(f"PIIDetection: entity type {entity} is not one glueball detects "
                                    f"({', '.join(sorted(ENTITY_PATTERNS))})")
        found[name] = ENTITY_PATTERNS[name]
    if not found:
        raise PiiDetectionError("PIIDetection: EntityTypesToDetect is empty")
    return found
