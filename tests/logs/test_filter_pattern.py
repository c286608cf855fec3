"""CloudWatch Logs' filter pattern syntax (FilterLogEvents' filterPattern), without a server."""

from __future__ import annotations

import pytest

from glueball.logs.errors import InvalidParameterException
from glueball.logs.filter_pattern import compile_pattern

APACHE = '127.0.0.1 - frank [10/Oct/2000:13:25:15 -0700] "GET /apache_pb.gif HTTP/1.0" 404 1534'


@pytest.mark.parametrize(("pattern", "matching", "other"), [
    ("", "anything", None),
    ("ERROR", "[ERROR] disk full", "[error] disk full"),
    ("ERROR disk", "ERROR: the disk is full", "ERROR: the memory is full"),
    ('"disk full"', "ERROR disk full", "ERROR disk is full"),
    ('"say \\"hi\\""', 'they say "hi" there', "they say hi there"),
    ("?ERROR ?WARN", "WARN low memory", "INFO all good"),
    ("ERROR -Exiting", "ERROR retrying", "ERROR Exiting"),
    ("-DEBUG", "INFO started", "DEBUG internals"),
    ('ERROR ?disk ?memory -"try again"', "ERROR memory full", "ERROR memory full, try again"),
    ('{ $.level = "ERROR" }', '{"level": "ERROR", "n": 1}', '{"level": "INFO"}'),
    ("{ $.level = ERR* }", '{"level": "ERROR"}', '{"level": "WARN"}'),
    ("{ $.level != ERROR }", '{"level": "INFO"}', '{"level": "ERROR"}'),
    ("{ $.latency > 100 && $.status = 500 }", '{"latency": 150, "status": 500}', '{"latency": 50, "status": 500}'),
    ("{ $.a = 1 || $.b = 2 }", '{"b": 2}', '{"a": 2, "b": 1}'),
    ("{ ($.a = 1 || $.b = 2) && $.c NOT EXISTS }", '{"a": 1}', '{"a": 1, "c": 0}'),
    ("{ $.user.name = bob }", '{"user": {"name": "bob"}}', '{"user": {"name": "alice"}}'),
    ("{ $.items[1] = 7 }", '{"items": [6, 7]}', '{"items": [7]}'),
    ("{ $.ok IS TRUE }", '{"ok": true}', '{"ok": false}'),
    ("{ $.ok IS FALSE }", '{"ok": false}', '{"ok": "false"}'),
    ("{ $.gone IS NULL }", '{"gone": null}', '{"gone": 0}'),
    ("{ $.n <= -1.5e0 }", '{"n": -2}', '{"n": 0}'),
    ("{ $.level = ERROR }", '{"level": "ERROR"}', "level = ERROR (not JSON)"),
    ("[ip, identity, user, timestamp, request, status = 404, bytes]", APACHE, APACHE.replace(" 404 ", " 200 ")),
    ("[ip, ..., status = 4*, bytes > 1000]", APACHE, APACHE.replace(" 1534", " 999")),
    ("[ip, ..., status = 200 || status = 404, bytes]", APACHE, APACHE.replace(" 404 ", " 500 ")),
    ('[..., request = "*gif*", status, bytes]', APACHE, APACHE.replace("gif", "png")),
    ("[a, b, c]", "1 2 3", "1 2 3 4"),
    ("%ERROR [0-9]{3}%", "ERROR 503 upstream", "ERROR five"),
])
def test_a_pattern_matches_what_aws_documents(pattern: str, matching: str, other: str | None) -> None:
    matches = compile_pattern(pattern)
    assert matches(matching)
    if other is not None:
        assert not matches(other)


@pytest.mark.parametrize(("pattern", "why"), [
    ("ERROR:", "invalid character(s) in term 'ERROR:'"),
    ('"not closed', "is not closed"),
    ("{ $.level = ERROR", "ends with }"),
    ("{ level = ERROR }", "is not a JSON condition"),
    ("{ $.level = }", "a comparison has no value"),
    ("{ $.level > high }", "> compares numbers"),
    ("{ $..x = 1 }", "is not $.field"),
    ("{ $.a = 1 && }", "is not a JSON condition"),
    ("{ ($.a = 1 }", "a parenthesis is not closed"),
    ("[a, , b]", "is empty"),
    ("[a, b = 1 || c = 2]", "is not a condition on the field b"),
    ("[]", "names at least one field"),
    ("%(%", "does not compile"),
])
def test_a_pattern_that_does_not_parse_is_refused_saying_why(pattern: str, why: str) -> None:
    with pytest.raises(InvalidParameterException) as caught:
        compile_pattern(pattern)
    assert caught.value.message.startswith(f"Invalid filter pattern {pattern!r}: ")
    assert why in caught.value.message
