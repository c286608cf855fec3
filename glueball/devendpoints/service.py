"""Glue development endpoints as stored resources, per account and region.

CreateDevEndpoint's checks are Glue's: ``WorkerType`` and ``NumberOfWorkers`` come together and
exclude ``NumberOfNodes``; at most five public keys; a named security configuration exists. The
endpoint is READY at once and has no address: glueball starts no endpoint process (interactive
sessions are the way to a Spark driver, docs/dev-endpoints.md).
"""

from __future__ import annotations

from collections.abc import Mapping

from sqlalchemy.orm import Session

from glueball.api.pagination import page_in_order
from glueball.clock import now
from glueball.devendpoints.models import DEFAULT_NODES, MAX_PUBLIC_KEYS, DevEndpoint, DevEndpointChange
from glueball.errors import InvalidInputException, ValidationException
from glueball.store.documents import Document, Documents, document_exists
from glueball.store.engine import Store
from glueball.store.resource_tables import DEV_ENDPOINT, SECURITY_CONFIGURATION
from glueball.store.scoped import Scope
from glueball.tagging.service import delete_tags, register_resource_type, write_tags

ARN_KIND = "devEndpoint"


def dev_endpoints(store: Store, scope: Scope) -> Documents:
    return Documents(store, scope, DEV_ENDPOINT, "Dev endpoint", ARN_KIND)


def _exists(session: Session, scope: Scope, name: str) -> bool:
    return document_exists(session, scope, DEV_ENDPOINT, name)


register_resource_type(ARN_KIND, _exists)


def _model(document: Document) -> DevEndpoint:
    return DevEndpoint.from_spec(document.name, document.spec, document.create_time, document.update_time)


def _check_keys(endpoint: DevEndpoint) -> None:
    keys = endpoint.public_keys + ([endpoint.public_key] if endpoint.public_key else [])
    if len(set(keys)) > MAX_PUBLIC_KEYS:
        raise ValidationException(f"A dev endpoint has at most {MAX_PUBLIC_KEYS} public keys, got {len(set(keys))}")


def check_capacity(settings: Mapping[str, object]) -> None:
    """Glue's rules for a dev endpoint's capacity.

    Raises:
        InvalidInputException: a worker type without a number of workers (or the reverse), or both a worker type
            and NumberOfNodes.
    """
    workers, kind = settings.get("NumberOfWorkers"), settings.get("WorkerType")
    if (workers is None) != (kind is None):
        raise InvalidInputException("WorkerType and NumberOfWorkers must be given together")
    if kind is not None and settings.get("NumberOfNodes") is not None:
        raise InvalidInputException("NumberOfNodes cannot be given with WorkerType and NumberOfWorkers")
    if isinstance(workers, int) and workers < 1:
        raise InvalidInputException(f"NumberOfWorkers must be at least 1, got {workers}")


class DevEndpointService:
    """Create, read, list, update and delete dev endpoints (no endpoint process runs)."""

    def __init__(self, store: Store, scope: Scope) -> None:
        self.store = store
        self.scope = scope
        self.documents = dev_endpoints(store, scope)

    def create(self, endpoint: DevEndpoint, tags: Mapping[str, str] | None = None) -> DevEndpoint:
        """Mirror CreateDevEndpoint.

        Raises:
            InvalidInputException: as :func:`check_capacity`, or the named security configuration does not exist.
            ValidationException: more than five public keys.
            AlreadyExistsException: a dev endpoint of this name exists.
        """
        check_capacity(endpoint.settings)
        _check_keys(endpoint)
        if endpoint.settings.get("WorkerType") is None and endpoint.settings.get("NumberOfNodes") is None:
            endpoint.settings["NumberOfNodes"] = DEFAULT_NODES
        configuration = endpoint.settings.get("SecurityConfiguration")
        if configuration is not None and \
                Documents(self.store, self.scope, SECURITY_CONFIGURATION, "").find(str(configuration)) is None:
            raise InvalidInputException(f"Security configuration {configuration} not found.")
        document = self.documents.create(endpoint.name, endpoint.to_spec(), now(),
                                         on_create=lambda session, name: write_tags(session, self.documents.arn(name),
                                                                                    tags))
        return _model(document)

    def get(self, name: str) -> DevEndpoint:
        """Mirror GetDevEndpoint.

        Raises:
            EntityNotFoundException: no dev endpoint of this name.
        """
        return _model(self.documents.get(name))

    def get_many(self, names: list[str]) -> tuple[list[DevEndpoint], list[str]]:
        """Mirror BatchGetDevEndpoints: the endpoints found, and the names not found."""
        found, missing = self.documents.get_many(names)
        return [_model(d) for d in found], missing

    def page(self, max_results: int, token: str | None,
             tags: Mapping[str, str] | None = None) -> tuple[list[DevEndpoint], str | None]:
        """Mirror GetDevEndpoints and ListDevEndpoints (with ``tags``: only those carrying all of them)."""
        documents = self.documents.tagged(self.documents.all(), tags)
        found, following = page_in_order(documents, lambda d: d.name, max_results, token)
        return [_model(d) for d in found], following

    def update(self, name: str, change: DevEndpointChange) -> None:
        """Mirror UpdateDevEndpoint: keys, custom library paths and arguments change as asked.

        Raises:
            EntityNotFoundException: no dev endpoint of this name.
            InvalidInputException: a key to delete that the endpoint does not have.
            ValidationException: more than five public keys would result.
        """
        def changed(document: Document) -> dict[str, object]:
            endpoint = _model(document)
            if change.public_key is not None:
                endpoint.public_key = change.public_key
            missing = [key for key in change.delete_public_keys if key not in endpoint.public_keys]
            if missing:
                raise InvalidInputException(f"Dev endpoint {name} has no public key {missing[0]!r} to delete")
            endpoint.public_keys = [k for k in endpoint.public_keys if k not in change.delete_public_keys]
            endpoint.public_keys += [k for k in change.add_public_keys if k not in endpoint.public_keys]
            _check_keys(endpoint)
            if change.python_libs is not None:
                endpoint.settings["ExtraPythonLibsS3Path"] = change.python_libs
            if change.jars is not None:
                endpoint.settings["ExtraJarsS3Path"] = change.jars
            for key in change.delete_arguments:
                endpoint.arguments.pop(key, None)
            endpoint.arguments.update(change.add_arguments)
            endpoint.last_update_status = "COMPLETED"
            return endpoint.to_spec()

        self.documents.replace(name, changed, now())

    def delete(self, name: str) -> None:
        """Mirror DeleteDevEndpoint (its tags go with it).

        Raises:
            EntityNotFoundException: no dev endpoint of this name.
        """
        self.documents.delete(name, on_delete=lambda session, gone: delete_tags(session, self.documents.arn(gone)))
