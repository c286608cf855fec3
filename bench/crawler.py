"""Crawler benchmark: a full crawl of many small files, then an incremental one.

Run ``.venv/bin/python bench/crawler.py [--days 1000] [--files 50]``. In a temporary
``GLUEBALL_HOME`` it writes DAYS Hive partitions (``year=/month=/day=``) of FILES small
JSON-lines files each (default 1,000 × 50 = 50,000 files), crawls them into an
in-process catalog with ``CRAWL_EVERYTHING``, adds 1% new day folders and crawls
again with ``CRAWL_NEW_FOLDERS_ONLY`` (the state of the first crawl handed over),
then prints both times, files per second and the ratio, measured side by side in
the same run. Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from glueball.app import (
    Glueball,  # noqa: E402
    embedded_client,  # noqa: E402
)
from glueball.config import Settings  # noqa: E402
from glueball.crawlers import crawl_engine as engine  # noqa: E402
from glueball.crawlers.crawl_engine import CrawlOutcome, run_crawl  # noqa: E402


def write_days(root: Path, first: dt.date, days: int, files: int) -> int:
    """Write ``days`` day partitions of ``files`` JSON-lines files each; returns the file count."""
    written = 0
    for offset in range(days):
        day = first + dt.timedelta(days=offset)
        folder = root / f"year={day.year}" / f"month={day.month:02d}" / f"day={day.day:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        for index in range(files):
            lines = "".join(json.dumps({"id": index * 10 + r, "user": f"u{r}", "amount": r * 1.25,
                                        "ts": f"{day.isoformat()}T00:00:{r:02d}"}) + "\n" for r in range(5))
            (folder / f"part-{index:05d}.json").write_text(lines)
            written += 1
    return written


def crawl(glue: Any, recrawl: str, previous: dict[str, Any] | None) -> tuple[float, int, CrawlOutcome]:
    """One crawl; returns seconds, files classified and the outcome."""
    crawler = {"Name": "bench", "DatabaseName": "bench", "Targets": {"S3Targets": [{"Path": "s3://bench/events/"}]},
               "SchemaChangePolicy": {"UpdateBehavior": "LOG", "DeleteBehavior": "LOG"},
               "RecrawlPolicy": {"RecrawlBehavior": recrawl}}
    classified = 0
    real = engine.classify

    def counting(*args: Any, **kwargs: Any) -> Any:
        nonlocal classified
        classified += 1
        return real(*args, **kwargs)

    engine.classify = counting  # type: ignore[assignment]
    try:
        start = time.perf_counter()
        outcome = run_crawl(crawler, [], glue, previous, lambda *_: None, lambda: False, lambda _: None)
        return time.perf_counter() - start, classified, outcome
    finally:
        engine.classify = real  # type: ignore[assignment]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, default=1000, help="day partitions of the first crawl")
    parser.add_argument("--files", type=int, default=50, help="files per partition")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="glueball-bench-crawler-") as home:
        os.environ["GLUEBALL_HOME"] = home
        app = Glueball(Settings(home=Path(home)))
        glue = embedded_client(app)
        glue.create_database(DatabaseInput={"Name": "bench"})
        root = Path(home) / "s3" / "bench" / "events"
        start = time.perf_counter()
        files = write_days(root, dt.date(2020, 1, 1), args.days, args.files)
        print(f"wrote {files:,} files in {args.days:,} partitions in {time.perf_counter() - start:.1f} s")

        full_s, full_files, full = crawl(glue, "CRAWL_EVERYTHING", None)
        print(f"full crawl (CRAWL_EVERYTHING):          {full_s:7.2f} s  {full_files:,} files classified "
              f"({full_files / full_s:,.0f} files/s), {full.tables_created} table, "
              f"{full.partitions_created:,} partitions")

        new_days = max(1, args.days // 100)
        added = write_days(root, dt.date(2020, 1, 1) + dt.timedelta(days=args.days), new_days, args.files)
        inc_s, inc_files, inc = crawl(glue, "CRAWL_NEW_FOLDERS_ONLY", full.state)
        print(f"incremental crawl (CRAWL_NEW_FOLDERS_ONLY): {inc_s:7.2f} s  {inc_files:,} files classified "
              f"({inc_files / inc_s:,.0f} files/s) of {added:,} new, {inc.partitions_created:,} partitions added")
        parts = 0
        token = None
        while True:
            page = glue.get_partitions(DatabaseName="bench", TableName="events", **({"NextToken": token} if token
                                                                                    else {}))
            parts += len(page["Partitions"])
            token = page.get("NextToken")
            if not token:
                break
        print(f"catalog: {parts:,} partitions registered (expected {args.days + new_days:,})")
        print(f"ratio full / incremental: {full_s / inc_s:.1f}x")
        app.close()


if __name__ == "__main__":
    main()
