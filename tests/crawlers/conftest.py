"""The ``env`` fixture of the crawl engine tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from glueball.app import Glueball, embedded_client
from glueball.config import Settings
from glueball.crawlers import crawl_engine as engine
from tests.crawlers.helpers import Env


@pytest.fixture()
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Env]:
    monkeypatch.setenv("GLUEBALL_HOME", str(tmp_path))
    app = Glueball(Settings(home=tmp_path))
    glue = embedded_client(app)
    glue.create_database(DatabaseInput={"Name": "db"})
    result = Env(tmp_path, glue)
    real = engine.classify

    def counting(sample: Any, custom: Any, *args: Any) -> Any:
        result.classified.append(sample.uri)
        return real(sample, custom, *args)

    monkeypatch.setattr(engine, "classify", counting)
    yield result
    app.close()
