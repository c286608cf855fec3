"""CloudWatch Logs' filter pattern syntax, compiled to a predicate on an event's message.

What FilterLogEvents' ``filterPattern`` accepts, as AWS documents it:

- **terms**: ``ERROR`` (the message contains it; case-sensitive), several terms all present
  (``ERROR Exception``), quoted phrases (``"Failed to connect"``; a term with characters other than
  letters, digits and ``_`` must be quoted), ``?`` terms of which one must be present (``?ERROR ?WARN``),
  ``-`` terms that must be absent (``ERROR -Exiting``);
- **JSON**: ``{ $.level = "ERROR" }`` on messages that are JSON: selectors ``$.a.b`` and ``$.list[0]``;
  strings with ``=``/``!=`` (``*`` is a wildcard); numbers with ``= != < > <= >=``; ``IS TRUE``,
  ``IS FALSE``, ``IS NULL``, ``NOT EXISTS``; ``&&`` binding before ``||``; parentheses;
- **space-delimited**: ``[ip, user, ..., status = 4*, bytes > 1000]`` on messages split at spaces
  (a ``"quoted"`` or ``[bracketed]`` field is one field): named fields, each with an optional condition
  (several joined by ``&&``/``||``), ``...`` for any number of fields;
- **regular expressions**: ``%ERROR [0-9]+%``.

A pattern that does not parse raises :class:`~glueball.logs.errors.InvalidParameterException` naming
what is wrong.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from glueball.logs.errors import InvalidParameterException

Predicate = Callable[[str], bool]
_BARE_TERM = re.compile(r"[A-Za-z0-9_]+")
_NUMBER = re.compile(r"-?\d+(\.\d+)?([eE][-+]?\d+)?$")
_COMPARISONS = ("!=", "<=", ">=", "=", "<", ">")
_MISSING = object()


def compile_pattern(pattern: str | None) -> Predicate:
    """The predicate of ``pattern`` (an empty or absent pattern matches every event).

    Raises:
        InvalidParameterException: the pattern does not parse.
    """
    text = (pattern or "").strip()
    if not text:
        return lambda message: True
    try:
        if text.startswith("{"):
            return _json_pattern(text)
        if text.startswith("["):
            return _delimited_pattern(text)
        if len(text) >= 2 and text.startswith("%") and text.endswith("%"):
            return _regex_pattern(text[1:-1])
        return _term_pattern(text)
    except _Refused as refused:
        raise InvalidParameterException(f"Invalid filter pattern {pattern!r}: {refused}") from None


class _Refused(Exception):
    """Why a pattern does not parse."""


# -------------------------------------------------------------------------------------------- terms


def _term_pattern(text: str) -> Predicate:
    required: list[str] = []
    optional: list[str] = []
    excluded: list[str] = []
    position = 0
    while position < len(text):
        if text[position].isspace():
            position += 1
            continue
        kind = text[position] if text[position] in "?-" else ""
        position += len(kind)
        term, position = _term(text, position)
        {"": required, "?": optional, "-": excluded}[kind].append(term)

    def matches(message: str) -> bool:
        return (all(term in message for term in required)
                and (not optional or any(term in message for term in optional))
                and not any(term in message for term in excluded))

    return matches


def _term(text: str, position: int) -> tuple[str, int]:
    if position < len(text) and text[position] == '"':
        return _quoted(text, position)
    end = position
    while end < len(text) and not text[end].isspace():
        end += 1
    term = text[position:end]
    if not term:
        raise _Refused(f"a term is missing at position {position}")
    if not _BARE_TERM.fullmatch(term):
        raise _Refused(f"invalid character(s) in term {term!r}: a term with characters other than letters, "
                       "digits and _ must be in double quotes")
    return term, end


def _quoted(text: str, position: int) -> tuple[str, int]:
    """The string quoted at ``position`` (``\\"`` and ``\\\\`` escaped) and the position after it."""
    out: list[str] = []
    index = position + 1
    while index < len(text):
        char = text[index]
        if char == "\\" and index + 1 < len(text):
            out.append(text[index + 1])
            index += 2
            continue
        if char == '"':
            return "".join(out), index + 1
        out.append(char)
        index += 1
    raise _Refused(f"the quote opened at position {position} is not closed")


def _regex_pattern(body: str) -> Predicate:
    if not body:
        raise _Refused("the regular expression is empty")
    try:
        compiled = re.compile(body)
    except re.error as exc:
        raise _Refused(f"the regular expression does not compile: {exc}") from exc
    return lambda message: compiled.search(message) is not None


# ------------------------------------------------------------------------------- value comparisons


def _value(text: str) -> tuple[str, bool]:
    """A comparison's value as written, and whether it was quoted."""
    text = text.strip()
    if not text:
        raise _Refused("a comparison has no value")
    if text.startswith('"'):
        value, end = _quoted(text, 0)
        if text[end:].strip():
            raise _Refused(f"unexpected {text[end:].strip()!r} after {text[:end]}")
        return value, True
    return text, False


def _comparison(operator: str, raw: str) -> Callable[[Any], bool]:
    """A test of one value (a JSON value, or a field's text) against ``operator raw``."""
    value, quoted = _value(raw)
    if not quoted and _NUMBER.match(value):
        number = float(value)

        def numeric(found: Any) -> bool:
            try:
                got = float(found) if not isinstance(found, bool) else None
            except (TypeError, ValueError):
                got = None
            if got is None:
                return operator == "!=" and found is not _MISSING
            return {"=": got == number, "!=": got != number, "<": got < number, ">": got > number,
                    "<=": got <= number, ">=": got >= number}[operator]

        return numeric
    if operator not in ("=", "!="):
        raise _Refused(f"{operator} compares numbers, not {raw.strip()!r}")
    wildcard = re.compile(".*".join(re.escape(part) for part in value.split("*")), re.DOTALL) if "*" in value \
        else None

    def textual(found: Any) -> bool:
        if found is _MISSING or found is None or isinstance(found, dict | list):
            return False
        text = json.dumps(found) if isinstance(found, bool) else str(found)
        equal = wildcard.fullmatch(text) is not None if wildcard else text == value
        return equal if operator == "=" else not equal

    return textual


# --------------------------------------------------------------------------------------- JSON


def _json_pattern(text: str) -> Predicate:
    if not text.endswith("}"):
        raise _Refused("a JSON pattern ends with }")
    parser = _Conditions(text[1:-1], _json_condition)
    test = parser.parse()

    def matches(message: str) -> bool:
        try:
            document = json.loads(message)
        except ValueError:
            return False
        return isinstance(document, dict | list) and test(document)

    return matches


_SELECTOR_PART = re.compile(r"\.([A-Za-z0-9_\-@$:]+)|\[(\d+)\]")


def _selector(text: str) -> Callable[[Any], Any]:
    if not text.startswith("$"):
        raise _Refused(f"a JSON selector starts with $, not {text!r}")
    steps: list[str | int] = []
    position = 1
    while position < len(text):
        match = _SELECTOR_PART.match(text, position)
        if match is None:
            raise _Refused(f"the JSON selector {text!r} is not $.field or $.field[index]")
        steps.append(match.group(1) if match.group(1) is not None else int(match.group(2)))
        position = match.end()
    if not steps:
        raise _Refused("the JSON selector $ selects no field")

    def select(document: Any) -> Any:
        for step in steps:
            if isinstance(step, int) and isinstance(document, list) and step < len(document):
                document = document[step]
            elif isinstance(step, str) and isinstance(document, dict) and step in document:
                document = document[step]
            else:
                return _MISSING
        return document

    return select


def _json_condition(text: str) -> Callable[[Any], bool]:
    text = text.strip()
    unary = re.match(r"(\$\S*)\s+(IS\s+TRUE|IS\s+FALSE|IS\s+NULL|NOT\s+EXISTS)$", text)
    if unary:
        select, test = _selector(unary.group(1)), " ".join(unary.group(2).split())
        checks: dict[str, Callable[[Any], bool]] = {
            "IS TRUE": lambda found: found is True, "IS FALSE": lambda found: found is False,
            "IS NULL": lambda found: found is None, "NOT EXISTS": lambda found: found is _MISSING}
        check = checks[test]
        return lambda document: check(select(document))
    match = re.match(r"(\$[^\s=!<>]*)\s*(!=|<=|>=|=|<|>)(.*)$", text, re.DOTALL)
    if match is None:
        raise _Refused(f"{text!r} is not a JSON condition ($.field = value, $.field IS NULL, ...)")
    select = _selector(match.group(1))
    compare = _comparison(match.group(2), match.group(3))
    return lambda document: compare(select(document))


class _Conditions:
    """``a && b || (c && d)``: conditions joined by ``&&`` (first) and ``||``, with parentheses."""

    def __init__(self, text: str, leaf: Callable[[str], Callable[[Any], bool]]) -> None:
        self.text = text
        self.position = 0
        self.leaf = leaf

    def parse(self) -> Callable[[Any], bool]:
        if not self.text.strip():
            raise _Refused("the pattern has no condition")
        test = self._any()
        if self.text[self.position:].strip():
            raise _Refused(f"unexpected {self.text[self.position:].strip()!r}")
        return test

    def _skip(self) -> None:
        while self.position < len(self.text) and self.text[self.position].isspace():
            self.position += 1

    def _at(self, token: str) -> bool:
        self._skip()
        if self.text.startswith(token, self.position):
            self.position += len(token)
            return True
        return False

    def _any(self) -> Callable[[Any], bool]:
        options = [self._all()]
        while self._at("||"):
            options.append(self._all())
        return options[0] if len(options) == 1 else lambda value: any(test(value) for test in options)

    def _all(self) -> Callable[[Any], bool]:
        parts = [self._one()]
        while self._at("&&"):
            parts.append(self._one())
        return parts[0] if len(parts) == 1 else lambda value: all(test(value) for test in parts)

    def _one(self) -> Callable[[Any], bool]:
        if self._at("("):
            inner = self._any()
            if not self._at(")"):
                raise _Refused("a parenthesis is not closed")
            return inner
        start = self.position
        in_quotes = False
        while self.position < len(self.text):
            char = self.text[self.position]
            if char == "\\" and in_quotes:
                self.position += 2
                continue
            if char == '"':
                in_quotes = not in_quotes
            elif not in_quotes and (self.text.startswith("&&", self.position) or self.text.startswith(
                    "||", self.position) or char == ")"):
                break
            self.position += 1
        if in_quotes:
            raise _Refused("a quote is not closed")
        return self.leaf(self.text[start:self.position])


# ----------------------------------------------------------------------------------- space-delimited


def _split_fields(text: str) -> list[str]:
    """The pattern's comma-separated field specifications (commas inside quotes are text)."""
    fields: list[str] = []
    current: list[str] = []
    in_quotes = False
    index = 0
    while index < len(text):
        char = text[index]
        if char == "\\" and in_quotes and index + 1 < len(text):
            current.append(text[index:index + 2])
            index += 2
            continue
        if char == '"':
            in_quotes = not in_quotes
        if char == "," and not in_quotes:
            fields.append("".join(current).strip())
            current = []
        else:
            current.append(char)
        index += 1
    if in_quotes:
        raise _Refused("a quote is not closed")
    fields.append("".join(current).strip())
    return fields


def _field_condition(name: str) -> Callable[[str], Callable[[Any], bool]]:
    def leaf(text: str) -> Callable[[Any], bool]:
        match = re.match(r"\s*([A-Za-z0-9_\-]+)\s*(!=|<=|>=|=|<|>)(.*)$", text, re.DOTALL)
        if match is None or match.group(1) != name:
            raise _Refused(f"{text.strip()!r} is not a condition on the field {name}")
        return _comparison(match.group(2), match.group(3))

    return leaf


def _field_spec(spec: str) -> Callable[[str], bool] | None:
    """The test of one field of a space-delimited pattern (None: ``...``, any number of fields)."""
    if spec == "...":
        return None
    name = re.match(r"[A-Za-z0-9_\-]+", spec)
    if name is None:
        raise _Refused(f"{spec!r} is not a field name")
    if name.end() == len(spec):
        return lambda value: True
    test = _Conditions(spec, _field_condition(name.group(0))).parse()
    return lambda value: test(value)


def _message_fields(message: str) -> list[str]:
    """A message split at spaces; a ``"quoted"`` or ``[bracketed]`` run is one field (without its marks)."""
    fields: list[str] = []
    index = 0
    while index < len(message):
        if message[index].isspace():
            index += 1
            continue
        closer = {'"': '"', "[": "]"}.get(message[index])
        if closer is not None:
            end = message.find(closer, index + 1)
            if end != -1:
                fields.append(message[index + 1:end])
                index = end + 1
                continue
        end = index
        while end < len(message) and not message[end].isspace():
            end += 1
        fields.append(message[index:end])
        index = end
    return fields


def _delimited_pattern(text: str) -> Predicate:
    if not text.endswith("]"):
        raise _Refused("a space-delimited pattern ends with ]")
    specs = _split_fields(text[1:-1])
    if specs == [""]:
        raise _Refused("a space-delimited pattern names at least one field")
    if any(not spec for spec in specs):
        raise _Refused("a field of the space-delimited pattern is empty")
    tests = [_field_spec(spec) for spec in specs]

    def fits(fields: list[str], at: int, test_at: int) -> bool:
        if test_at == len(tests):
            return at == len(fields)
        test = tests[test_at]
        if test is None:  # ``...``: any number of fields, tried shortest first
            return any(fits(fields, skip, test_at + 1) for skip in range(at, len(fields) + 1))
        return at < len(fields) and test(fields[at]) and fits(fields, at + 1, test_at + 1)

    return lambda message: fits(_message_fields(message), 0, 0)
