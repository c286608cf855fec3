"""What a ``glueball server`` imports before it serves: not the libraries only some requests need.

pyarrow (with numpy), fastavro, sqlglot, jsonschema, protobuf and pydantic are imported by the request that needs
them (a crawl's Parquet footer, a schema version registered, an Athena query planned, an Iceberg REST body): at
start they were a quarter of the server's ~2 s, paid by every start although most servers never use some of them.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from glueball.registry import compat

ON_DEMAND = ("pyarrow", "numpy", "fastavro", "sqlglot", "jsonschema", "google.protobuf", "pydantic")


def test_the_server_module_imports_none_of_the_libraries_only_some_requests_need() -> None:
    code = ("import json, sys; import glueball.server; "
            f"print(json.dumps([m for m in {list(ON_DEMAND)!r} if m in sys.modules]))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []


def test_a_format_s_compatibility_rules_load_when_first_asked() -> None:
    avro = '{"type": "record", "name": "r", "fields": [{"name": "a", "type": "int"}]}'
    compat.validate("AVRO", avro)
    assert "AVRO" in compat._RULES
    assert compat.canonical("JSON", '{"type": "object"}') == compat.canonical("JSON", '{ "type" : "object" }')
    with pytest.raises(ValueError, match="unknown data format 'XML'"):
        compat.validate("XML", "<a/>")
    assert "XML" not in compat._RULES
