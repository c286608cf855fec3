"""Request validation driven by a service model (every protocol validates with it).

Constraint violations are reported the way AWS's JSON services report them::

    2 validation errors detected: Value '' at 'databaseInput.name' failed to
    satisfy constraint: Member must have length greater than or equal to 1; ...

Wrong JSON types are a ``SerializationException``; members the model does not
know are rejected rather than silently ignored.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
from typing import Any

from botocore.model import ListShape, MapShape, Shape, StructureShape

from glueball.api.bodies import SpooledBody
from glueball.edge.model import compiled_pattern
from glueball.errors import SerializationException, ValidationException

_MAX_REPORTED = 10
# the ranges of botocore's integer (32-bit) and long (64-bit) shapes, as AWS's services enforce them
_INTEGER_RANGE = {"integer": (-(2**31), 2**31 - 1), "long": (-(2**63), 2**63 - 1)}
# timestamps a client can mean: years 1 to 9999, as epoch seconds
_EPOCH_RANGE = (-62135596800.0, 253402300799.0)


def _lower_first(name: str) -> str:
    return name[:1].lower() + name[1:]


def _render(value: Any) -> str:
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= 200 else text[:197] + "..."


class _Walker:
    def __init__(self, open_enums: frozenset[str] = frozenset()) -> None:
        self.violations: list[str] = []
        self.open_enums = open_enums

    def fail(self, path: str, value: Any, constraint: str) -> None:
        shown = "null" if value is None else f"'{_render(value)}'"
        self.violations.append(
            f"Value {shown} at '{path}' failed to satisfy constraint: Member must {constraint}"
        )

    def report(self) -> None:
        """Raise the violations found, if any, as one ValidationException."""
        if self.violations:
            count = len(self.violations)
            noun = "error" if count == 1 else "errors"
            shown = "; ".join(self.violations[:_MAX_REPORTED])
            raise ValidationException(f"{count} validation {noun} detected: {shown}")

    def visit(self, shape: Shape, value: Any, path: str) -> None:
        kind = shape.type_name
        if kind == "structure":
            if getattr(shape, "is_document_type", False):
                return  # a document: any JSON value
            self.structure(shape, value, path)
        elif kind == "list":
            self.sequence(shape, value, path)
        elif kind == "map":
            self.mapping(shape, value, path)
        elif kind == "string":
            self.string(shape, value, path)
        elif kind in ("integer", "long"):
            if isinstance(value, bool) or not isinstance(value, int):
                if isinstance(value, float) and value.is_integer():
                    value = int(value)
                else:
                    raise SerializationException(f"Expected an integer at '{path}', got {_render(value)}")
            self.bounds(shape, value, path, "value")
            low, high = _INTEGER_RANGE[kind]
            if not low <= value <= high:
                self.fail(path, value, f"be an {kind} from {low} to {high}")
        elif kind in ("double", "float"):
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise SerializationException(f"Expected a number at '{path}', got {_render(value)}")
            self.bounds(shape, value, path, "value")
        elif kind == "boolean":
            if not isinstance(value, bool):
                raise SerializationException(f"Expected a boolean at '{path}', got {_render(value)}")
        elif kind == "timestamp":
            self.timestamp(value, path)
        elif kind == "blob":
            if isinstance(value, bytes | SpooledBody):  # a REST payload, read raw from the body (or spooled)
                return
            if not isinstance(value, str):
                raise SerializationException(f"Expected base64 text at '{path}', got {_render(value)}")
            try:
                base64.b64decode(value, validate=True)
            except (binascii.Error, ValueError) as exc:
                raise SerializationException(f"Invalid base64 at '{path}'") from exc

    def structure(self, shape: StructureShape, value: Any, path: str) -> None:
        if not isinstance(value, dict):
            raise SerializationException(f"Expected an object at '{path or 'request'}', got {_render(value)}")
        members = shape.members
        for name in value:
            if name not in members:
                name = name.encode("utf-8", "backslashreplace").decode("utf-8")
                where = f" at '{path}'" if path else ""
                raise ValidationException(f"Unknown parameter '{name}'{where}; expected one of: "
                                          + ", ".join(sorted(members)))
        for name in shape.required_members:
            if value.get(name) is None:
                self.fail(self.join(path, name), None, "not be null")
        for name in [n for n, v in value.items() if v is None]:
            del value[name]  # an explicit null is an absent member, as AWS's services read it
        for name, member_value in value.items():
            self.visit(members[name], member_value, self.join(path, name))

    def sequence(self, shape: ListShape, value: Any, path: str) -> None:
        if not isinstance(value, list):
            raise SerializationException(f"Expected a list at '{path}', got {_render(value)}")
        self.bounds(shape, len(value), path, "length", shown=value)
        for index, item in enumerate(value, start=1):
            if item is None:
                self.fail(f"{path}.{index}.member", None, "not be null")
            else:
                self.visit(shape.member, item, f"{path}.{index}.member")

    def mapping(self, shape: MapShape, value: Any, path: str) -> None:
        if not isinstance(value, dict):
            raise SerializationException(f"Expected a map at '{path}', got {_render(value)}")
        self.bounds(shape, len(value), path, "length", shown=value)
        for key in [k for k, v in value.items() if v is None]:
            del value[key]
        for key, item in value.items():
            self.string(shape.key, key, f"{path}.key")
            if _encodable(key):
                self.visit(shape.value, item, f"{path}.{key}")

    def string(self, shape: Shape, value: Any, path: str) -> None:
        if not isinstance(value, str):
            raise SerializationException(f"Expected a string at '{path}', got {_render(value)}")
        if not _encodable(value):
            self.fail(path, value.encode("utf-8", "backslashreplace").decode("ascii", "backslashreplace"),
                      "be valid Unicode (a lone surrogate is not a character)")
            return
        self.bounds(shape, len(value), path, "length", shown=value)
        enum = shape.enum
        if enum and value not in enum and shape.name not in self.open_enums:
            self.fail(path, value, f"satisfy enum value set: [{', '.join(enum)}]")
        pattern = shape.metadata.get("pattern")
        if pattern:
            regex = compiled_pattern(pattern)
            if regex is not None and regex.fullmatch(value) is None:
                self.fail(path, value, f"satisfy regular expression pattern: {pattern}")

    def bounds(self, shape: Shape, measure: float, path: str, what: str, shown: Any = None) -> None:
        low, high = shape.metadata.get("min"), shape.metadata.get("max")
        shown = measure if shown is None else shown
        if low is not None and measure < low:
            self.fail(path, shown, f"have {what} greater than or equal to {low}")
        if high is not None and measure > high:
            self.fail(path, shown, f"have {what} less than or equal to {high}")

    def timestamp(self, value: Any, path: str) -> None:
        if isinstance(value, bool):
            raise SerializationException(f"Expected a timestamp at '{path}', got {_render(value)}")
        if isinstance(value, int | float):
            if not _EPOCH_RANGE[0] <= value <= _EPOCH_RANGE[1]:
                self.fail(path, value, "be a time between the years 1 and 9999")
            return
        if isinstance(value, str):
            try:
                dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
                return
            except ValueError:
                pass
        raise SerializationException(f"Expected a timestamp at '{path}', got {_render(value)}")

    @staticmethod
    def join(path: str, name: str) -> str:
        member = _lower_first(name)
        return f"{path}.{member}" if path else member


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def validate(shape: StructureShape | None, params: Any, open_enums: frozenset[str] = frozenset()) -> None:
    """Check ``params`` against an operation's input shape.

    ``open_enums`` names string shapes whose enum the service itself does not enforce (values outside
    it are accepted, as the service accepts them).

    Raises:
        SerializationException: a value has the wrong JSON type.
        ValidationException: constraints (required, length, range, enum, pattern)
            are violated, or a member is unknown to the model.
    """
    if shape is None:
        if params not in (None, {}):
            raise ValidationException("This operation takes no parameters")
        return
    walker = _Walker(open_enums)
    walker.structure(shape, params, "")
    walker.report()


def check_storable(shape: Shape | None, params: Any) -> None:
    """What every request must pass even where the handlers check their input themselves (glueball's own
    ``Glueball.*`` operations): no string anywhere (a member, a map key, inside a document) holds a lone
    surrogate, and no ``integer`` or ``long`` member is outside its 32- or 64-bit range. These are values no
    store can keep, which a handler's own checks need not foresee.

    Raises:
        ValidationException: naming each such value, in the form :func:`validate` uses.
    """
    walker = _Walker()
    _storable(walker, shape, params, "")
    walker.report()


def _storable(walker: _Walker, shape: Shape | None, value: Any, path: str) -> None:
    kind = shape.type_name if shape is not None and not getattr(shape, "is_document_type", False) else None
    if isinstance(value, str):
        if not _encodable(value):
            walker.fail(path, value.encode("utf-8", "backslashreplace").decode("ascii", "backslashreplace"),
                        "be valid Unicode (a lone surrogate is not a character)")
    elif isinstance(value, int) and not isinstance(value, bool):
        if kind in _INTEGER_RANGE and not _INTEGER_RANGE[kind][0] <= value <= _INTEGER_RANGE[kind][1]:
            low, high = _INTEGER_RANGE[kind]
            walker.fail(path, value, f"be an {kind} from {low} to {high}")
    elif isinstance(value, list):
        member = shape.member if isinstance(shape, ListShape) and kind else None
        for index, item in enumerate(value, start=1):
            _storable(walker, member, item, f"{path}.{index}.member")
    elif isinstance(value, dict):
        for key, item in value.items():
            if not _encodable(key):
                _storable(walker, None, key, f"{path}.key" if path else "key")
                continue
            if isinstance(shape, StructureShape) and kind:
                _storable(walker, shape.members.get(key), item, walker.join(path, key))
            else:
                _storable(walker, shape.value if isinstance(shape, MapShape) and kind else None, item,
                          f"{path}.{key}" if path else key)
