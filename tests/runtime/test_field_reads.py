"""Which record fields a Filter or Map function reads, from its bytecode: exact where certain, else None.

None means every field is sent, so an answer may be None too often (slower) but never miss a field the
function can read (wrong). No Spark here.
"""

from __future__ import annotations

import functools
from typing import Any

import pytest

from glueball.runtime.ops.field_reads import fields_changed, fields_read


def _branchy(r: Any) -> bool:
    if r["kind"] == "a":
        return bool(r["amount"] > 1)
    return r.get("note", "") == "x" and "flag" in r


def _writes(r: Any) -> Any:
    r["total"] = 1
    del r["old"]
    return r["total"]


def _helper(r: Any) -> bool:
    return bool(r["a"])


def _passes_on(r: Any) -> bool:
    return _helper(r)


def _rebinds(r: Any) -> Any:
    r = {"a": 1}
    return r["a"]


def _comprehension(r: Any) -> bool:
    return any(r[c] for c in ("a", "b"))


def _computed_key(r: Any) -> Any:
    key = "a"
    return r[key]


def _locals_reader(r: Any) -> Any:
    return locals()["r"]["b"]


class _Checker:
    def keep(self, r: Any) -> bool:
        return bool(r["a"] > self.limit)

    limit = 3

    def __call__(self, r: Any) -> bool:
        return bool(r["a"])


CERTAIN = [
    (lambda r: r["amount"] is not None and r["amount"] > 100.0, {"amount"}),
    (lambda r: r["info"]["age"] > 3, {"info"}),  # a nested read sends the whole struct
    (lambda r: r.get("a") is None, {"a"}),
    (lambda r: r.get("a", 0) > 1, {"a"}),
    (lambda r: "x" in r, {"x"}),
    (lambda r: True, set()),
    (lambda r, limit=3: r["a"] > limit, {"a"}),
    (_branchy, {"kind", "amount", "note", "flag"}),  # every path's reads, not one sample's
    (_writes, {"old", "total"}),
    (_Checker().keep, {"a"}),
    (lambda r: {"id": r["id"], "double": r["n"] * 2}, {"id", "n"}),
]

UNKNOWN = [
    (lambda r: r, "the record is returned"),
    (lambda r: dict(r), "the record is passed on"),
    (_passes_on, "the record is passed to a helper"),
    (lambda r: len(r) > 2, "the record is measured"),
    (lambda r: list(r.keys()), "another method"),
    (lambda r: r.get("a", r["b"]) > 1 if False else r.get("a", r), "a default that is the record"),
    (_rebinds, "the parameter is rebound"),
    (_comprehension, "a comprehension captures it"),
    (_computed_key, "a computed key"),
    (_locals_reader, "a function that reads its own frame"),
    (functools.partial(lambda limit, r: r["a"] > limit, 3), "not a plain function"),
    (_Checker(), "a callable object"),
    (len, "a builtin"),
    (lambda *records: records[0]["a"], "no positional parameter"),
]


@pytest.mark.parametrize(("function", "fields"), CERTAIN, ids=[str(i) for i in range(len(CERTAIN))])
def test_the_fields_a_function_reads(function: Any, fields: set[str]) -> None:
    assert fields_read(function) == frozenset(fields)


@pytest.mark.parametrize(("function", "why"), UNKNOWN, ids=[u[1] for u in UNKNOWN])
def test_functions_whose_reads_cannot_be_known(function: Any, why: str) -> None:
    assert fields_read(function) is None, why


def test_reads_found_are_never_fewer_than_the_reads_made() -> None:
    """Run each certain function on records that record what is read: every field read is in the answer."""

    class Watching(dict[str, Any]):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.read: set[str] = set()

        def __getitem__(self, key: str) -> Any:
            self.read.add(key)
            return super().__getitem__(key)

        def get(self, key: str, default: Any = None) -> Any:
            self.read.add(key)
            return super().get(key, default)

        def __contains__(self, key: object) -> bool:
            self.read.add(str(key))
            return super().__contains__(key)

    samples = [{"amount": 150.0, "info": {"age": 5}, "a": 4, "x": 1, "kind": k, "note": "x", "flag": 1, "old": 0,
                "id": 1, "n": 2} for k in ("a", "b")]
    for function, _ in CERTAIN:
        found = fields_read(function)
        assert found is not None
        for sample in samples:
            record = Watching(sample)
            try:
                function(record)
            except (KeyError, TypeError):
                pass
            assert record.read <= found, (function, record.read, found)


def _set_and_return(record: Any) -> Any:
    record["amount"] = round(record["amount"] * 100)
    return record


def _return_in_a_tuple(record: Any) -> Any:
    return (record,)


def test_a_map_function_may_return_its_record() -> None:
    """Map asks with ``returned=True``: ``return record`` reads nothing; any other escape still does."""
    assert fields_read(_set_and_return) is None  # Filter's question: the record escapes
    assert fields_read(_set_and_return, returned=True) == {"amount"}
    assert fields_read(lambda r: r, returned=True) == frozenset()
    assert fields_read(_return_in_a_tuple, returned=True) is None
    assert fields_read(lambda r: len(r), returned=True) is None


def _set_in_a_branch(record: Any) -> Any:
    if record["amount"] > 10:
        record["big"] = True
        del record["note"]
    return record


def _set_a_computed_key(record: Any) -> Any:
    key = "big"
    record[key] = True
    return record


def _return_another_mapping(record: Any) -> Any:
    return {"amount": record["amount"]}


def _return_record_or_none(record: Any) -> Any:
    if record["amount"] < 0:
        return None
    record["amount"] = -record["amount"]
    return record


def test_the_fields_a_map_function_may_change_are_known_only_when_it_names_them_and_returns_its_record() -> None:
    """Map uses its sample's schema only where no later record can bring a field the sample did not set."""
    assert fields_changed(_set_and_return) == {"amount"}
    assert fields_changed(_set_in_a_branch) == {"big", "note"}  # set or deleted, whichever branch runs
    assert fields_changed(_return_record_or_none) == {"amount"}
    assert fields_changed(lambda r: r) == frozenset()
    assert fields_changed(_set_a_computed_key) is None
    assert fields_changed(_return_another_mapping) is None
    assert fields_changed(_return_in_a_tuple) is None
    assert fields_changed(lambda r: r or {"x": 1}) is None
    assert fields_changed(len) is None
