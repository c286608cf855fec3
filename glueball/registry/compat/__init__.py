"""Schema compatibility for the registry: validation, canonical forms and the eight compatibility modes.

One contract over the three data formats Glue's Schema Registry keeps:

- ``AVRO``: Avro's schema resolution (:mod:`.avro_rules`);
- ``JSON``: JSON Schema, with the rules of Confluent's JSON Schema compatibility that Glue follows
  (:mod:`.jsonschema_rules`);
- ``PROTOBUF``: .proto files compiled by protoc, with Confluent's Protobuf rules (:mod:`.protobuf_rules`).

Glue's modes (``Compatibility`` of CreateSchema): ``BACKWARD`` — the new version reads data written
with the latest one; ``FORWARD`` — the latest version reads data written with the new one; ``FULL`` —
both; the ``_ALL`` variants check against every earlier version instead of the latest only; ``NONE``
checks nothing; ``DISABLED`` allows no new version at all.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from glueball.registry.compat.verdicts import InvalidSchemaDefinition, Verdict

__all__ = ["DATA_FORMATS", "MODES", "InvalidSchemaDefinition", "Verdict", "canonical", "check", "validate"]

DATA_FORMATS = ("AVRO", "JSON", "PROTOBUF")
MODES = ("NONE", "DISABLED", "BACKWARD", "BACKWARD_ALL", "FORWARD", "FORWARD_ALL", "FULL", "FULL_ALL")


@dataclass(frozen=True)
class _FormatRules:
    validate: Callable[[str], None]
    canonical: Callable[[str], str]
    incompatibilities: Callable[[str, str], list[str]]  # (writer, reader) -> reasons the reader fails
    # (earlier, new) -> rules on the evolution itself, whatever the direction of the mode
    evolution: Callable[[str, str], list[str]] | None = None


_RULES: dict[str, _FormatRules] = {}


def _load(data_format: str) -> _FormatRules:
    """A format's rules, imported on first use: fastavro, jsonschema and protobuf are a tenth of a server's start,
    and most servers never register a schema."""
    if data_format == "AVRO":
        from glueball.registry.compat import avro_rules

        return _FormatRules(avro_rules.validate, avro_rules.canonical, avro_rules.incompatibilities)
    if data_format == "JSON":
        from glueball.registry.compat import jsonschema_diff, jsonschema_rules

        return _FormatRules(jsonschema_rules.validate, jsonschema_rules.canonical, jsonschema_diff.incompatibilities)
    from glueball.registry.compat import protobuf, protobuf_rules

    return _FormatRules(protobuf.validate, protobuf.canonical, protobuf_rules.incompatibilities,
                        protobuf_rules.reserved_reuse)


def _rules(data_format: str) -> _FormatRules:
    if data_format not in DATA_FORMATS:
        raise ValueError(f"unknown data format {data_format!r}; expected one of {', '.join(DATA_FORMATS)}")
    if data_format not in _RULES:
        _RULES[data_format] = _load(data_format)
    return _RULES[data_format]


def validate(data_format: str, definition: str) -> None:
    """Raise :class:`InvalidSchemaDefinition` (the parser's message) unless ``definition`` is valid.

    Args:
        data_format: ``AVRO``, ``JSON`` or ``PROTOBUF``.
        definition: the schema text as a client sends it (``SchemaDefinition``).
    """
    _rules(data_format).validate(definition)


def canonical(data_format: str, definition: str) -> str:
    """The canonical form of a valid definition: two definitions are "the same" when these are equal.

    Whitespace, key order and declaration order that do not change the schema's meaning are
    normalised away; raises :class:`InvalidSchemaDefinition` for an invalid definition.
    """
    return _rules(data_format).canonical(definition)


def check(data_format: str, mode: str, new: str, previous: Sequence[str]) -> Verdict:
    """Whether ``new`` may follow ``previous`` (earlier versions' definitions, oldest first) under ``mode``.

    ``new`` is validated first (:class:`InvalidSchemaDefinition` when it does not parse). With no
    earlier version every mode accepts (a schema's first version). Each reason names the direction
    (BACKWARD: the new definition reading the earlier one's data; FORWARD: the reverse), the earlier
    definition by its 1-based position in ``previous``, and the rule broken.
    """
    rules = _rules(data_format)
    if mode not in MODES:
        raise ValueError(f"unknown compatibility mode {mode!r}; expected one of {', '.join(MODES)}")
    rules.validate(new)
    if mode == "NONE" or not previous:
        return Verdict(True, ())
    if mode == "DISABLED":
        return Verdict(False, ("DISABLED: the schema's compatibility is DISABLED, so no new version may be added",))
    count = len(previous)
    against = list(enumerate(previous, 1)) if mode.endswith("_ALL") else [(count, previous[-1])]
    incompatibilities = rules.incompatibilities
    reasons: list[str] = []
    for position, old in against:
        if rules.evolution is not None:
            reasons.extend(f"EVOLUTION (new against earlier definition {position} of {count}): {reason}"
                           for reason in rules.evolution(old, new))
        if mode.startswith(("BACKWARD", "FULL")):
            reasons.extend(f"BACKWARD (new reads data of earlier definition {position} of {count}): {reason}"
                           for reason in incompatibilities(old, new))
        if mode.startswith(("FORWARD", "FULL")):
            reasons.extend(f"FORWARD (earlier definition {position} of {count} reads data of new): {reason}"
                           for reason in incompatibilities(new, old))
    return Verdict(not reasons, tuple(reasons))
