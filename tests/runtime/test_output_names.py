"""glueContext's writers name their files as Glue does: ``run-<ms>-part-r-00000``, ``...-part-block-0-r-...``."""

from __future__ import annotations

import re
import uuid
from pathlib import Path
from typing import Any

import pytest

from glueball.objects.locations import local_path
from glueball.runtime.dynamicframe import DynamicFrame
from glueball.runtime.io.outnames import glue_name


@pytest.fixture
def prefix(glue_home: Path) -> str:
    return f"s3://out-names/{uuid.uuid4().hex[:10]}"


def _frame(glue_context: Any, n: int = 4) -> DynamicFrame:
    df = glue_context.spark_session.createDataFrame([(i, f"r{i}", i % 2) for i in range(n)],
                                                    "id long, name string, half int").coalesce(1)
    return DynamicFrame.fromDF(df, glue_context, "input")


def _files(uri: str) -> list[str]:
    root = local_path(uri)
    hidden = (".", "_")
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and not p.name.startswith(hidden))


def test_text_writes_are_run_ms_part_r_and_readable(glue_context: Any, prefix: str) -> None:
    writer = glue_context.write_dynamic_frame
    writer.from_options(_frame(glue_context), "s3", {"path": f"{prefix}/json"}, "json")
    [name] = _files(f"{prefix}/json")
    assert re.fullmatch(r"run-\d{13}-part-r-00000", name)
    writer.from_options(_frame(glue_context), "s3", {"path": f"{prefix}/json"}, "json")   # appends beside it
    names = _files(f"{prefix}/json")
    assert len(names) == 2 and name in names and names[0] != names[1]
    writer.from_options(_frame(glue_context), "s3", {"path": f"{prefix}/gz", "compressionType": "gzip"}, "csv")
    [gz] = _files(f"{prefix}/gz")
    assert re.fullmatch(r"run-\d{13}-part-r-00000\.gz", gz)
    back = glue_context.create_dynamic_frame.from_options("s3", {"paths": [f"{prefix}/json"]}, "json")
    assert back.count() == 8
    csv_back = glue_context.create_dynamic_frame.from_options("s3", {"paths": [f"{prefix}/gz"]}, "csv",
                                                              {"withHeader": True})
    assert csv_back.count() == 4


def test_parquet_writes_are_part_block_and_count_the_transformation_context(glue_context: Any, prefix: str) -> None:
    writer = glue_context.write_dynamic_frame
    for _ in range(2):
        writer.from_options(_frame(glue_context), "s3", {"path": f"{prefix}/pq"}, "parquet",
                            transformation_ctx="DataSink0")
    assert _files(f"{prefix}/pq") == ["run-DataSink0-1-part-block-0-r-00000-snappy.parquet",
                                      "run-DataSink0-2-part-block-0-r-00000-snappy.parquet"]
    writer.from_options(_frame(glue_context), "s3", {"path": f"{prefix}/parts", "partitionKeys": ["half"]},
                        "glueparquet", {"compression": "uncompressed"})
    files = _files(f"{prefix}/parts")
    assert [f.split("/")[0] for f in files] == ["half=0", "half=1"]
    assert all(re.fullmatch(r"run-\d{13}-part-block-0-0-r-\d{5}-uncompressed\.parquet", f.split("/")[1])
               for f in files)
    back = glue_context.create_dynamic_frame.from_options("s3", {"paths": [f"{prefix}/pq"]}, "parquet")
    assert back.count() == 8


def test_plain_spark_writes_keep_sparks_names(glue_context: Any, prefix: str) -> None:
    _frame(glue_context).toDF().write.json(str(local_path(f"{prefix}/spark")))
    assert all(name.startswith("part-00000-") for name in _files(f"{prefix}/spark"))


def test_name_mapping() -> None:
    assert glue_name("part-00003-1b2c-c000.json", "run-1", "json", None, False) == "run-1-part-r-00003"
    assert glue_name("part-00003-1b2c-c001.csv.bz2", "run-1", "csv", None, False) == "run-1-part-r-00003-1.bz2"
    assert glue_name("part-00000-1b2c-c000.gz.parquet", "run-x-2", "parquet", "gzip", False) == (
        "run-x-2-part-block-0-r-00000-gzip.parquet")
    assert glue_name("part-00001-77.avro", "run-1", "avro", None, False) == "run-1-part-r-00001.avro"
    assert glue_name("_SUCCESS", "run-1", "json", None, False) is None
