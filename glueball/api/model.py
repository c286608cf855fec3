"""Access to botocore's Glue service model, the source of truth for wire shapes."""

from __future__ import annotations

import re
from functools import cache

import botocore.loaders
import botocore.model

SERVICE = "glue"
TARGET_PREFIX = "AWSGlue"


@cache
def service_model() -> botocore.model.ServiceModel:
    loader = botocore.loaders.Loader()
    return botocore.model.ServiceModel(loader.load_service_model(SERVICE, "service-2"), SERVICE)


@cache
def operation_names() -> frozenset[str]:
    return frozenset(service_model().operation_names)


@cache
def error_codes() -> frozenset[str]:
    return frozenset(shape.name for shape in service_model().error_shapes)


_SURROGATE_PAIR = re.compile(r"\\u(D[89AB][0-9A-F]{2})\\u(D[C-F][0-9A-F]{2})", re.IGNORECASE)


def _java_pattern_to_python(pattern: str) -> str:
    """Translate the Java regex dialect of the model into Python's.

    The model spells supplementary characters as UTF-16 surrogate pairs
    (``\\uD800\\uDC00-\\uDBFF\\uDFFF``); Python strings hold code points.
    """

    def combine(match: re.Match[str]) -> str:
        high, low = int(match.group(1), 16), int(match.group(2), 16)
        code_point = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
        return f"\\U{code_point:08X}"

    return _SURROGATE_PAIR.sub(combine, pattern)


@cache
def compiled_pattern(pattern: str) -> re.Pattern[str] | None:
    """The model's pattern compiled for full matches, or None if Python cannot express it."""
    try:
        return re.compile(_java_pattern_to_python(pattern), re.DOTALL)
    except re.error:
        return None
