"""Model-driven validation, without a server."""

from __future__ import annotations

import pytest

from glueball.edge.model import compiled_pattern, error_codes, service_model
from glueball.edge.validation import validate
from glueball.errors import ALL_ERRORS, PROTOCOL_CODES, SerializationException, ValidationException


def shape(operation: str):  # type: ignore[no-untyped-def]
    return service_model().operation_model(operation).input_shape


def test_every_error_class_is_a_code_of_the_model_or_protocol() -> None:
    for error in ALL_ERRORS:
        assert error.code in error_codes() or error.code in PROTOCOL_CODES, error.code


def test_surrogate_pair_patterns_accept_supplementary_characters() -> None:
    regex = compiled_pattern(service_model().shape_for("NameString").metadata["pattern"])
    assert regex is not None
    assert regex.fullmatch("caf\u00e9 \U0001F600 db")
    assert regex.fullmatch("bad\x00name") is None


def test_collects_every_violation_with_paths() -> None:
    with pytest.raises(ValidationException) as excinfo:
        validate(shape("CreateTable"), {
            "DatabaseName": "",
            "TableInput": {"Name": "t", "StorageDescriptor": {"Columns": [{"Name": "a"}, {"Type": "int"}]}},
        })
    message = excinfo.value.message
    assert message.startswith("2 validation errors detected: ")
    assert "Value '' at 'databaseName' failed to satisfy constraint: Member must have length greater than or " \
           "equal to 1" in message
    assert "Value null at 'tableInput.storageDescriptor.columns.2.member.name' failed to satisfy constraint: " \
           "Member must not be null" in message


def test_wrong_json_types_are_serialization_errors() -> None:
    with pytest.raises(SerializationException):
        validate(shape("GetDatabases"), {"MaxResults": "ten"})
    with pytest.raises(SerializationException):
        validate(shape("CreateDatabase"), {"DatabaseInput": {"Name": "x", "Parameters": ["a"]}})
    with pytest.raises(SerializationException):
        validate(shape("GetDatabases"), {"MaxResults": True})
    validate(shape("GetDatabases"), {"MaxResults": 10.0})


def test_map_value_and_timestamp_checks() -> None:
    with pytest.raises(ValidationException) as excinfo:
        validate(shape("CreateDatabase"), {"DatabaseInput": {"Name": "x", "Parameters": {"k": "v" * 600000}}})
    assert "at 'databaseInput.parameters.k'" in excinfo.value.message
    validate(shape("CreateTable"), {"DatabaseName": "d", "TableInput": {"Name": "t",
                                    "LastAccessTime": "2026-01-01T00:00:00Z"}})
    with pytest.raises(SerializationException):
        validate(shape("CreateTable"), {"DatabaseName": "d", "TableInput": {"Name": "t", "LastAccessTime": "soon"}})
