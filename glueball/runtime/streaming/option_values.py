"""Reading Glue's streaming options: any case (as Spark hands data source options over), checked values, and
options written back as Spark data source options."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, TypeVar

from glueball.runtime.errors import GlueRuntimeError

_D = TypeVar("_D", int, None)


def lower_keys(options: Mapping[str, Any]) -> dict[str, Any]:
    return {str(k).lower(): v for k, v in options.items()}


def as_bool(value: Any, default: bool = False) -> bool:
    if value is None or value == "":
        return default
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("true", "1", "yes"):
        return True
    if text in ("false", "0", "no"):
        return False
    raise GlueRuntimeError(f"expected true or false, got {value!r}")


def bool_option(options: Mapping[str, Any], name: str, default: bool, what: str) -> bool:
    """The boolean option ``name`` of lower-cased ``options``.

    Raises:
        GlueRuntimeError: neither true nor false, naming ``what`` ("Kafka option"), the option and its value.
    """
    try:
        return as_bool(options.get(name.lower()), default)
    except GlueRuntimeError:
        raise GlueRuntimeError(f"{what} {name} must be true or false, got {options.get(name.lower())!r}") from None


def int_option(options: Mapping[str, Any], name: str, default: _D, what: str, minimum: int = 0,
               maximum: int | None = None) -> int | _D:
    """The integer option ``name`` of lower-cased ``options`` (``default`` when absent), within bounds.

    Raises:
        GlueRuntimeError: not an integer, or out of bounds — naming ``what`` ("Kafka option"), the option
            and its value.
    """
    value = options.get(name.lower())
    if value is None or value == "":
        return default
    try:
        number = int(str(value).strip())
    except ValueError:
        raise GlueRuntimeError(f"{what} {name} must be an integer, got {value!r}") from None
    if number < minimum or (maximum is not None and number > maximum):
        bounds = f"between {minimum} and {maximum}" if maximum is not None else f"at least {minimum}"
        raise GlueRuntimeError(f"{what} {name} must be {bounds}, got {number}")
    return number


def spark_options(options: Mapping[str, Any]) -> dict[str, str]:
    """``options`` as Spark data source options: strings, JSON for objects."""
    out: dict[str, str] = {}
    for key, value in options.items():
        if value is None:
            continue
        if isinstance(value, bool):
            out[str(key)] = "true" if value else "false"
        elif isinstance(value, (dict, list)):
            out[str(key)] = json.dumps(value)
        else:
            out[str(key)] = str(value)
    return out
