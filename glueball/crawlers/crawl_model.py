"""What a crawl is given and gives back: the crawler's options as the engine reads them, the tables it found
(:class:`TableSpec`), how it ended (:class:`CrawlOutcome`, :class:`CrawlStopped`, :class:`CrawlError`)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any


@dataclass
class CrawlOutcome:
    """What one crawl did to the catalog, the state for the next crawl, and its log lines."""

    tables_created: int = 0
    tables_updated: int = 0
    tables_deleted: int = 0
    partitions_created: int = 0
    partitions_updated: int = 0
    partitions_deleted: int = 0
    state: dict[str, Any] = field(default_factory=dict)
    messages: list[str] = field(default_factory=list)


class CrawlStopped(Exception):
    """The crawl was asked to stop; every table written so far is complete."""


class CrawlError(Exception):
    """A crawler definition this engine cannot run (the crawl then FAILED with this message)."""


@dataclass
class CrawlOptions:
    """The crawler's policies and configuration, checked (a crawler the engine cannot run is a CrawlError)."""

    name: str
    database: str
    prefix: str
    update: str
    delete: str
    recrawl: str
    combine: bool
    table_level: int | None
    inherit_partitions: bool
    merge_new_columns: bool

    @classmethod
    def of(cls, crawler: dict[str, Any]) -> CrawlOptions:
        policy = crawler.get("SchemaChangePolicy") or {}
        recrawl = (crawler.get("RecrawlPolicy") or {}).get("RecrawlBehavior") or "CRAWL_EVERYTHING"
        try:
            config = json.loads(crawler.get("Configuration") or "{}")
        except json.JSONDecodeError as exc:
            raise CrawlError(f"Configuration is not valid JSON: {exc}") from exc
        if not isinstance(config, dict):
            raise CrawlError("Configuration must be a JSON object")
        grouping = config.get("Grouping") or {}
        output = config.get("CrawlerOutput") or {}
        level = grouping.get("TableLevelConfiguration")
        if level is not None and (not isinstance(level, int) or isinstance(level, bool) or level < 1):
            raise CrawlError(f"Grouping.TableLevelConfiguration must be a positive integer, not {level!r}")
        options = cls(
            name=crawler.get("Name") or "",
            database=crawler.get("DatabaseName") or "",
            prefix=crawler.get("TablePrefix") or "",
            update=policy.get("UpdateBehavior") or "UPDATE_IN_DATABASE",
            delete=policy.get("DeleteBehavior") or "DEPRECATE_IN_DATABASE",
            recrawl=recrawl,
            combine=grouping.get("TableGroupingPolicy") == "CombineCompatibleSchemas",
            table_level=level,
            inherit_partitions=(output.get("Partitions") or {}).get("AddOrUpdateBehavior") == "InheritFromTable",
            merge_new_columns=(output.get("Tables") or {}).get("AddOrUpdateBehavior") == "MergeNewColumns",
        )
        if recrawl == "CRAWL_EVENT_MODE":
            raise CrawlError("RecrawlBehavior CRAWL_EVENT_MODE (S3 event notifications) is not supported by glueball")
        if recrawl not in ("CRAWL_EVERYTHING", "CRAWL_NEW_FOLDERS_ONLY"):
            raise CrawlError(f"Unknown RecrawlBehavior {recrawl!r}")
        if recrawl == "CRAWL_NEW_FOLDERS_ONLY" and (options.update != "LOG" or options.delete != "LOG"):
            raise CrawlError("The SchemaChangePolicy.DeleteBehavior and SchemaChangePolicy.UpdateBehavior must be "
                             "LOG when RecrawlBehavior is CRAWL_NEW_FOLDERS_ONLY")
        return options


@dataclass
class TableSpec:
    """A table to write: its TableInput, its partitions, and how far the crawl may change it."""

    database: str
    name: str
    table_input: dict[str, Any]
    partitions: list[dict[str, Any]]           # PartitionInputs (Values, StorageDescriptor, Parameters)
    location: str
    catalog_target: bool = False               # an existing table named by a CatalogTarget
    complete: bool = True                      # every partition is listed (False in incremental crawls)
    state_key: str = ""
    state_root: str = ""
    state_entry: dict[str, Any] | None = None
