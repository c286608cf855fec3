"""JSON lines typed from the kinds scanner's shapes and read by Spark's JSON reader (glueball.runtime.io.jsonshapes)
equal the eager typing of the parsed records, and go the eager way wherever the scan does not settle the types."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest

from glueball.objects.locations import local_path
from glueball.runtime.dynamicframe import DynamicFrame
from glueball.runtime.io import rawkinds
from glueball.runtime.io.jsonshapes import typed_records


@pytest.fixture
def prefix(glue_home: Path) -> str:
    return f"s3://json-shapes/{uuid.uuid4().hex[:10]}"


def _read(glue_context: Any, prefix: str, lines: list[str]) -> DynamicFrame:
    path = local_path(f"{prefix}/data.json")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")
    frame: DynamicFrame = glue_context.create_dynamic_frame.from_options("s3", {"paths": [prefix]}, format="json")
    return frame


def _both(frame: DynamicFrame) -> tuple[Any, Any]:
    """(the records typed from the shapes, or None; the records typed eagerly from the parsed records)."""
    pending = frame.pending_typing
    assert pending is not None and pending.fields is not None
    return typed_records(pending.fields), pending.resolver(pending.raw, ())


# every kind, alone and mixed, at the top level, in objects, in arrays and in choices' members
CASES = {
    "atomic kinds": ['{"a": 1, "b": "x", "c": 2.5, "d": true, "e": null, "f": 1e3, "g": 2.0}',
                     '{"a": -7, "b": "", "c": 3, "d": false, "h": -9223372036854775808}'],
    "nested": ['{"o": {"x": 1, "y": {"z": "q"}}, "arr": [{"p": 1}, {"p": 2, "q": "r"}], "m": [[1, 2], [3]]}',
               '{"o": {"x": 2}, "arr": []}'],
    "top-level choices": ['{"p": 1, "q": {"a": 1}}', '{"p": "2", "q": {"a": "s"}}', '{"p": [1], "q": 5}',
                          '{"p": {"k": 1}, "q": null}', '{"p": 2.5}', '{"p": true}'],
    "choices in arrays and objects": ['{"t": [1, "a", 2.5, true, null, {"x": 1}, [1]], "o": {"v": 1}}',
                                      '{"t": [], "o": {"v": "one", "w": [1, {"z": 2}]}}'],
    "negative zeros": ['{"z": -0.0, "o": {"z": -0.00}, "a": [-0.0]}', '{"z": 1.5, "o": {"z": 2.5}, "a": [1.5]}',
                       '{"e": -0e0, "f": -0.0e1, "i": -0}'],
    "malformed and scalar lines": ['{"a": 1, "b": tru', '{"a": 2}', '"scalar"', '5', '   ', '{"c": [1, 2',
                                   '{"a": 3, "zz": {"k": 1}} trailing text', '{"a": NaN}', "{'a': 1}",
                                   '{"new": 1, "a": [', 'null'],
    "empty values": ['{"e": {}, "a": [], "n": null, "aa": [[]], "an": [null], "ao": [{}]}', '{"e": {}, "n": null}'],
    "names": ['{"é": 1, "z": 2, "\\ud83d\\ude00": 3, "\\uffff": 4, "A": 5, "a b": 6, "x.y": 7, "`q`": 8}',
              '{"o": {"a": 1, "A": 2}}'],
    "choices nested in choices": ['{"a": {"b": {"c": 1}}}', '{"a": {"b": {"c": "x"}}}', '{"a": {"b": 3}}',
                                  '{"a": 4}'],
    # the deepest nesting of choices the eager typing resolves (one pass each)
    "five nested choices": [line for depth in range(5) for line in (
        '{"x": ' * depth + '{"x": 1}' + "}" * depth, '{"x": ' * depth + '{"x": "s"}' + "}" * depth)],
    "long fractions": ['{"d": 0.30000000000000004, "e": 1.2345678901234567, "f": 123456789012345.67}'],
}


@pytest.mark.parametrize("case", list(CASES))
def test_records_typed_from_the_shapes_equal_the_eager_typing(glue_context: Any, prefix: str, case: str) -> None:
    frame = _read(glue_context, prefix, CASES[case])
    shaped, eager = _both(frame)
    assert shaped is not None
    assert shaped.schema == eager.schema
    assert [f.metadata for f in shaped.schema.fields] == [f.metadata for f in eager.schema.fields]
    assert sorted(map(repr, shaped.collect())) == sorted(map(repr, eager.collect()))
    # and a read typed for its own sake takes this path: its schema is the same
    assert _read(glue_context, prefix, CASES[case]).toDF().schema == eager.schema


def test_a_typed_read_scans_once_and_reads_once(glue_context: Any, prefix: str) -> None:
    frame = _read(glue_context, prefix, ['{"id": 1, "v": "x"}', '{"id": 2, "v": 3}'])
    sc = glue_context.spark_session.sparkContext
    group = f"shapes-{prefix}"
    sc.setJobGroup(group, group)
    try:
        rows = frame.toDF().collect()
    finally:
        sc.setLocalProperty("spark.jobGroup.id", None)
    assert len(sc.statusTracker().getJobIdsForGroup(group)) == 2  # the scan, then the read
    assert sorted((r["id"], r["v"]["long"], r["v"]["string"]) for r in rows) == [(1, None, "x"), (2, 3, None)]


@pytest.mark.parametrize(("lines", "why"), [
    (['{"a": 1}', '[{"a": 2}]'], "a line holds an array"),
    (['{"a": 1}', '{"o": {"k": 1, "k": 2}}'], "a record repeats a key (nested)"),
    (['{"a": 92233720368547758070}'], "an integer beyond the long range"),
    (['{"a": 12345678901234567890.0}'], "a fraction of 20 characters"),
    (['{"id": 1}', '{"ID": 2}'], "top-level keys differing only in case"),
    (['{"x": 1}', '{"x": "s"}', '{"x": {"x": 1}}', '{"x": {"x": "s"}}', '{"x": {"x": {"x": 1}}}',
      '{"x": {"x": {"x": "s"}}}', '{"x": {"x": {"x": {"x": 1}}}}', '{"x": {"x": {"x": {"x": "s"}}}}',
      '{"x": {"x": {"x": {"x": {"x": 1}}}}}', '{"x": {"x": {"x": {"x": {"x": "s"}}}}}',
      '{"x": {"x": {"x": {"x": {"x": {"x": 1}}}}}}', '{"x": {"x": {"x": {"x": {"x": {"x": "s"}}}}}}'],
     "choices nested deeper than the eager typing's passes"),
])
def test_what_the_scan_does_not_settle_is_typed_the_eager_way(glue_context: Any, prefix: str, lines: list[str],
                                                              why: str) -> None:
    frame = _read(glue_context, prefix, lines)
    shaped, eager = _both(frame)
    assert shaped is None, why
    typed = _read(glue_context, prefix, lines).toDF()
    assert typed.schema == eager.schema
    assert sorted(map(repr, typed.collect())) == sorted(map(repr, eager.collect()))


def test_the_shape_scan_counts_only_well_formed_records(spark: Any) -> None:
    lines = ['{"a": 1, "gone": "x", "b": tru', '{"a": 2.5}', '{"o": {"k": 1, "k": 2}, "gone2": 1}', '7']
    found = rawkinds.json_shapes(spark.createDataFrame([(line,) for line in lines], "value string"))
    assert found is not None
    assert found.flags == rawkinds.MALFORMED_LINE | rawkinds.DUPLICATE_KEY | rawkinds.SCALAR_LINE
    assert found.root == {"k": rawkinds.OBJECT, "f": {"a": {"k": rawkinds.DOUBLE}}}


def test_without_the_scanner_reads_are_typed_the_eager_way(glue_context: Any, prefix: str,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rawkinds, "scanner", lambda _df: None)
    frame = _read(glue_context, prefix, ['{"id": 1, "v": "x"}', '{"id": 2, "v": 3}'])
    shaped, eager = _both(frame)
    assert shaped is None
    assert sorted(map(repr, frame.toDF().collect())) == sorted(map(repr, eager.collect()))


def test_queries_that_read_no_field_count_the_records(glue_context: Any, prefix: str) -> None:
    lines = ['{"id": 1, "v": "x"}', '{"id": 2, "v": 3}', "not json", '{"id": 3}']
    typed = _read(glue_context, prefix, lines).toDF()
    assert typed.count() == 3 and typed.select().count() == 3
    mapped = _read(glue_context, prefix, lines).apply_mapping([("id", "long", "id", "long")]).toDF()
    assert mapped.count() == 3
