"""Wire handlers of crawlers and classifiers."""

from __future__ import annotations

from typing import Any

from glueball.api.identity import Caller
from glueball.api.operations import Request, Response
from glueball.api.pagination import page_size, paged
from glueball.clock import now
from glueball.crawlers.area import OPERATIONS, CrawlerNeeds
from glueball.crawlers.classifiers import ClassifierService, only_kind
from glueball.crawlers.models import (
    LOG_GROUP,
    Classifier,
    Crawl,
    Crawler,
    CrawlerMetrics,
    CrawlerState,
    ScheduleState,
)
from glueball.crawlers.schedule import check_can_start, check_can_stop
from glueball.crawlers.service import CrawlerService, CrawlFilter, crawler_spec, dpu_hours
from glueball.store.scoped import Scope

LIST_CRAWLS_DEFAULT, LIST_CRAWLS_MAX = 20, 100


def _scope(caller: Caller) -> Scope:
    return Scope(caller.account_id, caller.region)


def crawlers(needs: CrawlerNeeds, caller: Caller) -> CrawlerService:
    return CrawlerService(needs.store, _scope(caller))


def classifiers(needs: CrawlerNeeds, caller: Caller) -> ClassifierService:
    return ClassifierService(needs.store, _scope(caller))


def crawler_wire(crawler: Crawler, catalog_id: str) -> dict[str, Any]:
    """The model's Crawler structure."""
    wire: dict[str, Any] = {"Name": crawler.name}
    wire.update(crawler.spec)
    wire["State"] = crawler.state.value
    if crawler.schedule is not None:
        wire["Schedule"] = {"ScheduleExpression": crawler.schedule.expression, "State": crawler.schedule.state.value}
    elapsed = 0
    if crawler.state is not CrawlerState.READY and crawler.crawl_start is not None:
        elapsed = int(max(0.0, now() - crawler.crawl_start) * 1000)
    wire["CrawlElapsedTime"] = elapsed
    wire["CreationTime"] = crawler.create_time
    wire["LastUpdated"] = crawler.update_time
    if crawler.last_crawl is not None:
        last = crawler.last_crawl
        wire["LastCrawl"] = {"Status": last.status.value, "LogGroup": LOG_GROUP,
                             "LogStream": last.log_stream or crawler.name, "MessagePrefix": last.crawl_id,
                             "StartTime": last.start_time}
        if last.error_message:
            wire["LastCrawl"]["ErrorMessage"] = last.error_message
    wire["Version"] = crawler.version
    wire["CatalogId"] = catalog_id
    return wire


def crawl_wire(crawl: Crawl) -> dict[str, Any]:
    """The model's CrawlerHistory structure (a row of ListCrawls)."""
    stats = crawl.stats
    wire: dict[str, Any] = {
        "CrawlId": crawl.crawl_id,
        "State": crawl.state.value,
        "StartTime": crawl.start_time,
        "LogGroup": LOG_GROUP,
        "LogStream": crawl.crawler_name,
        "MessagePrefix": crawl.crawl_id,
        "DPUHour": dpu_hours(crawl),
    }
    if crawl.end_time is not None:
        wire["EndTime"] = crawl.end_time
        summary = {"TABLE": {"ADD": stats.tables_created, "UPDATE": stats.tables_updated,
                             "DELETE": stats.tables_deleted},
                   "PARTITION": {"ADD": stats.partitions_created, "UPDATE": stats.partitions_updated,
                                 "DELETE": stats.partitions_deleted}}
        wire["Summary"] = str(summary).replace("'", '"')
    if crawl.error_message:
        wire["ErrorMessage"] = crawl.error_message
    return wire


def metrics_wire(metrics: CrawlerMetrics) -> dict[str, Any]:
    return {
        "CrawlerName": metrics.crawler_name,
        "TimeLeftSeconds": round(metrics.time_left_seconds, 3),
        "StillEstimating": metrics.still_estimating,
        "LastRuntimeSeconds": round(metrics.last_runtime_seconds, 3),
        "MedianRuntimeSeconds": round(metrics.median_runtime_seconds, 3),
        "TablesCreated": metrics.tables_created,
        "TablesUpdated": metrics.tables_updated,
        "TablesDeleted": metrics.tables_deleted,
    }


def classifier_wire(classifier: Classifier) -> dict[str, Any]:
    """The model's Classifier structure: one member named after the classifier's kind."""
    body: dict[str, Any] = {"Name": classifier.name}
    body.update(classifier.spec)
    body["CreationTime"] = classifier.create_time
    body["LastUpdated"] = classifier.update_time
    body["Version"] = classifier.version
    return {classifier.kind.value: body}


# ---------------------------------------------------------------- crawlers

@OPERATIONS.operation("CreateCrawler")
def create_crawler(needs: CrawlerNeeds, caller: Caller, request: Request) -> Response:
    crawlers(needs, caller).create(request["Name"], crawler_spec(request), request.get("Schedule"),
                                 request.get("Tags"))
    if request.get("Schedule"):
        crawlers(needs, caller).arm_schedule(request["Name"], needs.clock.now())
    return {}


@OPERATIONS.operation("GetCrawler")
def get_crawler(needs: CrawlerNeeds, caller: Caller, request: Request) -> Response:
    return {"Crawler": crawler_wire(crawlers(needs, caller).get(request["Name"]), caller.account_id)}


@OPERATIONS.operation("GetCrawlers")
def get_crawlers(needs: CrawlerNeeds, caller: Caller, request: Request) -> Response:
    found, token = crawlers(needs, caller).page(page_size(request.get("MaxResults")), request.get("NextToken"))
    return paged("Crawlers", [crawler_wire(c, caller.account_id) for c in found], token)


@OPERATIONS.operation("BatchGetCrawlers")
def batch_get_crawlers(needs: CrawlerNeeds, caller: Caller, request: Request) -> Response:
    found, missing = crawlers(needs, caller).get_many(request["CrawlerNames"])
    return {"Crawlers": [crawler_wire(c, caller.account_id) for c in found], "CrawlersNotFound": missing}


@OPERATIONS.operation("ListCrawlers")
def list_crawlers(needs: CrawlerNeeds, caller: Caller, request: Request) -> Response:
    names, token = crawlers(needs, caller).names(page_size(request.get("MaxResults")), request.get("NextToken"),
                                               request.get("Tags"))
    return paged("CrawlerNames", names, token)


@OPERATIONS.operation("UpdateCrawler")
def update_crawler(needs: CrawlerNeeds, caller: Caller, request: Request) -> Response:
    crawlers(needs, caller).update(request["Name"], request)
    crawlers(needs, caller).arm_schedule(request["Name"], needs.clock.now())
    return {}


@OPERATIONS.operation("DeleteCrawler")
def delete_crawler(needs: CrawlerNeeds, caller: Caller, request: Request) -> Response:
    crawlers(needs, caller).delete(request["Name"])
    return {}


@OPERATIONS.operation("StartCrawler")
def start_crawler(needs: CrawlerNeeds, caller: Caller, request: Request) -> Response:
    needs.crawls.start(_scope(caller), caller.access_key, request["Name"])
    return {}


@OPERATIONS.operation("StopCrawler")
def stop_crawler(needs: CrawlerNeeds, caller: Caller, request: Request) -> Response:
    crawlers(needs, caller).request_stop(request["Name"])
    needs.crawls.signal_stop(_scope(caller), request["Name"])
    return {}


@OPERATIONS.operation("GetCrawlerMetrics")
def get_crawler_metrics(needs: CrawlerNeeds, caller: Caller, request: Request) -> Response:
    names = request.get("CrawlerNameList")
    found, token = crawlers(needs, caller).metrics(names or None, page_size(request.get("MaxResults")),
                                                 request.get("NextToken"))
    return paged("CrawlerMetricsList", [metrics_wire(m) for m in found], token)


@OPERATIONS.operation("ListCrawls")
def list_crawls(needs: CrawlerNeeds, caller: Caller, request: Request) -> Response:
    filters = [CrawlFilter.parse(f) for f in request.get("Filters") or []]
    size = page_size(request.get("MaxResults"), default=LIST_CRAWLS_DEFAULT, limit=LIST_CRAWLS_MAX)
    found, token = crawlers(needs, caller).crawls(request["CrawlerName"], filters, size, request.get("NextToken"))
    return paged("Crawls", [crawl_wire(c) for c in found], token)


@OPERATIONS.operation("StartCrawlerSchedule")
def start_crawler_schedule(needs: CrawlerNeeds, caller: Caller, request: Request) -> Response:
    crawlers(needs, caller).set_schedule_state(request["CrawlerName"], ScheduleState.SCHEDULED, check_can_start)
    crawlers(needs, caller).arm_schedule(request["CrawlerName"], needs.clock.now())
    return {}


@OPERATIONS.operation("StopCrawlerSchedule")
def stop_crawler_schedule(needs: CrawlerNeeds, caller: Caller, request: Request) -> Response:
    crawlers(needs, caller).set_schedule_state(request["CrawlerName"], ScheduleState.NOT_SCHEDULED, check_can_stop)
    return {}


@OPERATIONS.operation("UpdateCrawlerSchedule")
def update_crawler_schedule(needs: CrawlerNeeds, caller: Caller, request: Request) -> Response:
    crawlers(needs, caller).update_schedule(request["CrawlerName"], request.get("Schedule"))
    crawlers(needs, caller).arm_schedule(request["CrawlerName"], needs.clock.now())
    return {}


# ---------------------------------------------------------------- classifiers

@OPERATIONS.operation("CreateClassifier")
def create_classifier(needs: CrawlerNeeds, caller: Caller, request: Request) -> Response:
    kind = only_kind(request)
    classifiers(needs, caller).create(kind, request[kind.value])
    return {}


@OPERATIONS.operation("GetClassifier")
def get_classifier(needs: CrawlerNeeds, caller: Caller, request: Request) -> Response:
    return {"Classifier": classifier_wire(classifiers(needs, caller).get(request["Name"]))}


@OPERATIONS.operation("GetClassifiers")
def get_classifiers(needs: CrawlerNeeds, caller: Caller, request: Request) -> Response:
    found, token = classifiers(needs, caller).page(page_size(request.get("MaxResults")), request.get("NextToken"))
    return paged("Classifiers", [classifier_wire(c) for c in found], token)


@OPERATIONS.operation("UpdateClassifier")
def update_classifier(needs: CrawlerNeeds, caller: Caller, request: Request) -> Response:
    kind = only_kind(request)
    classifiers(needs, caller).update(kind, request[kind.value])
    return {}


@OPERATIONS.operation("DeleteClassifier")
def delete_classifier(needs: CrawlerNeeds, caller: Caller, request: Request) -> Response:
    classifiers(needs, caller).delete(request["Name"])
    return {}
