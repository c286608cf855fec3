"""ML transforms as stored resources through boto3 against `glueball server` (SQLite and PostgreSQL); their task
runs are refused with a message that says glueball does not run them."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError

from tests.helpers import error_of, table_input, unique

PARAMETERS = {"TransformType": "FIND_MATCHES", "FindMatchesParameters": {
    "PrimaryKeyColumnName": "id", "PrecisionRecallTradeoff": 0.5, "EnforceProvidedLabels": False}}


def expect_error(call: Any, code: str) -> str:
    with pytest.raises(ClientError) as excinfo:
        call()
    got, message = error_of(excinfo)
    assert got == code, message
    return message


@pytest.fixture()
def source(glue: Any) -> dict[str, str]:
    database = unique("mldb")
    glue.create_database(DatabaseInput={"Name": database})
    glue.create_table(DatabaseName=database, TableInput=table_input("people"))
    return {"DatabaseName": database, "TableName": "people"}


def create(glue: Any, source: dict[str, str], name: str | None = None, **extra: Any) -> str:
    transform_id: str = glue.create_ml_transform(Name=name or unique("tfm"), InputRecordTables=[source],
                                                 Parameters=PARAMETERS, Role="GlueRole", **extra)["TransformId"]
    return transform_id


def test_create_get_list_update_delete(glue: Any, source: dict[str, str]) -> None:
    name = unique("dedupe")
    transform_id = create(glue, source, name, Description="find duplicates", GlueVersion="2.0", WorkerType="G.1X",
                          NumberOfWorkers=2, Timeout=60, MaxRetries=1, Tags={"team": "ml"},
                          TransformEncryption={"MlUserDataEncryption": {"MlUserDataEncryptionMode": "SSE-KMS",
                                                                        "KmsKeyId": "key-1"}})
    assert transform_id.startswith("tfm-")
    got = glue.get_ml_transform(TransformId=transform_id)
    assert got["Name"] == name and got["Status"] == "NOT_READY" and got["LabelCount"] == 0
    assert got["Parameters"] == PARAMETERS and got["InputRecordTables"] == [source]
    assert got["Schema"] == [{"Name": "id", "DataType": "bigint"}, {"Name": "amount", "DataType": "double"}]
    assert got["Timeout"] == 60 and got["TransformEncryption"]["MlUserDataEncryption"]["KmsKeyId"] == "key-1"

    other = create(glue, source, GlueVersion="3.0")
    assert transform_id in glue.list_ml_transforms(Tags={"team": "ml"})["TransformIds"]
    assert other not in glue.list_ml_transforms(Tags={"team": "ml"})["TransformIds"]
    by_version = glue.get_ml_transforms(Filter={"GlueVersion": "2.0", "Schema": [{"Name": "amount"}]})["Transforms"]
    ids = [t["TransformId"] for t in by_version]
    assert transform_id in ids and other not in ids
    newest_first = glue.list_ml_transforms(Sort={"Column": "CREATED", "SortDirection": "DESCENDING"})["TransformIds"]
    assert newest_first.index(other) < newest_first.index(transform_id)

    renamed = unique("renamed")
    assert glue.update_ml_transform(TransformId=transform_id, Name=renamed, MaxRetries=3,
                                    Description="changed")["TransformId"] == transform_id
    got = glue.get_ml_transform(TransformId=transform_id)
    assert (got["Name"], got["MaxRetries"], got["Description"]) == (renamed, 3, "changed")
    assert glue.get_ml_transforms(Filter={"Name": renamed})["Transforms"][0]["TransformId"] == transform_id

    assert glue.delete_ml_transform(TransformId=transform_id)["TransformId"] == transform_id
    expect_error(lambda: glue.get_ml_transform(TransformId=transform_id), "EntityNotFoundException")


def test_task_runs_are_refused_clearly(glue: Any, source: dict[str, str]) -> None:
    transform_id = create(glue, source)
    message = expect_error(lambda: glue.start_ml_evaluation_task_run(TransformId=transform_id),
                           "MLTransformNotReadyException")
    assert "does not run their task runs" in message
    for call in (lambda: glue.start_ml_labeling_set_generation_task_run(TransformId=transform_id,
                                                                        OutputS3Path="s3://b/labels/"),
                 lambda: glue.start_import_labels_task_run(TransformId=transform_id, InputS3Path="s3://b/l.csv"),
                 lambda: glue.start_export_labels_task_run(TransformId=transform_id, OutputS3Path="s3://b/out/")):
        assert "does not run their task runs" in expect_error(call, "InvalidInputException")
    assert glue.get_ml_task_runs(TransformId=transform_id)["TaskRuns"] == []
    expect_error(lambda: glue.get_ml_task_run(TransformId=transform_id, TaskRunId="tsk-1"), "EntityNotFoundException")
    expect_error(lambda: glue.cancel_ml_task_run(TransformId=transform_id, TaskRunId="tsk-1"),
                 "EntityNotFoundException")
    expect_error(lambda: glue.start_ml_evaluation_task_run(TransformId="tfm-missing"), "EntityNotFoundException")


def test_error_paths(glue: Any, source: dict[str, str]) -> None:
    name = unique("tfm")
    transform_id = create(glue, source, name)
    assert name in expect_error(lambda: create(glue, source, name), "AlreadyExistsException")
    missing_table = {**source, "TableName": "nope"}
    assert "nope" in expect_error(lambda: create(glue, missing_table), "InvalidInputException")
    for extra, why in (({"MaxCapacity": 10.0, "WorkerType": "G.1X", "NumberOfWorkers": 2}, "MaxCapacity cannot"),
                       ({"WorkerType": "G.1X"}, "must be given together"),
                       ({"TransformEncryption": {"MlUserDataEncryption": {"MlUserDataEncryptionMode": "SSE-KMS"}}},
                        "KmsKeyId is required"),
                       ({"TransformEncryption": {"TaskRunSecurityConfigurationName": "no-such"}},
                        "Security configuration no-such not found")):
        assert why in expect_error(lambda e=extra: create(glue, source, **e), "InvalidInputException")
    bad_key = {"TransformType": "FIND_MATCHES", "FindMatchesParameters": {"PrimaryKeyColumnName": "ghost"}}
    assert "ghost" in expect_error(lambda: glue.create_ml_transform(
        Name=unique("tfm"), InputRecordTables=[source], Parameters=bad_key, Role="r"), "InvalidInputException")
    assert "PrimaryKeyColumnName is required" in expect_error(lambda: glue.create_ml_transform(
        Name=unique("tfm"), InputRecordTables=[source], Parameters={"TransformType": "FIND_MATCHES"}, Role="r"),
        "InvalidInputException")
    other = create(glue, source)
    assert name in expect_error(lambda: glue.update_ml_transform(TransformId=other, Name=name, MaxRetries=7),
                                "AlreadyExistsException")
    assert "MaxRetries" not in glue.get_ml_transform(TransformId=other)  # the refused update changed nothing
    expect_error(lambda: glue.update_ml_transform(TransformId=transform_id, Parameters=bad_key),
                 "InvalidInputException")
    # a refused update changes nothing
    assert glue.get_ml_transform(TransformId=transform_id)["Parameters"] == PARAMETERS
    for call in (lambda: glue.get_ml_transform(TransformId="tfm-nope"),
                 lambda: glue.update_ml_transform(TransformId="tfm-nope", Role="r"),
                 lambda: glue.delete_ml_transform(TransformId="tfm-nope")):
        expect_error(call, "EntityNotFoundException")
