"""Table data in the local object store, for an endpoint that runs without Spark (``glueball server``'s)."""

from __future__ import annotations

import shutil
from pathlib import Path

from glueball.objects.locations import local_path


class ObjectStoreFiles:
    """:class:`~glueball.metastore.service.DataFiles` over the object store's folder (``s3://`` and ``file://``).

    Args:
        root: the folder behind ``s3://`` (``$GLUEBALL_HOME/s3``).
    """

    def __init__(self, root: Path) -> None:
        self.root = root

    def _path(self, location: str) -> Path:
        return local_path(location, self.root)

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
