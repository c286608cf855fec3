"""CloudWatch Logs' operations (``X-Amz-Target: Logs_20140328.<Operation>``): wire shapes only."""

from __future__ import annotations

from typing import Any

from glueball.api.identity import Caller
from glueball.api.operations import Request, Response
from glueball.logs.area import OPERATIONS, LogsNeeds
from glueball.logs.errors import InvalidParameterException
from glueball.logs.events import LogEvents
from glueball.logs.groups import LogGroups
from glueball.logs.models import LogGroup, LogStream
from glueball.logs.store import group_arn, group_of_identifier, one_group, stream_arn
from glueball.store.scoped import Scope


def _scope(caller: Caller) -> Scope:
    return Scope(caller.account_id, caller.region)


def _groups(needs: LogsNeeds, caller: Caller) -> LogGroups:
    return LogGroups(needs.store, _scope(caller), needs.clock)


def _events(needs: LogsNeeds, caller: Caller, read: bool = True) -> LogEvents:
    if read:
        needs.sync(_scope(caller))
    return LogEvents(needs.store, _scope(caller), needs.clock)


def _group_wire(scope: Scope, group: LogGroup) -> dict[str, Any]:
    wire: dict[str, Any] = {"logGroupName": group.name, "creationTime": group.created, "metricFilterCount": 0,
                            "arn": group_arn(scope, group.name) + ":*", "logGroupArn": group_arn(scope, group.name),
                            "storedBytes": group.stored_bytes, "logGroupClass": group.log_group_class,
                            "deletionProtectionEnabled": group.deletion_protection}
    if group.retention_days is not None:
        wire["retentionInDays"] = group.retention_days
    if group.kms_key_id:
        wire["kmsKeyId"] = group.kms_key_id
    return wire


def _stream_wire(scope: Scope, group: str, stream: LogStream) -> dict[str, Any]:
    wire: dict[str, Any] = {"logStreamName": stream.name, "creationTime": stream.created,
                            "arn": stream_arn(scope, group, stream.name), "storedBytes": 0}
    optional = {"firstEventTimestamp": stream.first_event, "lastEventTimestamp": stream.last_event,
                "lastIngestionTime": stream.last_ingestion,
                "uploadSequenceToken": f"{stream.uploads:056d}" if stream.uploads else None}
    wire.update({key: value for key, value in optional.items() if value is not None})
    return wire


@OPERATIONS.operation("CreateLogGroup")
def create_log_group(needs: LogsNeeds, caller: Caller, request: Request) -> Response:
    _groups(needs, caller).create_group(request["logGroupName"], request.get("tags"), request.get("kmsKeyId"),
                                        request.get("logGroupClass"),
                                        bool(request.get("deletionProtectionEnabled", False)))
    return {}


@OPERATIONS.operation("DeleteLogGroup")
def delete_log_group(needs: LogsNeeds, caller: Caller, request: Request) -> Response:
    _groups(needs, caller).delete_group(request["logGroupName"])
    return {}


@OPERATIONS.operation("DescribeLogGroups")
def describe_log_groups(needs: LogsNeeds, caller: Caller, request: Request) -> Response:
    scope = _scope(caller)
    accounts = request.get("accountIdentifiers")
    if accounts and any(account != caller.account_id for account in accounts):
        raise InvalidParameterException("glueball links no accounts: accountIdentifiers may name only "
                                        f"{caller.account_id}")
    needs.sync(scope)
    groups, token = _groups(needs, caller).describe_groups(
        request.get("logGroupNamePrefix"), request.get("logGroupNamePattern"), request.get("logGroupIdentifiers"),
        request.get("logGroupClass"), request.get("limit"), request.get("nextToken"))
    response: dict[str, Any] = {"logGroups": [_group_wire(scope, group) for group in groups]}
    if token:
        response["nextToken"] = token
    return response


@OPERATIONS.operation("CreateLogStream")
def create_log_stream(needs: LogsNeeds, caller: Caller, request: Request) -> Response:
    _groups(needs, caller).create_stream(request["logGroupName"], request["logStreamName"])
    return {}


@OPERATIONS.operation("DeleteLogStream")
def delete_log_stream(needs: LogsNeeds, caller: Caller, request: Request) -> Response:
    _groups(needs, caller).delete_stream(request["logGroupName"], request["logStreamName"])
    return {}


@OPERATIONS.operation("DescribeLogStreams")
def describe_log_streams(needs: LogsNeeds, caller: Caller, request: Request) -> Response:
    scope = _scope(caller)
    group = one_group(scope, request.get("logGroupName"), request.get("logGroupIdentifier"))
    needs.sync(scope)
    streams, token = _groups(needs, caller).describe_streams(
        group, request.get("logStreamNamePrefix"), request.get("orderBy"), bool(request.get("descending", False)),
        request.get("limit"), request.get("nextToken"))
    response: dict[str, Any] = {"logStreams": [_stream_wire(scope, group, stream) for stream in streams]}
    if token:
        response["nextToken"] = token
    return response


@OPERATIONS.operation("PutRetentionPolicy")
def put_retention_policy(needs: LogsNeeds, caller: Caller, request: Request) -> Response:
    _groups(needs, caller).put_retention(request["logGroupName"], request["retentionInDays"])
    return {}


@OPERATIONS.operation("DeleteRetentionPolicy")
def delete_retention_policy(needs: LogsNeeds, caller: Caller, request: Request) -> Response:
    _groups(needs, caller).delete_retention(request["logGroupName"])
    return {}


@OPERATIONS.operation("PutLogEvents")
def put_log_events(needs: LogsNeeds, caller: Caller, request: Request) -> Response:
    if request.get("entity") is not None:
        raise InvalidParameterException("glueball does not keep entities: PutLogEvents' entity is not supported")
    events = [(int(event["timestamp"]), event["message"]) for event in request["logEvents"]]
    token, rejected = _events(needs, caller, read=False).put(request["logGroupName"], request["logStreamName"],
                                                             events)
    response: dict[str, Any] = {"nextSequenceToken": token}
    rejected_wire = rejected.wire()
    if rejected_wire:
        response["rejectedLogEventsInfo"] = rejected_wire
    return response


@OPERATIONS.operation("GetLogEvents")
def get_log_events(needs: LogsNeeds, caller: Caller, request: Request) -> Response:
    group = one_group(_scope(caller), request.get("logGroupName"), request.get("logGroupIdentifier"))
    page = _events(needs, caller).get(group, request["logStreamName"], request.get("startTime"),
                                      request.get("endTime"), request.get("nextToken"), request.get("limit"),
                                      bool(request.get("startFromHead", False)))
    return {"events": [{"timestamp": e.timestamp, "message": e.message, "ingestionTime": e.ingestion}
                       for e in page.events],
            "nextForwardToken": page.forward, "nextBackwardToken": page.backward}


@OPERATIONS.operation("FilterLogEvents")
def filter_log_events(needs: LogsNeeds, caller: Caller, request: Request) -> Response:
    group = one_group(_scope(caller), request.get("logGroupName"), request.get("logGroupIdentifier"))
    events, token = _events(needs, caller).filter(
        group, request.get("logStreamNames"), request.get("logStreamNamePrefix"), request.get("startTime"),
        request.get("endTime"), request.get("filterPattern"), request.get("nextToken"), request.get("limit"))
    response: dict[str, Any] = {
        "events": [{"logStreamName": e.stream, "timestamp": e.timestamp, "message": e.message,
                    "ingestionTime": e.ingestion, "eventId": e.event_id()} for e in events],
        "searchedLogStreams": []}
    if token:
        response["nextToken"] = token
    return response


@OPERATIONS.operation("TagLogGroup")
def tag_log_group(needs: LogsNeeds, caller: Caller, request: Request) -> Response:
    _groups(needs, caller).tag(request["logGroupName"], request["tags"])
    return {}


@OPERATIONS.operation("UntagLogGroup")
def untag_log_group(needs: LogsNeeds, caller: Caller, request: Request) -> Response:
    _groups(needs, caller).untag(request["logGroupName"], request["tags"])
    return {}


@OPERATIONS.operation("ListTagsLogGroup")
def list_tags_log_group(needs: LogsNeeds, caller: Caller, request: Request) -> Response:
    return {"tags": _groups(needs, caller).tags(request["logGroupName"])}


def _arn_group(caller: Caller, request: Request) -> str:
    arn = request["resourceArn"]
    if not arn.startswith("arn:"):
        raise InvalidParameterException(f"{arn} is not an ARN")
    return group_of_identifier(_scope(caller), arn)


@OPERATIONS.operation("TagResource")
def tag_resource(needs: LogsNeeds, caller: Caller, request: Request) -> Response:
    _groups(needs, caller).tag(_arn_group(caller, request), request["tags"], by_arn=True)
    return {}


@OPERATIONS.operation("UntagResource")
def untag_resource(needs: LogsNeeds, caller: Caller, request: Request) -> Response:
    _groups(needs, caller).untag(_arn_group(caller, request), request["tagKeys"])
    return {}


@OPERATIONS.operation("ListTagsForResource")
def list_tags_for_resource(needs: LogsNeeds, caller: Caller, request: Request) -> Response:
    return {"tags": _groups(needs, caller).tags(_arn_group(caller, request))}
