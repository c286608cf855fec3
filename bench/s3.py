"""What the S3 API costs over the object store's own files, measured side by side in one run.

Run ``.venv/bin/python bench/s3.py [--rounds R] [--keys N]``. It starts one ``glueball server`` and
measures, alternating each pair so a round's ratio is fair:

- PUT and GET of a 1 MB and a 64 MB object with boto3 (one client, ``put_object`` / ``get_object``
  read to the end) against writing and reading the same bytes as a file in the same folder: MB/s
  each and the ratio (how many times slower the API is);
- ListObjectsV2 over N keys (default 100,000, in 100 folders of 1,000, written as files): keys/s
  as served (raw HTTP pages of 1,000, no client parsing), then through boto3's paginator (whose
  XML parsing is most of the time), and with ``Delimiter="/"`` (common prefixes only).

Figures are printed, never asserted. Spark reading ``s3://`` against ``file://`` is
``bench/s3_spark.py``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote

import boto3
import botocore.config
import urllib3

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.helpers import ServerProcess  # noqa: E402

MB = 1024 * 1024


def timed(call: Callable[[], Any]) -> float:
    started = time.perf_counter()
    call()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--keys", type=int, default=100_000)
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="glueball-bench-s3-"))
    server = ServerProcess(home).start()
    try:
        s3 = boto3.client("s3", endpoint_url=server.endpoint, region_name="us-east-1", aws_access_key_id="AKIDBENCH",
                          aws_secret_access_key="x",
                          config=botocore.config.Config(retries={"max_attempts": 1}, max_pool_connections=4))
        s3.create_bucket(Bucket="bench")
        folder = home / "s3" / "bench"
        print(f"PUT/GET through the S3 API vs the file system, {args.rounds} rounds (MB/s, median):")
        for size in (1 * MB, 64 * MB):
            data = os.urandom(size)
            rates: dict[str, list[float]] = {"put api": [], "put file": [], "get api": [], "get file": []}
            direct = folder / f"direct-{size}"
            for _ in range(args.rounds):
                rates["put api"].append(size / MB / timed(lambda d=data, s=size: s3.put_object(
                    Bucket="bench", Key=f"api-{s}", Body=d)))
                rates["put file"].append(size / MB / timed(lambda d=data, f=direct: f.write_bytes(d)))
                rates["get api"].append(size / MB / timed(lambda s=size: s3.get_object(
                    Bucket="bench", Key=f"api-{s}")["Body"].read()))
                rates["get file"].append(size / MB / timed(direct.read_bytes))
            median = {name: statistics.median(values) for name, values in rates.items()}
            label = f"{size // MB} MB"
            print(f"  {label:>6} PUT  api {median['put api']:8.1f}  file {median['put file']:8.1f}  "
                  f"({median['put file'] / median['put api']:.1f}x)")
            print(f"  {label:>6} GET  api {median['get api']:8.1f}  file {median['get file']:8.1f}  "
                  f"({median['get file'] / median['get api']:.1f}x)")
        listing(s3, home, args.keys)
    finally:
        server.stop()


def listing(s3: Any, home: Path, keys: int) -> None:
    folder = home / "s3" / "listed"
    per_folder = 1000
    for index in range(keys):
        sub = folder / f"part={index // per_folder:04d}"
        if index % per_folder == 0:
            sub.mkdir(parents=True)
        (sub / f"file-{index:07d}.json").write_bytes(b"{}")
    time.sleep(1.1)  # folder listings are remembered once settled for a second
    paginator = s3.get_paginator("list_objects_v2")
    print(f"ListObjectsV2 over {keys:,} keys ({keys // per_folder} folders of {per_folder:,}), pages of 1,000:")
    http = urllib3.PoolManager()
    started, counted, token = time.perf_counter(), 0, ""
    while True:  # what the server serves, without a client's XML parsing
        query = "list-type=2" + (f"&continuation-token={quote(token, safe='')}" if token else "")
        body = http.request("GET", f"{s3.meta.endpoint_url}/listed?{query}").data.decode()
        counted += body.count("<Key>")
        token = body.partition("<NextContinuationToken>")[2].partition("</NextContinuationToken>")[0]
        if not token:
            break
    assert counted == keys, counted
    elapsed = time.perf_counter() - started
    print(f"  served (raw HTTP) {counted / elapsed:10,.0f} keys/s ({elapsed:.2f} s)")
    for attempt in ("boto3", "boto3 again"):
        counted = 0
        started = time.perf_counter()
        for page in paginator.paginate(Bucket="listed"):
            counted += page["KeyCount"]
        elapsed = time.perf_counter() - started
        assert counted == keys, counted
        print(f"  {attempt:17} {counted / elapsed:10,.0f} keys/s ({elapsed:.2f} s)")
    started = time.perf_counter()
    prefixes = sum(len(page.get("CommonPrefixes", [])) for page in paginator.paginate(Bucket="listed", Delimiter="/"))
    print(f"  Delimiter=/  {prefixes:,} common prefixes in {time.perf_counter() - started:.2f} s")


if __name__ == "__main__":
    main()
