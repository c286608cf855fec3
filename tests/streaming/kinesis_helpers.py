"""Test helpers for Kinesis: a ``moto_server`` process (moto[server]) as the endpoint, streams, records.

moto 5.2's SplitShard re-puts the parent's records into the children, which Kinesis does not do (a
parent keeps its records until they expire), and its puts still go to the closed parent (the first
shard whose hash range holds the key). The server is started through ``_SERVER_SCRIPT``, which keeps
the records in the parent and sends new records to open shards only, so resharding is tested as
Kinesis behaves.
"""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.streaming.helpers import free_port, stop_process, wait_ready

_SERVER_SCRIPT = """
import sys
from collections import OrderedDict

from moto.kinesis.models import Stream
from moto.server import main

_split = Stream.split_shard
_shard_for_key = Stream.get_shard_for_key


def split_keeping_records(self, shard_to_split, new_starting_hash_key):
    parent = self.shards[shard_to_split]
    records, parent.records = parent.records, OrderedDict()
    try:
        _split(self, shard_to_split, new_starting_hash_key)
    finally:
        parent.records = records


def open_shard_for_key(self, partition_key, explicit_hash_key):
    every_shard = self.shards
    self.shards = {shard_id: shard for shard_id, shard in every_shard.items() if shard.is_open}
    try:
        return _shard_for_key(self, partition_key, explicit_hash_key)
    finally:
        self.shards = every_shard


Stream.split_shard = split_keeping_records
Stream.get_shard_for_key = open_shard_for_key
main(["-H", "127.0.0.1", "-p", sys.argv[1]])
"""


@dataclass
class MotoServer:
    """A running ``moto_server`` on 127.0.0.1."""

    process: subprocess.Popen[bytes]
    port: int

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @classmethod
    def start(cls, workdir: Path) -> MotoServer:
        import urllib.request

        port = free_port()
        log_path = workdir / "moto.log"
        with log_path.open("wb") as log:
            process = subprocess.Popen([sys.executable, "-c", _SERVER_SCRIPT, str(port)], stdout=log,
                                       stderr=subprocess.STDOUT, cwd=workdir)
        server = cls(process, port)
        wait_ready(process, log_path, lambda: urllib.request.urlopen(f"{server.endpoint}/moto-api/", timeout=1).close(),
                   f"moto_server on port {port}")
        return server

    def stop(self) -> None:
        stop_process(self.process)

    def client(self) -> Any:
        import boto3

        return boto3.client("kinesis", endpoint_url=self.endpoint, region_name="us-east-1")

    def create_stream(self, shards: int = 1) -> str:
        name = f"s-{uuid.uuid4().hex[:8]}"
        self.client().create_stream(StreamName=name, ShardCount=shards)
        return name

    def put_json(self, stream: str, events: Sequence[dict[str, Any]]) -> None:
        """One PutRecords call per 500 events, partition key = the event's id."""
        client = self.client()
        for i in range(0, len(events), 500):
            chunk = events[i:i + 500]
            answer = client.put_records(StreamName=stream, Records=[
                {"Data": json.dumps(e).encode(), "PartitionKey": str(e.get("id", j))} for j, e in enumerate(chunk)])
            assert answer.get("FailedRecordCount", 0) == 0

    def put_raw(self, stream: str, payloads: Sequence[bytes], key: str = "k") -> None:
        self.client().put_records(StreamName=stream, Records=[{"Data": p, "PartitionKey": key} for p in payloads])


def kinesis_options(server: MotoServer, stream: str, **options: Any) -> dict[str, Any]:
    return {"streamName": stream, "endpointUrl": server.endpoint, "startingPosition": "TRIM_HORIZON", **options}
