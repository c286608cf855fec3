"""Glue blueprints, per account and region: created from a ZIP in the object store, read, listed, deleted.

CreateBlueprint and UpdateBlueprint read the archive at ``BlueprintLocation`` at once (glueball has no
reason to do it later) and check it (:func:`glueball.blueprints.archive.read_archive`): a good archive
is copied under ``$GLUEBALL_HOME/blueprints/`` (``BlueprintServiceLocation``) and the blueprint is
ACTIVE; a missing object or a bad archive leaves it FAILED with the reason as ``ErrorMessage``, as
Glue reports a failed creation. An update keeps the previous ACTIVE definition as
``LastActiveDefinition``. DeleteBlueprint of a missing blueprint succeeds, as Glue's does.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from pathlib import Path

from sqlalchemy import delete
from sqlalchemy.orm import Session

from glueball.api.pagination import page_in_order
from glueball.blueprints.archive import ArchiveError, BlueprintArchive, read_archive
from glueball.blueprints.models import Blueprint, BlueprintStatus, Definition
from glueball.clock import now
from glueball.errors import AlreadyExistsException, EntityNotFoundException
from glueball.store.documents import Document, Documents, document_exists
from glueball.store.engine import Store
from glueball.store.resource_tables import BLUEPRINT, BLUEPRINT_RUN, TaskRunRow
from glueball.store.scoped import Scope
from glueball.tagging.service import delete_tags, register_resource_type, write_tags

ARN_KIND = "blueprint"
NOUN = "Blueprint"


def _exists(session: Session, scope: Scope, name: str) -> bool:
    return document_exists(session, scope, BLUEPRINT, name)


register_resource_type(ARN_KIND, _exists)


def _model(document: Document) -> Blueprint:
    return Blueprint.from_spec(document.name, document.spec, document.create_time)


class BlueprintService:
    """Create, read, list, update and delete blueprints."""

    def __init__(self, store: Store, scope: Scope, home: Path, read_object: Callable[[str], bytes]) -> None:
        self.store = store
        self.scope = scope
        self.home = home
        self.read_object = read_object
        self.documents = Documents(store, scope, BLUEPRINT, NOUN, ARN_KIND)

    def archive_path(self, name: str, digest: str) -> Path:
        return self.home / "blueprints" / self.scope.account_id / self.scope.region / name / f"{digest}.zip"

    def _definition(self, name: str, description: str | None, location: str) -> tuple[Definition, str | None]:
        """The definition the archive at ``location`` gives, and what is wrong with it (None when it is good)."""
        definition = Definition(description, location, modified=now())
        try:
            data = self.read_object(location)
        except (OSError, ValueError) as exc:
            return definition, f"The blueprint archive {location} could not be read: {exc}"
        try:
            archive: BlueprintArchive = read_archive(data)
        except ArchiveError as exc:
            return definition, f"The blueprint archive {location} is not valid: {exc}"
        digest = hashlib.sha256(data).hexdigest()[:32]
        target = self.archive_path(name, digest)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        definition.service_location = target.as_uri()
        definition.parameter_spec = archive.parameter_spec
        definition.layout_generator = archive.layout_generator
        return definition, None

    def create(self, name: str, description: str | None, location: str,
               tags: Mapping[str, str] | None = None) -> Blueprint:
        """Mirror CreateBlueprint (the archive is read and checked now).

        Raises:
            AlreadyExistsException: a blueprint of this name exists.
        """
        if self.documents.find(name) is not None:  # before reading an archive for nothing
            raise AlreadyExistsException(f"{NOUN} {name} already exists.")
        definition, problem = self._definition(name, description, location)
        blueprint = Blueprint(name, definition, BlueprintStatus.FAILED if problem else BlueprintStatus.ACTIVE, problem)
        document = self.documents.create(name, blueprint.to_spec(), now(),
                                         on_create=lambda session, n: write_tags(session, self.documents.arn(n), tags))
        return _model(document)

    def get(self, name: str) -> Blueprint:
        """Mirror GetBlueprint.

        Raises:
            EntityNotFoundException: no blueprint of this name.
        """
        return _model(self.documents.get(name))

    def get_many(self, names: list[str]) -> tuple[list[Blueprint], list[str]]:
        """Mirror BatchGetBlueprints: those found, and the names not found."""
        found, missing = self.documents.get_many(names)
        return [_model(d) for d in found], missing

    def names(self, max_results: int, token: str | None,
              tags: Mapping[str, str] | None) -> tuple[list[str], str | None]:
        """Mirror ListBlueprints: names in order, with ``tags`` only those carrying all of them."""
        documents = self.documents.tagged(self.documents.all(), tags)
        page, following = page_in_order(documents, lambda d: d.name, max_results, token)
        return [d.name for d in page], following

    def update(self, name: str, description: str | None, location: str) -> Blueprint:
        """Mirror UpdateBlueprint: the new archive is read and checked; a good one becomes the definition (the old
        one, if it was ACTIVE, the LastActiveDefinition), a bad one leaves the blueprint FAILED.

        Raises:
            EntityNotFoundException: no blueprint of this name.
        """
        self.get(name)
        definition, problem = self._definition(name, description, location)

        def changed(document: Document) -> dict[str, object]:
            blueprint = _model(document)
            if blueprint.status is BlueprintStatus.ACTIVE:
                blueprint.last_active = blueprint.definition
            blueprint.definition = definition
            blueprint.status = BlueprintStatus.FAILED if problem else BlueprintStatus.ACTIVE
            blueprint.error_message = problem
            return blueprint.to_spec()

        return _model(self.documents.replace(name, changed, now()))

    def delete(self, name: str) -> None:
        """Mirror DeleteBlueprint: the blueprint, its runs and its tags go (a missing one is no error)."""
        def gone(session: Session, _name: str) -> None:
            delete_tags(session, self.documents.arn(name))
            session.execute(delete(TaskRunRow).where(
                TaskRunRow.account_id == self.scope.account_id, TaskRunRow.region == self.scope.region,
                TaskRunRow.kind == BLUEPRINT_RUN, TaskRunRow.subject == name))

        try:
            self.documents.delete(name, on_delete=gone)
        except EntityNotFoundException:
            return
