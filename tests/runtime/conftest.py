"""One Spark session for the runtime tests, with an embedded catalog in a temporary GLUEBALL_HOME."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture(scope="session")
def glue_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """GLUEBALL_HOME for the whole runtime session (object store under it at s3/)."""
    from glueball.runtime.client import reset_client

    home = tmp_path_factory.mktemp("glueball-home")
    patcher = pytest.MonkeyPatch()
    patcher.setenv("GLUEBALL_HOME", str(home))
    patcher.delenv("GLUEBALL_ENDPOINT", raising=False)
    reset_client()
    yield home
    reset_client()
    patcher.undo()


@pytest.fixture(scope="session")
def glue_context(glue_home: Path) -> Any:
    """The GlueContext over the process's Spark session (local[2]), whose s3:// is ``glue_home``'s object store
    (the session may have been made earlier, by a test of another home)."""
    from glueball.runtime.context import GlueContext
    from glueball.runtime.spark import serve_this_home
    from tests.helpers import shared_spark

    context = GlueContext(shared_spark().sparkContext)
    serve_this_home(context.spark_session)
    return context


@pytest.fixture(scope="session")
def spark(glue_context: Any) -> Any:
    return glue_context.spark_session
