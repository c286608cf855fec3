"""Custom classifiers through boto3: CRUD, versions, pagination and validation (SQLite and PostgreSQL)."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError

from tests.helpers import error_of, unique


def test_each_kind_round_trips_with_times_and_version(glue: Any) -> None:
    names = {kind: unique(kind) for kind in ("grok", "xml", "json", "csv")}
    glue.create_classifier(GrokClassifier={"Name": names["grok"], "Classification": "applog",
                                           "GrokPattern": "%{TIMESTAMP_ISO8601:ts} %{MYLEVEL:level} %{GREEDYDATA:msg}",
                                           "CustomPatterns": "MYLEVEL (INFO|WARN|ERROR)"})
    glue.create_classifier(XMLClassifier={"Name": names["xml"], "Classification": "books", "RowTag": "book"})
    glue.create_classifier(JsonClassifier={"Name": names["json"], "JsonPath": "$.records[*]"})
    glue.create_classifier(CsvClassifier={"Name": names["csv"], "Delimiter": "|", "QuoteSymbol": "'",
                                          "ContainsHeader": "ABSENT", "Header": ["id", "name"],
                                          "DisableValueTrimming": True, "AllowSingleColumn": False,
                                          "CustomDatatypeConfigured": True, "CustomDatatypes": ["INT", "STRING"],
                                          "Serde": "OpenCSVSerDe"})
    grok = glue.get_classifier(Name=names["grok"])["Classifier"]
    assert set(grok) == {"GrokClassifier"}
    body = grok["GrokClassifier"]
    assert body["Classification"] == "applog"
    assert body["CustomPatterns"] == "MYLEVEL (INFO|WARN|ERROR)"
    assert body["Version"] == 1
    assert body["CreationTime"] == body["LastUpdated"]
    xml = glue.get_classifier(Name=names["xml"])["Classifier"]["XMLClassifier"]
    assert (xml["Classification"], xml["RowTag"]) == ("books", "book")
    assert glue.get_classifier(Name=names["json"])["Classifier"]["JsonClassifier"]["JsonPath"] == "$.records[*]"
    csv = glue.get_classifier(Name=names["csv"])["Classifier"]["CsvClassifier"]
    assert csv["Header"] == ["id", "name"]
    assert csv["CustomDatatypes"] == ["INT", "STRING"]
    assert (csv["Delimiter"], csv["QuoteSymbol"], csv["ContainsHeader"], csv["Serde"]) == \
        ("|", "'", "ABSENT", "OpenCSVSerDe")


def test_update_changes_given_members_and_bumps_version(glue: Any) -> None:
    name = unique("csv")
    glue.create_classifier(CsvClassifier={"Name": name, "Delimiter": ";", "ContainsHeader": "PRESENT"})
    before = glue.get_classifier(Name=name)["Classifier"]["CsvClassifier"]
    glue.update_classifier(CsvClassifier={"Name": name, "ContainsHeader": "UNKNOWN"})
    after = glue.get_classifier(Name=name)["Classifier"]["CsvClassifier"]
    assert after["ContainsHeader"] == "UNKNOWN"
    assert after["Delimiter"] == ";"
    assert after["Version"] == before["Version"] + 1
    assert after["LastUpdated"] >= before["LastUpdated"]
    assert after["CreationTime"] == before["CreationTime"]
    with pytest.raises(ClientError) as excinfo:
        glue.update_classifier(JsonClassifier={"Name": name, "JsonPath": "$[*]"})
    assert error_of(excinfo) == ("InvalidInputException",
                                 f"Classifier {name} is a CsvClassifier, not a JsonClassifier")
    with pytest.raises(ClientError) as excinfo:
        glue.update_classifier(CsvClassifier={"Name": unique("none"), "Delimiter": ","})
    assert error_of(excinfo)[0] == "EntityNotFoundException"


def test_get_classifiers_pages_in_name_order(glue: Any) -> None:
    prefix = unique("page")
    created = [f"{prefix}_{i}" for i in range(5)]
    for name in created:
        glue.create_classifier(JsonClassifier={"Name": name, "JsonPath": "$[*]"})
    pages = list(glue.get_paginator("get_classifiers").paginate(PaginationConfig={"PageSize": 2}))
    names = [next(iter(c.values()))["Name"] for p in pages for c in p["Classifiers"]]
    assert names == sorted(names)
    assert [n for n in names if n.startswith(prefix)] == created
    assert all(len(p["Classifiers"]) <= 2 for p in pages)


def test_delete_and_not_found_and_duplicate_names_across_kinds(glue: Any) -> None:
    name = unique("dup")
    glue.create_classifier(JsonClassifier={"Name": name, "JsonPath": "$[*]"})
    with pytest.raises(ClientError) as excinfo:
        glue.create_classifier(XMLClassifier={"Name": name, "Classification": "x", "RowTag": "row"})
    assert error_of(excinfo) == ("AlreadyExistsException", f"Classifier with name {name} already exists")
    glue.delete_classifier(Name=name)
    for call in (lambda: glue.get_classifier(Name=name), lambda: glue.delete_classifier(Name=name)):
        with pytest.raises(ClientError) as excinfo:
            call()
        assert error_of(excinfo) == ("EntityNotFoundException", f"Classifier with name {name} does not exist")


@pytest.mark.parametrize(("request_", "message"), [
    ({}, "Exactly one of GrokClassifier, XMLClassifier, JsonClassifier or CsvClassifier must be given, got 0"),
    ({"JsonClassifier": {"Name": "a", "JsonPath": "$"}, "CsvClassifier": {"Name": "a"}}, "got 2"),
    ({"GrokClassifier": {"Name": "g", "Classification": "c", "GrokPattern": "%{NO_SUCH_PATTERN:x}"}},
     "Invalid GrokPattern"),
    ({"GrokClassifier": {"Name": "g", "Classification": "c", "GrokPattern": "%{WORD:x:nosuchtype}"}},
     "Invalid GrokPattern"),
    ({"JsonClassifier": {"Name": "j", "JsonPath": "records[*]"}}, "Invalid JsonPath 'records[*]'"),
    ({"XMLClassifier": {"Name": "x", "Classification": "c", "RowTag": "<row>"}}, "RowTag must be an XML element"),
    ({"CsvClassifier": {"Name": "c", "Delimiter": ",", "QuoteSymbol": ","}},
     "Delimiter and QuoteSymbol must differ"),
    ({"CsvClassifier": {"Name": "c", "Header": ["a", "a"]}}, "Header has a column name twice"),
    ({"CsvClassifier": {"Name": "c", "CustomDatatypes": ["INT"]}}, "requires CustomDatatypeConfigured true"),
    ({"CsvClassifier": {"Name": "c", "CustomDatatypeConfigured": True, "CustomDatatypes": ["VARCHAR"]}},
     "Custom datatype 'VARCHAR' is not supported"),
])
def test_invalid_classifiers_are_rejected(glue: Any, request_: dict[str, Any], message: str) -> None:
    with pytest.raises(ClientError) as excinfo:
        glue.create_classifier(**request_)
    code, text = error_of(excinfo)
    assert code == "InvalidInputException"
    assert message in text
