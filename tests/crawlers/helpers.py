"""The crawl engine's test environment: an object-store bucket and an in-process catalog."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from glueball.crawlers.crawl_engine import CrawlOutcome, run_crawl


@dataclass
class Env:
    home: Path
    glue: Any
    classified: list[str] = field(default_factory=list)
    progress: list[tuple[str, int, int]] = field(default_factory=list)

    @property
    def bucket(self) -> Path:
        return self.home / "s3" / "bkt"

    def write(self, relative: str, data: str | bytes) -> Path:
        path = self.bucket / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, bytes):
            path.write_bytes(data)
        else:
            path.write_text(data)
        return path

    def json_lines(self, relative: str, rows: list[dict[str, Any]]) -> Path:
        return self.write(relative, "".join(json.dumps(r) + "\n" for r in rows))

    def crawl(self, paths: list[str] | None = None, previous: dict[str, Any] | None = None,
              should_stop: Callable[[], bool] = lambda: False, **crawler: Any) -> CrawlOutcome:
        spec: dict[str, Any] = {"Name": "crawler1", "DatabaseName": "db"}
        if paths is not None:
            spec["Targets"] = {"S3Targets": [{"Path": p} for p in paths]}
        spec.update(crawler)
        self.classified.clear()
        return run_crawl(spec, [], self.glue, previous, lambda *p: self.progress.append(p), should_stop,
                         lambda _: None)

    def table(self, name: str) -> dict[str, Any]:
        return dict(self.glue.get_table(DatabaseName="db", Name=name)["Table"])

    def tables(self) -> dict[str, dict[str, Any]]:
        return {t["Name"]: t for t in self.glue.get_tables(DatabaseName="db")["TableList"]}

    def partitions(self, name: str) -> dict[tuple[str, ...], dict[str, Any]]:
        parts = self.glue.get_partitions(DatabaseName="db", TableName=name)["Partitions"]
        return {tuple(p["Values"]): p for p in parts}


def columns_of(table: dict[str, Any]) -> list[str]:
    """The column names of a table's StorageDescriptor."""
    return [c["Name"] for c in table["StorageDescriptor"]["Columns"]]


# the shapes of the six files of AWS's "Joining and relationalizing data" tutorial (us-legislators/all)
LEGISLATORS: dict[str, list[dict[str, Any]]] = {
    "persons.json": [{"id": "p1", "name": "Ann Smith", "given_name": "Ann", "family_name": "Smith",
                      "gender": "female", "birth_date": "1950-01-01", "image": "http://x/p1.jpg",
                      "links": [{"note": "wiki", "url": "http://w/ann"}],
                      "identifiers": [{"scheme": "bioguide", "identifier": "S001"}],
                      "contact_details": [{"type": "twitter", "value": "@ann"}]}],
    "memberships.json": [{"area_id": "a1", "on_behalf_of_id": "party/d", "organization_id": "o1",
                          "role": "member", "person_id": "p1", "legislative_period_id": "term/114",
                          "start_date": "2015-01-03", "end_date": "2017-01-03"}],
    "organizations.json": [{"id": "o1", "name": "House", "classification": "legislature", "seats": 435,
                            "type": "lower house", "image": "http://x/o1.png",
                            "links": [{"note": "site", "url": "http://house.gov"}],
                            "identifiers": [{"scheme": "wikidata", "identifier": "Q1"}],
                            "other_names": [{"name": "HoR", "lang": "en"}]}],
    "events.json": [{"id": "term/114", "name": "114th Congress", "classification": "legislative period",
                     "organization_id": "o1", "start_date": "2015-01-03", "end_date": "2017-01-03"}],
    "areas.json": [{"id": "a1", "name": "Alabama", "type": "constituency"}],
    "countries.json": [{"name": "United States", "code": "us", "country_code": "840",
                        "wikidata": "Q30", "flag": "http://x/us.png"}],
}
