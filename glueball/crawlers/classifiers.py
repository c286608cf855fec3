"""Custom classifiers: Grok, XML, JSON and CSV (per account and region).

CreateClassifier takes exactly one of GrokClassifier, XMLClassifier,
JsonClassifier and CsvClassifier; classifier names share one namespace across
kinds. UpdateClassifier changes the given members of a classifier of the same
kind and grows its Version by one.
"""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy.exc import IntegrityError

from glueball.api.pagination import decode_token, encode_token
from glueball.clock import now
from glueball.crawlers.classify.grok import GrokError, compile_grok
from glueball.crawlers.classify.jsonfile import parse_json_path
from glueball.crawlers.models import Classifier, ClassifierKind
from glueball.crawlers.store import classifier_query, classifier_row, find_classifier_row, to_classifier
from glueball.errors import AlreadyExistsException, InvalidInputException
from glueball.store.engine import Store
from glueball.store.schema import ClassifierRow
from glueball.store.scoped import Scope

Spec = dict[str, Any]

CSV_CUSTOM_DATATYPES = ("BINARY", "BOOLEAN", "DATE", "DECIMAL", "DOUBLE", "FLOAT", "INT", "LONG", "SHORT", "STRING",
                        "TIMESTAMP")
_XML_NAME = re.compile(r"[A-Za-z_][\w.\-]*(?::[A-Za-z_][\w.\-]*)?")


def only_kind(request: Spec) -> ClassifierKind:
    """The one classifier kind a Create/UpdateClassifier request carries.

    Raises:
        InvalidInputException: none, or more than one, of the four members is given.
    """
    given = [kind for kind in ClassifierKind if request.get(kind.value) is not None]
    if len(given) != 1:
        raise InvalidInputException("Exactly one of GrokClassifier, XMLClassifier, JsonClassifier or CsvClassifier "
                                    f"must be given, got {len(given)}")
    return given[0]


def _check_grok(spec: Spec) -> None:
    try:
        compile_grok(spec["GrokPattern"], spec.get("CustomPatterns"))
    except GrokError as exc:
        raise InvalidInputException(f"Invalid GrokPattern: {exc}") from exc


def _check_xml(spec: Spec) -> None:
    row_tag = spec.get("RowTag")
    if row_tag is not None and _XML_NAME.fullmatch(row_tag) is None:
        raise InvalidInputException(f"RowTag must be an XML element name without angle brackets, got {row_tag!r}")


def _check_json(spec: Spec) -> None:
    path = spec.get("JsonPath")
    if path is None:
        return
    try:
        parse_json_path(path)
    except ValueError as exc:
        raise InvalidInputException(f"Invalid JsonPath {path!r}: {exc}; Glue supports $ followed by .key, "
                                    "['key'], [n] or [*] steps") from exc


def _check_csv(spec: Spec) -> None:
    delimiter, quote = spec.get("Delimiter"), spec.get("QuoteSymbol")
    for member, value in (("Delimiter", delimiter), ("QuoteSymbol", quote)):
        if value is not None and value in "\r\n":
            raise InvalidInputException(f"{member} cannot be a line break")
    if delimiter is not None and delimiter == quote:
        raise InvalidInputException(f"Delimiter and QuoteSymbol must differ, both are {delimiter!r}")
    header = spec.get("Header") or []
    if len(set(header)) != len(header):
        raise InvalidInputException(f"Header has a column name twice: {header}")
    datatypes = spec.get("CustomDatatypes")
    if datatypes:
        if not spec.get("CustomDatatypeConfigured"):
            raise InvalidInputException("CustomDatatypes requires CustomDatatypeConfigured true")
        for datatype in datatypes:
            if datatype not in CSV_CUSTOM_DATATYPES:
                raise InvalidInputException(f"Custom datatype {datatype!r} is not supported; supported datatypes "
                                            f"are {', '.join(CSV_CUSTOM_DATATYPES)}")


_CHECKS = {ClassifierKind.GROK: _check_grok, ClassifierKind.XML: _check_xml, ClassifierKind.JSON: _check_json,
           ClassifierKind.CSV: _check_csv}


def check_classifier(kind: ClassifierKind, spec: Spec) -> None:
    """Validate a classifier definition beyond the model's shapes, as Glue does for its kind.

    Raises:
        InvalidInputException: naming the member and the value that is wrong.
    """
    _CHECKS[kind](spec)


class ClassifierService:
    """CreateClassifier, GetClassifier(s), UpdateClassifier and DeleteClassifier."""

    def __init__(self, store: Store, scope: Scope) -> None:
        self.store = store
        self.scope = scope

    def create(self, kind: ClassifierKind, wire: Spec) -> None:
        """Mirror CreateClassifier.

        Raises:
            InvalidInputException: the definition is invalid.
            AlreadyExistsException: a classifier of this name (of any kind) exists.
        """
        name = wire["Name"]
        spec = {k: v for k, v in wire.items() if k != "Name"}
        check_classifier(kind, spec)
        stamp = now()
        try:
            with self.store.write() as session:
                session.add(ClassifierRow(account_id=self.scope.account_id, region=self.scope.region, name=name,
                                          kind=kind.value, spec=spec, version=1, create_time=stamp,
                                          update_time=stamp))
                session.flush()
        except IntegrityError as exc:
            raise AlreadyExistsException(f"Classifier with name {name} already exists") from exc

    def get(self, name: str) -> Classifier:
        """Mirror GetClassifier.

        Raises:
            EntityNotFoundException: no classifier of this name.
        """
        with self.store.read() as session:
            return to_classifier(classifier_row(session, self.scope, name))

    def find(self, names: list[str]) -> list[Classifier]:
        """The classifiers of ``names`` that exist, in the given order (a crawler's Classifiers)."""
        with self.store.read() as session:
            rows = [find_classifier_row(session, self.scope, name) for name in names]
        return [to_classifier(row) for row in rows if row is not None]

    def page(self, max_results: int, token: str | None) -> tuple[list[Classifier], str | None]:
        """Mirror GetClassifiers: classifiers in name order, a page at a time."""
        after = decode_token(token, str)
        query = classifier_query(self.scope).order_by(ClassifierRow.name).limit(max_results + 1)
        if after is not None:
            query = query.where(ClassifierRow.name > str(after))
        with self.store.read() as session:
            rows = list(session.scalars(query))
        found = [to_classifier(row) for row in rows[:max_results]]
        return found, encode_token(found[-1].name) if len(rows) > max_results else None

    def update(self, kind: ClassifierKind, wire: Spec) -> None:
        """Mirror UpdateClassifier: the given members replace the stored ones; Version grows by one.

        Raises:
            EntityNotFoundException: no classifier of this name.
            InvalidInputException: the classifier is of another kind, or the result is invalid.
        """
        name = wire["Name"]
        with self.store.write() as session:
            row = classifier_row(session, self.scope, name, for_update=True)
            if row.kind != kind.value:
                raise InvalidInputException(f"Classifier {name} is a {row.kind}, not a {kind.value}")
            spec = dict(row.spec)
            spec.update({k: v for k, v in wire.items() if k != "Name" and v is not None})
            check_classifier(kind, spec)
            row.spec = spec
            row.version += 1
            row.update_time = now()

    def delete(self, name: str) -> None:
        """Mirror DeleteClassifier.

        Raises:
            EntityNotFoundException: no classifier of this name.
        """
        with self.store.write() as session:
            session.delete(classifier_row(session, self.scope, name, for_update=True))
