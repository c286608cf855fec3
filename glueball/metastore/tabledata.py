"""Table data in the local object store, for an endpoint that runs without Spark (``glueball server``'s)."""

from __future__ import annotations

import shutil
from pathlib import Path

from glueball.objects.access import LocalObjects
from glueball.objects.locations import is_s3


class ObjectStoreFiles:
    """:class:`~glueball.metastore.service.DataFiles` over the local object store's folder (``s3://`` and
    ``file://``).

    Args:
        objects: the local object store (``$GLUEBALL_HOME/s3``).
    """

    def __init__(self, objects: LocalObjects) -> None:
        self.objects = objects

    def _path(self, location: str) -> Path:
        return self.objects.path(location) if is_s3(location) else Path(location.removeprefix("file://"))

    def remove(self, location: str) -> None:
        path = self._path(location)
        if path.is_dir():
            shutil.rmtree(path)
        elif path.exists():
            path.unlink()

    def move(self, source: str, target: str) -> None:
        path = self._path(source)
        if not path.exists():
            return
        destination = self._path(target)
        destination.parent.mkdir(parents=True, exist_ok=True)
        path.rename(destination)

    def make_folder(self, location: str) -> None:
        self._path(location).mkdir(parents=True, exist_ok=True)
