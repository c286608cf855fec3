"""Map's Python side over Arrow batches (no Spark session needed): a function handed tracked records (the fields it
reads, its sets noted) gives the same columns, error messages and refusals as the same function handed lazy records
(each looked at as it is returned, the way every record used to be), whether its batch is read by column or record
by record."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pyarrow as pa
import pytest
from pyspark.sql import types as T

from glueball.runtime.dynamicrecord import DynamicRecord, tracked_kind
from glueball.runtime.ops import record_results
from glueball.runtime.ops.record_map import Output
from glueball.runtime.ops.record_results import CHUNK, Handed, results_function

SENT = T.StructType([T.StructField("id", T.LongType()), T.StructField("amount", T.DoubleType()),
                     T.StructField("label", T.StringType())])
ROWS = 2 * CHUNK + 57  # three chunks, the last one short
ARRAYS = [pa.array(list(range(ROWS)), pa.int64()),
          pa.array([None if i % 7 == 0 else i / 4 for i in range(ROWS)], pa.float64()),
          pa.array([f"l{i}" for i in range(ROWS)], pa.string())]
# as Map plans them: ``amount`` becomes a long (its doubles cannot stand for it: every record must set it), ``label``
# and ``id`` may be left as they were, ``total`` is new, ``region`` (not sent) is the input's column as it is
OUTPUTS = [Output("id", T.LongType(), False, SENT["id"]),
           Output("amount", T.LongType(), False, None),
           Output("label", T.StringType(), False, SENT["label"]),
           Output("region", T.StringType(), False, T.StructField("region", T.StringType()), sent=False),
           Output("total", T.DoubleType(), False, None)]
FIXED = ["amount"]


def both_ways(f: Callable[[Any], Any], partial: bool = True, outputs: list[Output] = OUTPUTS,
              fixed: list[str] = FIXED) -> tuple[Any, Any]:
    """The function's results over ARRAYS handed tracked records and handed lazy records (a refusal's message
    instead of the results)."""
    found = []
    for tracked in (True, False):
        results = results_function(f, Handed(SENT, tracked=tracked, partial=partial), outputs, fixed,
                                   lambda exc: RuntimeError(str(exc)))
        try:
            found.append(results(*ARRAYS).to_pylist())
        except RuntimeError as exc:
            found.append(str(exc))
    return found[0], found[1]


def cents(record: Any) -> Any:
    record["amount"] = None if record["amount"] is None else round(record["amount"] * 100)
    return record


def mixed(record: Any) -> Any:
    """Every kind of outcome, changing with the record."""
    n = record["id"]
    if n % 11 == 3:
        record["label"] = "doomed"
        raise ValueError(f"no {n}")
    if n % 13 == 5:
        return None
    if n % 17 == 6:
        return {"id": n, "amount": 1, "total": 2.5}  # a new record
    record["amount"] = n
    if n % 3 == 0:
        record["label"] = "three"  # others leave it (the input's value)
    if n % 5 == 0:
        record["total"] = n / 2
        record["amount"] = -n  # set twice: the last value
    if n % 19 == 0:
        record["total"] = 1.0
        del record["total"]  # a new field set and deleted: not there
    return record


def test_a_function_setting_the_same_fields_of_every_record_is_read_by_column(monkeypatch: pytest.MonkeyPatch) -> None:
    def by_record(*args: Any) -> None:
        raise AssertionError("read record by record")

    monkeypatch.setattr(record_results, "_by_record", by_record)
    tracked, _ = both_ways(cents)
    assert isinstance(tracked, list)  # the column way only: reading by record would have failed
    monkeypatch.undo()
    tracked, lazy = both_ways(cents)
    assert tracked == lazy
    assert tracked[1] == {"m": None, "v0": None, "k0": True, "v1": 25, "v2": None, "k2": True, "v4": None}
    assert tracked[7]["v1"] is None and tracked[7]["k0"] is True

    def relabel(record: Any) -> Any:
        record["amount"] = 0
        record["label"] = "new"
        return record

    tracked, lazy = both_ways(relabel)
    assert tracked == lazy and (tracked[4]["v2"], tracked[4]["k2"]) == ("new", False)


def test_the_same_number_of_sets_is_not_a_set_on_every_record() -> None:
    def uneven(record: Any) -> Any:
        if record["id"] != 11:
            record["label"] = "x"
        if record["id"] == 10:
            record["label"] = "y"  # twice here, never on 11: as many sets as records
        return record

    tracked, lazy = both_ways(uneven, fixed=[])
    assert tracked == lazy and (tracked[11]["v2"], tracked[11]["k2"]) == (None, True) and tracked[10]["v2"] == "y"


def test_records_of_every_outcome_give_what_lazy_records_give(monkeypatch: pytest.MonkeyPatch) -> None:
    ways: list[str] = []
    by_record = record_results._by_record
    monkeypatch.setattr(record_results, "_by_record", lambda *args: ways.append("record") or by_record(*args))
    tracked, lazy = both_ways(mixed)  # a new record where the input's region must stay as it was: refused
    assert tracked == lazy and "field 'region': in a new record" in tracked
    tracked, lazy = both_ways(mixed, outputs=OUTPUTS[:3] + OUTPUTS[4:])
    assert ways == []  # no deletion of a sent field, nothing unknown set: every chunk by column
    assert tracked == lazy
    assert tracked[3]["m"] == "no 3" and tracked[5]["m"] == "User-specified function returned None instead of " \
                                                           "DynamicRecord"
    assert (tracked[6]["v1"], tracked[6]["k0"], tracked[6]["k2"], tracked[6]["v3"]) == (1, False, False, 2.5)
    assert (tracked[15]["v1"], tracked[15]["v2"], tracked[15]["k2"], tracked[15]["v3"]) == (-15, "three", False, 7.5)
    assert (tracked[38]["v1"], tracked[38]["k2"], tracked[38]["v3"]) == (38, True, None)  # total set, then deleted

    def renewing(record: Any) -> Any:  # no error record: only new records to take one by one
        if record["id"] % 17 == 6:
            return {"id": record["id"], "label": "new"}
        record["label"] = "old"
        return record

    tracked, lazy = both_ways(renewing, outputs=OUTPUTS[:3] + OUTPUTS[4:], fixed=[])
    assert ways == [] and tracked == lazy
    assert (tracked[6]["v2"], tracked[6]["k0"], tracked[7]["v2"], tracked[7]["k0"]) == ("new", False, "old", True)


def test_deleted_fields_are_read_by_column_with_the_same_outcome(monkeypatch: pytest.MonkeyPatch) -> None:
    def drops(record: Any) -> Any:
        record["amount"] = 0
        if record["id"] % 4 == 1:
            del record["label"]  # the output's null, not the input's value
        if record["id"] % 6 == 2:
            record["label"] = "set"
            del record["label"]  # set, then deleted: deleted
        if record["id"] % 9 == 4:
            del record["amount"]  # a field it must change, deleted: null
        return record

    ways: list[str] = []
    by_record = record_results._by_record
    monkeypatch.setattr(record_results, "_by_record", lambda *args: ways.append("record") or by_record(*args))
    tracked, lazy = both_ways(drops)
    assert ways == [] and tracked == lazy
    assert (tracked[1]["v2"], tracked[1]["k2"], tracked[2]["k2"], tracked[3]["k2"]) == (None, False, False, True)
    assert (tracked[4]["v1"], tracked[5]["v1"]) == (None, 0)

    without_label = OUTPUTS[:2] + OUTPUTS[3:]  # every sampled record deleted it: each record must
    tracked, lazy = both_ways(drops, outputs=without_label, fixed=["amount", "label"])
    assert tracked == lazy and "field 'label': left as the input had it" in tracked

    def drops_label(record: Any) -> Any:
        record["amount"] = 1
        del record["label"]
        return record

    ways.clear()  # the refusal above was found record by record
    tracked, lazy = both_ways(drops_label, outputs=without_label, fixed=["amount", "label"])
    assert ways == [] and tracked == lazy and tracked[0] == {"m": None, "v0": None, "k0": True, "v1": 1, "v3": None}

    def drops_some(record: Any) -> Any:
        record["amount"] = 1
        if record["id"] == CHUNK + 1:
            del record["label"]
        return record

    label_as_it_was = [OUTPUTS[0], OUTPUTS[1], Output("label", T.StringType(), False, SENT["label"], sent=False)]
    tracked, lazy = both_ways(drops_some, outputs=label_as_it_was)  # a field every sampled record left, deleted
    assert tracked == lazy and "field 'label': deleted" in tracked


@pytest.mark.parametrize("late", [5, CHUNK + 9])  # the first chunk, or a later one
def test_the_first_record_unlike_the_sample_is_the_one_refused(late: int) -> None:
    def unlike(record: Any) -> Any:
        n = record["id"]
        if n == late:
            record["unknown"] = 1  # no column for it
        if n == late + 2:
            return record  # leaves amount, which it must change
        record["amount"] = 1
        if n == late + 4:
            record["region"] = "x"  # a field every sampled record left
        return record

    tracked, lazy = both_ways(unlike)
    assert tracked == lazy and "field 'unknown'" in tracked and "no such field" in tracked

    def leaves(record: Any) -> Any:
        if record["id"] != late:
            record["amount"] = 1
        return record

    tracked, lazy = both_ways(leaves)
    assert tracked == lazy and "field 'amount': left as the input had it" in tracked

    def region(record: Any) -> Any:
        record["amount"] = 1
        if record["id"] == late:
            record["region"] = "x"
        return record

    tracked, lazy = both_ways(region)
    assert tracked == lazy and "field 'region'" in tracked and "every sampled record left it" in tracked

    tracked, lazy = both_ways(cents, fixed=["amount", "gone"])  # an input field no record may keep: to be deleted
    assert tracked == lazy and "field 'gone': left as the input had it" in tracked


def test_a_record_with_every_field_deleted_is_empty_only_when_it_had_every_field() -> None:
    def empties(record: Any) -> Any:
        if record["id"] % 2:
            del record["id"]
            del record["amount"]
            del record["label"]
        else:
            record["amount"] = 2
        return record

    for partial in (True, False):
        tracked, lazy = both_ways(empties, partial)
        assert tracked == lazy
    assert tracked[1]["m"] == "User-specified function returned None instead of DynamicRecord"  # not partial


def test_a_record_counts_as_returned_itself_only_when_it_is_the_record_and_not_empty() -> None:
    record, empty = DynamicRecord({"a": 1}), DynamicRecord()
    assert record_results.returned_itself(record, record, partial=False)
    assert not record_results.returned_itself(record, DynamicRecord({"a": 1}), partial=True)  # an equal copy
    assert not record_results.returned_itself(record, None, partial=True)
    assert not record_results.returned_itself(empty, empty, partial=False)  # every field it had deleted
    assert record_results.returned_itself(empty, empty, partial=True)  # it still has the fields it was not sent


def test_a_function_reading_no_field_gets_empty_records() -> None:
    def constant(record: Any) -> Any:
        record["amount"] = 7
        return record

    nothing = T.StructType([])
    found = results_function(constant, Handed(nothing, tracked=True, partial=True), OUTPUTS[:2], ["amount"],
                             lambda exc: RuntimeError(str(exc)))(pa.nulls(ROWS, pa.bool_()))
    assert found.to_pylist() == [{"m": None, "v0": None, "k0": True, "v1": 7}] * ROWS


def test_a_tracked_record_notes_its_sets_in_its_own_class() -> None:
    kind, other = tracked_kind(), tracked_kind()
    record = kind({"a": 1, "b": 2})  # made from a mapping: nothing set yet
    assert isinstance(record, DynamicRecord) and record == {"a": 1, "b": 2}
    assert kind.set_keys == [] and kind.set_on == []
    record["a"] = 3
    record["c"] = 4
    del record["b"]
    assert kind.set_keys == ["a", "c"] and kind.set_on == [record, record]
    assert other.set_keys == [] and record == {"a": 3, "c": 4}
