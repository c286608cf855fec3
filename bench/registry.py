"""The schema registry's costs: SerDe deserialization against bare fastavro, and RegisterSchemaVersion on a
schema with 200 versions under BACKWARD_ALL.

Run ``.venv/bin/python bench/registry.py [--records N] [--rounds R]``. An embedded glueball (a temporary
GLUEBALL_HOME, SQLite) holds the registry.

1. Deserialize throughput: N registry-framed Avro records (a 6-field record) decoded with
   ``glueball.registry.serde.Deserializer`` against the same payloads without the frame decoded with
   ``fastavro.schemaless_reader`` and the parsed schema (the floor: no frame, no lookup). Rounds
   alternate the two; the best round of each is kept; the ratio's goal is at most 1.3x.
2. RegisterSchemaVersion latency: a schema grown to 200 versions (each adding a field with a default),
   then set to BACKWARD_ALL, takes new versions (each checked against all 200 earlier ones); against the
   same call on a schema with one version under BACKWARD_ALL. Median milliseconds of each, and the ratio.

Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import fastavro  # noqa: E402

from glueball.app import Glueball  # noqa: E402
from glueball.config import Settings  # noqa: E402
from glueball.registry.serde import Deserializer, Serializer  # noqa: E402

RECORD = {"type": "record", "name": "Trade", "fields": [
    {"name": "id", "type": "long"}, {"name": "symbol", "type": "string"}, {"name": "price", "type": "double"},
    {"name": "qty", "type": "int"}, {"name": "side", "type": {"type": "enum", "name": "Side", "symbols": ["B", "S"]}},
    {"name": "note", "type": ["null", "string"], "default": None}]}


def trades(count: int) -> list[dict[str, Any]]:
    return [{"id": i, "symbol": f"SYM{i % 50}", "price": 100 + i / 7, "qty": i % 1000, "side": "BS"[i % 2],
             "note": None if i % 3 else f"n{i}"} for i in range(count)]


def deserialize_bench(client: Any, count: int, rounds: int) -> None:
    serializer = Serializer(client, "trades", json.dumps(RECORD), auto_register=True)
    framed = [serializer.serialize(t) for t in trades(count)]
    bare = [f[18:] for f in framed]
    schema = fastavro.parse_schema(RECORD)
    deserializer = Deserializer(client)
    deserializer.deserialize(framed[0])  # the version is fetched once, before timing

    def ours() -> float:
        started = time.perf_counter()
        decode = deserializer.deserialize
        for data in framed:
            decode(data)
        return time.perf_counter() - started

    def fastavro_bare() -> float:
        started = time.perf_counter()
        reader = fastavro.schemaless_reader
        for payload in bare:
            reader(io.BytesIO(payload), schema, None)
        return time.perf_counter() - started

    times: dict[str, list[float]] = {"serde": [], "fastavro": []}
    for _ in range(rounds):
        times["fastavro"].append(fastavro_bare())
        times["serde"].append(ours())
    best = {name: min(values) for name, values in times.items()}
    print(f"deserialize {count} Avro records (best of {rounds} rounds):")
    for name, seconds in best.items():
        print(f"  {name:9s} {count / seconds:12,.0f} records/s  ({seconds * 1e6 / count:.2f} us/record)")
    print(f"  ratio serde/fastavro: {best['serde'] / best['fastavro']:.2f}x (goal <= 1.3x)")


def grown_schema(client: Any, name: str, versions: int) -> dict[str, str]:
    fields = [{"name": "id", "type": "long"}]
    schema_id = {"RegistryName": "bench", "SchemaName": name}
    client.create_schema(RegistryId={"RegistryName": "bench"}, SchemaName=name, DataFormat="AVRO",
                         Compatibility="NONE", SchemaDefinition=json.dumps(
                             {"type": "record", "name": "Grown", "fields": fields}))
    for number in range(2, versions + 1):
        fields.append({"name": f"f{number}", "type": "string", "default": ""})
        client.register_schema_version(SchemaId=schema_id, SchemaDefinition=json.dumps(
            {"type": "record", "name": "Grown", "fields": fields}))
    client.update_schema(SchemaId=schema_id, Compatibility="BACKWARD_ALL",
                         SchemaVersionNumber={"VersionNumber": 1})
    return schema_id


def register_latency(client: Any, schema_id: dict[str, str], calls: int) -> list[float]:
    latest = client.get_schema_version(SchemaId=schema_id, SchemaVersionNumber={"LatestVersion": True})
    fields = json.loads(latest["SchemaDefinition"])["fields"]
    spent: list[float] = []
    for index in range(calls):
        fields = [*fields, {"name": f"extra{index}", "type": "int", "default": 0}]
        definition = json.dumps({"type": "record", "name": "Grown", "fields": fields})
        started = time.perf_counter()
        answer = client.register_schema_version(SchemaId=schema_id, SchemaDefinition=definition)
        spent.append(time.perf_counter() - started)
        assert answer["Status"] == "AVAILABLE", answer
    return spent


def register_bench(client: Any, calls: int) -> None:
    client.create_registry(RegistryName="bench")
    big = grown_schema(client, "two-hundred", 200)
    small = grown_schema(client, "one", 1)
    big_ms = statistics.median(register_latency(client, big, calls)) * 1000
    small_ms = statistics.median(register_latency(client, small, calls)) * 1000
    print(f"RegisterSchemaVersion under BACKWARD_ALL (median of {calls} calls, in-process):")
    print(f"  schema with 200 versions: {big_ms:8.2f} ms")
    print(f"  schema with 1 version:    {small_ms:8.2f} ms")
    print(f"  ratio: {big_ms / small_ms:.1f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as home:
        glue = Glueball(Settings(home=Path(home)))
        try:
            client = glue.client()
            deserialize_bench(client, args.records, args.rounds)
            register_bench(client, args.calls)
        finally:
            glue.close()


if __name__ == "__main__":
    main()
