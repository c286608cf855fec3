"""The objects area: the S3 API over the object store, and what it needs."""

from __future__ import annotations

from dataclasses import dataclass

from glueball.api.operations import Operations
from glueball.objects.listing import Lister
from glueball.objects.multipart import Uploads
from glueball.objects.store import ObjectStore

S3_OPERATIONS = Operations("s3")


@dataclass(frozen=True, eq=False)
class ObjectNeeds:
    store: ObjectStore
    lister: Lister
    uploads: Uploads

    @classmethod
    def of(cls, store: ObjectStore) -> ObjectNeeds:
        return cls(store, Lister(store), Uploads(store.uploads))
