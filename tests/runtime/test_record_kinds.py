"""The kinds of value a Map function sets, read from its bytecode (glueball.runtime.ops.record_kinds): known where
every path is followed, None (the sample decides) for anything the reader does not know."""

from __future__ import annotations

from typing import Any

import pytest
from pyspark.sql import types as T

from glueball.runtime.ops.record_kinds import set_kinds

FIELDS = {"amount": T.DoubleType(), "id": T.LongType(), "n": T.IntegerType(), "name": T.StringType(),
          "ok": T.BooleanType(), "ts": T.TimestampType(), "price": T.DecimalType(10, 2)}


def kinds(f: Any) -> list[dict[str, set[str]]] | None:
    paths = set_kinds(f, FIELDS)
    return None if paths is None else [{name: set(k) for name, k in sets.items()} for sets in paths.sets]


def in_cents(record: Any) -> Any:
    record["amount"] = None if record["amount"] is None else round(record["amount"] * 100)
    return record


def total(record: Any) -> Any:
    record["total"] = None if record["amount"] is None else record["amount"] * record["id"]
    return record


def labels(r: Any) -> Any:
    a = r.get("amount")
    if a is not None and a > 10:
        r["big"] = True
    else:
        r["big"] = False
    r["name"] = r["name"].upper() + "-" + str(r["n"])
    r["short"] = len(r["name"]) < 5 or "x" in r
    return r


def test_paths_and_kinds_of_common_functions() -> None:
    assert kinds(in_cents) == [{"amount": {"none"}}, {"amount": {"int"}}]
    assert kinds(total) == [{"total": {"none"}}, {"total": {"float"}}]
    found = kinds(labels)
    assert found and all(p == {"big": {"bool"}, "name": {"str"}, "short": {"bool"}} for p in found)
    assert kinds(lambda r: r) == [{}]  # the record as it came: every field kept


@pytest.mark.parametrize(("expression", "expected"), [
    ('r["n"] // 2', {"int"}), ('r["n"] / 2', {"float"}), ('r["n"] % 3', {"int"}), ('r["amount"] // 2', {"float"}),
    ('-r["ok"]', {"int"}), ('r["ok"] + r["ok"]', {"int"}), ('round(r["amount"], 2)', {"float"}),
    ('round(r["n"], 2)', {"int"}), ('abs(r["amount"])', {"float"}), ('int(r["name"] + "1")', {"int"}),
    ('float(r["n"])', {"float"}), ('max(r["n"], r["id"])', {"int"}), ('r["name"] * 2', {"str"}),
    ('"%s!" % r["n"]', {"str"}), ('not r["ok"]', {"bool"}), ('r["id"] == r["name"]', {"bool"}),
    ('r["name"] or "-"', {"str"}), ('r["name"].startswith("a")', {"bool"}), ('r["name"].find("a")', {"int"}),
    ('r["n"] > 1 and r["amount"] < 3', {"bool"}), ('1 < r["n"] < 9', {"bool"}),
    ('f"{r[\'name\']}-{r[\'amount\']:.1f}"', {"str"}), ('round(r["amount"], None)', {"int"}),
])
def test_expressions_have_the_kinds_python_gives_them(expression: str, expected: set[str]) -> None:
    f = function_of(expression)
    found = kinds(f)
    assert found is not None, expression
    assert set().union(*(p["v"] for p in found)) - {"none"} == expected
    value = f({"amount": 2.5, "id": 3, "n": 7, "name": "1", "ok": True})["v"]  # as Python runs it
    assert {bool: "bool", int: "int", float: "float", str: "str"}[type(value)] in expected


def function_of(expression: str) -> Any:
    """The Map function ``r["v"] = <expression>; return r``."""
    namespace: dict[str, Any] = {}
    exec(f"def f(r):\n    r['v'] = {expression}\n    return r\n", namespace)  # noqa: S102 - the test's own text
    return namespace["f"]


HELPER = 2


def call_helper(r: Any) -> Any:
    r["v"] = function_of("1")(r)
    return r


def uses_global(r: Any) -> Any:
    r["v"] = r["n"] * HELPER
    return r


def loops(r: Any) -> Any:
    for i in range(2):
        r["v"] = i
    return r


def tries(r: Any) -> Any:
    try:
        r["v"] = int(r["name"])
    except ValueError:
        r["v"] = 0
    return r


def deletes(r: Any) -> Any:
    del r["name"]
    return r


def another_mapping(r: Any) -> Any:
    return {"v": 1}


def timestamps(r: Any) -> Any:
    r["v"] = r["ts"]
    return r


def decimals(r: Any) -> Any:
    r["v"] = r["price"] * 2
    return r


def computed_key(r: Any) -> Any:
    r["v" + r["name"]] = 1
    return r


def shadowed(r: Any) -> Any:
    r["v"] = round(r["amount"])
    return r


@pytest.mark.parametrize("f", [call_helper, uses_global, loops, tries, deletes, another_mapping, timestamps, decimals,
                               computed_key, len])
def test_what_the_reader_does_not_follow_is_left_to_the_sample(f: Any) -> None:
    assert kinds(f) is None


def test_a_rebound_builtin_is_not_the_builtin(monkeypatch: pytest.MonkeyPatch) -> None:
    assert kinds(shadowed) == [{"v": {"int"}}]
    monkeypatch.setitem(globals(), "round", lambda value: str(value))
    assert kinds(shadowed) is None
    monkeypatch.delitem(globals(), "round")
    namespace: dict[str, Any] = {"__builtins__": {"round": lambda value: str(value)}}
    exec("def f(r):\n    r['v'] = round(r['amount'])\n    return r\n", namespace)  # noqa: S102 - the test's own text
    assert kinds(namespace["f"]) is None  # a function given other builtins


def test_paths_that_always_raise_or_return_none_are_error_records() -> None:
    def f(r: Any) -> Any:
        if r["ok"]:
            return None
        if r["n"] is None:
            r["v"] = r["name"] - 1  # a str minus an int always raises
        r["w"] = 1
        return r

    assert kinds(f) == [{"w": {"int"}}]

    def never(r: Any) -> Any:
        return None

    assert kinds(never) is None  # no path returns the record: the sample decides
