"""Wire handlers of Glue ML transforms, and the refusals of their task runs."""

from __future__ import annotations

from typing import Any

from glueball.api.identity import Caller
from glueball.api.operations import Request, Response
from glueball.api.pagination import page_size, paged
from glueball.clock import epoch
from glueball.errors import EntityNotFoundException, InvalidInputException
from glueball.mltransforms.area import OPERATIONS, MLTransformNeeds
from glueball.mltransforms.models import SETTINGS, MLTransform, TransformFilter
from glueball.mltransforms.service import MLTransformService
from glueball.store.scoped import Scope


def transforms(needs: MLTransformNeeds, caller: Caller) -> MLTransformService:
    return MLTransformService(needs.store, Scope(caller.account_id, caller.region), needs.table_columns)


def transform_wire(transform: MLTransform) -> dict[str, Any]:
    return {"TransformId": transform.transform_id, "Name": transform.name, "Status": transform.status,
            "CreatedOn": transform.created, "LastModifiedOn": transform.modified,
            "InputRecordTables": transform.input_tables, **transform.settings, "Schema": transform.schema,
            "LabelCount": 0, "EvaluationMetrics": {"TransformType": transform.transform_type}}


def _filter(wire: dict[str, Any] | None) -> TransformFilter:
    wire = wire or {}

    def stamp(member: str) -> float | None:
        return epoch(wire[member]) if wire.get(member) is not None else None

    return TransformFilter(name=wire.get("Name"), transform_type=wire.get("TransformType"), status=wire.get("Status"),
                           glue_version=wire.get("GlueVersion"), created_before=stamp("CreatedBefore"),
                           created_after=stamp("CreatedAfter"), modified_before=stamp("LastModifiedBefore"),
                           modified_after=stamp("LastModifiedAfter"), schema=list(wire.get("Schema") or []))


def _list(needs: MLTransformNeeds, caller: Caller, request: Request) -> tuple[list[MLTransform], str | None]:
    sort = request.get("Sort")
    order = (sort["Column"], sort["SortDirection"] == "DESCENDING") if sort else None
    return transforms(needs, caller).list(_filter(request.get("Filter")), order, page_size(request.get("MaxResults")),
                                          request.get("NextToken"), request.get("Tags"))


@OPERATIONS.operation("CreateMLTransform")
def create_ml_transform(needs: MLTransformNeeds, caller: Caller, request: Request) -> Response:
    settings = {k: request[k] for k in SETTINGS if request.get(k) is not None}
    transform_id = transforms(needs, caller).create(request["Name"], list(request["InputRecordTables"]), settings,
                                                    request.get("Tags"))
    return {"TransformId": transform_id}


@OPERATIONS.operation("GetMLTransform")
def get_ml_transform(needs: MLTransformNeeds, caller: Caller, request: Request) -> Response:
    return transform_wire(transforms(needs, caller).get(request["TransformId"]))


@OPERATIONS.operation("GetMLTransforms")
def get_ml_transforms(needs: MLTransformNeeds, caller: Caller, request: Request) -> Response:
    found, token = _list(needs, caller, request)
    return paged("Transforms", [transform_wire(t) for t in found], token)


@OPERATIONS.operation("ListMLTransforms")
def list_ml_transforms(needs: MLTransformNeeds, caller: Caller, request: Request) -> Response:
    found, token = _list(needs, caller, request)
    return paged("TransformIds", [t.transform_id for t in found], token)


@OPERATIONS.operation("UpdateMLTransform")
def update_ml_transform(needs: MLTransformNeeds, caller: Caller, request: Request) -> Response:
    changes = {k: request[k] for k in SETTINGS if k != "TransformEncryption" and request.get(k) is not None}
    transforms(needs, caller).update(request["TransformId"], request.get("Name"), changes)
    return {"TransformId": request["TransformId"]}


@OPERATIONS.operation("DeleteMLTransform")
def delete_ml_transform(needs: MLTransformNeeds, caller: Caller, request: Request) -> Response:
    transforms(needs, caller).delete(request["TransformId"])
    return {"TransformId": request["TransformId"]}


# ---------------------------------------------------------------- task runs: refused, the transform checked first

@OPERATIONS.operation("StartMLEvaluationTaskRun")
def start_ml_evaluation_task_run(needs: MLTransformNeeds, caller: Caller, request: Request) -> Response:
    raise transforms(needs, caller).refuse_task_run(request["TransformId"], "StartMLEvaluationTaskRun")


@OPERATIONS.operation("StartMLLabelingSetGenerationTaskRun")
def start_ml_labeling_set_generation_task_run(needs: MLTransformNeeds, caller: Caller, request: Request) -> Response:
    raise transforms(needs, caller).refuse_task_run(request["TransformId"], "StartMLLabelingSetGenerationTaskRun",
                                                    InvalidInputException)


@OPERATIONS.operation("StartImportLabelsTaskRun")
def start_import_labels_task_run(needs: MLTransformNeeds, caller: Caller, request: Request) -> Response:
    raise transforms(needs, caller).refuse_task_run(request["TransformId"], "StartImportLabelsTaskRun",
                                                    InvalidInputException)


@OPERATIONS.operation("StartExportLabelsTaskRun")
def start_export_labels_task_run(needs: MLTransformNeeds, caller: Caller, request: Request) -> Response:
    raise transforms(needs, caller).refuse_task_run(request["TransformId"], "StartExportLabelsTaskRun",
                                                    InvalidInputException)


@OPERATIONS.operation("GetMLTaskRuns")
def get_ml_task_runs(needs: MLTransformNeeds, caller: Caller, request: Request) -> Response:
    transforms(needs, caller).get(request["TransformId"])
    return {"TaskRuns": []}  # no task run ever starts


@OPERATIONS.operation("GetMLTaskRun")
def get_ml_task_run(needs: MLTransformNeeds, caller: Caller, request: Request) -> Response:
    transforms(needs, caller).get(request["TransformId"])
    raise EntityNotFoundException(f"Task run {request['TaskRunId']} not found for transform {request['TransformId']}"
                                  " (glueball runs no ML task runs).")


@OPERATIONS.operation("CancelMLTaskRun")
def cancel_ml_task_run(needs: MLTransformNeeds, caller: Caller, request: Request) -> Response:
    return get_ml_task_run(needs, caller, request)
