"""botocore's service models, the source of truth for every service's wire shapes.

``glue`` (AWS JSON 1.1), ``sts`` and ``iam`` (query), ``s3`` (REST-XML), ``databrew`` (REST-JSON)
come with botocore. glueball's own operations (``Glueball.*``, called by the drivers the
server launches) are described by a model of the same format shipped in ``glueball/api/data``,
so one loader and boto3 itself serve them too.
"""

from __future__ import annotations

import re
from functools import cache

import botocore.loaders
import botocore.model

from glueball.api import MODELS_PATH

SERVICE = "glue"
TARGET_PREFIX = "AWSGlue"


@cache
def loader() -> botocore.loaders.Loader:
    """botocore's loader, also searching glueball's own models (``glueball/api/data``)."""
    found = botocore.loaders.Loader()
    found.search_paths.append(str(MODELS_PATH))
    return found


@cache
def service_model(name: str = SERVICE) -> botocore.model.ServiceModel:
    """The model of service ``name`` (botocore's ``service-2`` of its newest API version)."""
    return botocore.model.ServiceModel(loader().load_service_model(name, "service-2"), name)


@cache
def operation_names(name: str = SERVICE) -> frozenset[str]:
    return frozenset(service_model(name).operation_names)


@cache
def error_codes(name: str = SERVICE) -> frozenset[str]:
    return frozenset(shape.error_code or shape.name for shape in service_model(name).error_shapes)


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
