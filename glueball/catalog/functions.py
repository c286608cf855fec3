"""User-defined functions of the Data Catalog (Hive UDFs registered in a database)."""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import ColumnElement, or_, select, tuple_
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from glueball.api.pagination import decode_token, encode_token
from glueball.catalog.lookup import database_row, fold
from glueball.catalog.models import Scope, Spec
from glueball.clock import now
from glueball.errors import AlreadyExistsException, EntityNotFoundException, InvalidInputException
from glueball.store.engine import Store
from glueball.store.schema import DatabaseRow, FunctionRow


@dataclass
class UserDefinedFunction:
    """A function of a database; ``spec`` holds the UserDefinedFunctionInput members but the name."""

    database_name: str
    name: str
    spec: Spec = field(default_factory=dict)
    create_time: float | None = None

    @property
    def class_name(self) -> str | None:
        return self.spec.get("ClassName")

    @property
    def function_type(self) -> str | None:
        return self.spec.get("FunctionType")


def name_pattern(pattern: str) -> ColumnElement[bool]:
    """A Hive-style function name pattern as a SQL condition.

    ``*`` matches any characters and ``|`` separates alternatives; everything else
    is literal. Matching is case-insensitive, like the (lowercased) names.
    """
    alternatives = []
    for alternative in fold(pattern).split("|"):
        escaped = alternative.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        alternatives.append(FunctionRow.name.like(escaped.replace("*", "%"), escape="\\"))
    return or_(*alternatives)


def _to_model(row: FunctionRow, database: str) -> UserDefinedFunction:
    return UserDefinedFunction(database_name=database, name=row.name, spec=row.spec, create_time=row.create_time)


def _function_row(session: Session, scope: Scope, database: str, name: str,
                  for_update: bool = False) -> FunctionRow:
    database_id = database_row(session, scope, database).id
    query = select(FunctionRow).where(FunctionRow.database_id == database_id, FunctionRow.name == fold(name))
    if for_update:
        query = query.with_for_update()
    row = session.scalars(query).one_or_none()
    if row is None:
        raise EntityNotFoundException(f"Function {fold(name)} not found in database {fold(database)}.")
    return row


def _require_name(function: UserDefinedFunction) -> None:
    if not function.name:
        raise InvalidInputException("FunctionInput.FunctionName is required")
    if not function.class_name:
        raise InvalidInputException(f"FunctionInput.ClassName is required for function {fold(function.name)}")


class FunctionService:
    """Create, read, update and delete user-defined functions (per account and region)."""

    def __init__(self, store: Store, scope: Scope) -> None:
        self.store = store
        self.scope = scope

    def create(self, database: str, function: UserDefinedFunction) -> None:
        """Mirror CreateUserDefinedFunction: names fold to lowercase; duplicates are AlreadyExists.

        Raises:
            EntityNotFoundException: the database does not exist.
            AlreadyExistsException: the database has a function of this name.
            InvalidInputException: FunctionName or ClassName is missing.
        """
        _require_name(function)
        name = fold(function.name)
        try:
            with self.store.write() as session:
                database_id = database_row(session, self.scope, database).id
                session.add(FunctionRow(database_id=database_id, name=name, spec=function.spec,
                                        create_time=now()))
                session.flush()
        except IntegrityError as exc:
            raise AlreadyExistsException(f"Function {name} already exists in database {fold(database)}.") from exc

    def get(self, database: str, name: str) -> UserDefinedFunction:
        """Mirror GetUserDefinedFunction.

        Raises:
            EntityNotFoundException: the database or the function does not exist.
        """
        with self.store.read() as session:
            return _to_model(_function_row(session, self.scope, database, name), fold(database))

    def page(self, database: str | None, pattern: str, function_type: str | None, max_results: int,
             token: str | None) -> tuple[list[UserDefinedFunction], str | None]:
        """Mirror GetUserDefinedFunctions: matching functions in (database, name) order, one page at a time.

        Without ``database``, the functions of every database of the catalog are searched.

        Raises:
            EntityNotFoundException: ``database`` is given and does not exist.
        """
        after = decode_token(token, list)
        query = (
            select(FunctionRow, DatabaseRow.name)
            .join(DatabaseRow, FunctionRow.database_id == DatabaseRow.id)
            .where(DatabaseRow.account_id == self.scope.account_id, DatabaseRow.region == self.scope.region,
                   name_pattern(pattern))
            .order_by(DatabaseRow.name, FunctionRow.name)
        )
        if after is not None:
            if not (isinstance(after, list) and len(after) == 2 and all(isinstance(a, str) for a in after)):
                raise InvalidInputException(f"Invalid NextToken: {token!r}")
            query = query.where(tuple_(DatabaseRow.name, FunctionRow.name) > tuple_(after[0], after[1]))
        found: list[UserDefinedFunction] = []
        more = False
        with self.store.read() as session:
            if database is not None:
                query = query.where(FunctionRow.database_id == database_row(session, self.scope, database).id)
            # FunctionType lives in the stored structure: filter while scanning in order
            for row, database_name in session.execute(query.execution_options(yield_per=200)):
                if function_type is not None and row.spec.get("FunctionType") != function_type:
                    continue
                if len(found) == max_results:
                    more = True
                    break
                found.append(_to_model(row, database_name))
        last = found[-1] if found else None
        return found, encode_token([last.database_name, last.name]) if more and last else None

    def update(self, database: str, name: str, function: UserDefinedFunction) -> None:
        """Mirror UpdateUserDefinedFunction: the new definition replaces the old; a new name renames it.

        Raises:
            EntityNotFoundException: the database or the function does not exist.
            AlreadyExistsException: renaming onto another function of the database.
        """
        if not function.name:
            function.name = name
        _require_name(function)
        new_name = fold(function.name)
        try:
            with self.store.write() as session:
                row = _function_row(session, self.scope, database, name, for_update=True)
                row.name = new_name
                row.spec = function.spec
                session.flush()
        except IntegrityError as exc:
            raise AlreadyExistsException(
                f"Function {new_name} already exists in database {fold(database)}."
            ) from exc

    def delete(self, database: str, name: str) -> None:
        """Mirror DeleteUserDefinedFunction.

        Raises:
            EntityNotFoundException: the database or the function does not exist.
        """
        with self.store.write() as session:
            session.delete(_function_row(session, self.scope, database, name, for_update=True))
