"""The DataBrew recipe operations black-box: real boto3 and the AWS CLI against ``glueball server``.

Every operation and its error paths, with DataBrew's codes and statuses; quotas through an edge with
small quotas (real boto3, answered in-process); identity on a ``--auth iam`` server.
"""

from __future__ import annotations

import configparser
import json
import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import botocore.config
import pytest
from botocore.exceptions import ClientError

from glueball.edge.inprocess import answer_in_process
from glueball.edge.router import Edge
from glueball.edge.sigv4 import AccountDirectory
from glueball.recipes import handlers as _handlers  # noqa: F401 - registers the operations
from glueball.recipes.area import OPERATIONS, RecipeNeeds
from glueball.recipes.errors import MODELLED
from glueball.recipes.service import Quotas
from glueball.store.engine import Store
from tests.helpers import ServerProcess

CONFIG = botocore.config.Config(retries={"max_attempts": 1})
UPPER = [{"Action": {"Operation": "UPPER_CASE", "Parameters": {"sourceColumn": "name"}}}]
LOWER = [{"Action": {"Operation": "LOWER_CASE", "Parameters": {"sourceColumn": "name"}},
          "ConditionExpressions": [{"Condition": "IS_NOT_MISSING", "TargetColumn": "name"}]}]


def name(prefix: str = "recipe") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def refused(call: Any, **kwargs: Any) -> tuple[str, str, int]:
    with pytest.raises(ClientError) as caught:
        call(**kwargs)
    answer = caught.value.response
    return answer["Error"]["Code"], answer["Error"]["Message"], answer["ResponseMetadata"]["HTTPStatusCode"]


@pytest.fixture()
def brew(server: ServerProcess) -> Any:
    return boto3.client("databrew", endpoint_url=server.endpoint, region_name="us-east-1",
                        aws_access_key_id="AKIDBREW", aws_secret_access_key="secret", config=CONFIG)


def test_error_codes_and_statuses_are_databrews() -> None:
    model = boto3.session.Session().client("databrew", region_name="us-east-1").meta.service_model
    for error in MODELLED:
        shape = model.shape_for(error.code)
        assert shape.metadata["error"]["httpStatusCode"] == error.status, error.code


def test_versions_from_create_to_publish(brew: Any) -> None:
    recipe = name()
    assert brew.create_recipe(Name=recipe, Steps=UPPER, Description="first", Tags={"team": "claims"})["Name"] == recipe
    working = brew.describe_recipe(Name=recipe)
    assert working["RecipeVersion"] == "0.1" and working["Steps"] == UPPER
    assert working["Description"] == "first" and working["Tags"] == {"team": "claims"}
    assert working["ResourceArn"] == f"arn:aws:databrew:us-east-1:123456789012:recipe/{recipe}"
    assert working["CreatedBy"] == "arn:aws:iam::123456789012:root" and "PublishedBy" not in working
    assert brew.publish_recipe(Name=recipe, Description="v1")["Name"] == recipe
    first = brew.describe_recipe(Name=recipe)
    assert (first["RecipeVersion"], first["Steps"], first["Description"]) == ("1.0", UPPER, "v1")
    assert first["PublishedBy"] == "arn:aws:iam::123456789012:root" and first["PublishedDate"]
    assert brew.describe_recipe(Name=recipe, RecipeVersion="LATEST_WORKING")["RecipeVersion"] == "1.1"
    brew.update_recipe(Name=recipe, Steps=LOWER, Description="second")
    assert brew.describe_recipe(Name=recipe, RecipeVersion="LATEST_WORKING")["Steps"] == LOWER
    assert brew.describe_recipe(Name=recipe, RecipeVersion="1.1")["Description"] == "second"
    assert brew.describe_recipe(Name=recipe, RecipeVersion="1.0")["Steps"] == UPPER
    brew.publish_recipe(Name=recipe)
    assert brew.describe_recipe(Name=recipe, RecipeVersion="LATEST_PUBLISHED")["Steps"] == LOWER
    assert brew.describe_recipe(Name=recipe)["RecipeVersion"] == "2.0"
    versions = brew.list_recipe_versions(Name=recipe)["Recipes"]
    assert [(v["RecipeVersion"], v["Steps"]) for v in versions] == [("1.0", UPPER), ("2.0", LOWER)]
    assert brew.list_recipe_versions(Name=name("never"))["Recipes"] == []


def test_listing_recipes_by_version_and_page(brew: Any) -> None:
    published, draft = name("listed"), name("listed")
    brew.create_recipe(Name=published, Steps=UPPER)
    brew.publish_recipe(Name=published)
    brew.create_recipe(Name=draft, Steps=LOWER)
    default = {r["Name"]: r["RecipeVersion"] for r in brew.list_recipes()["Recipes"]}
    assert default[published] == "1.0" and draft not in default
    assert {r["Name"]: r["RecipeVersion"] for r in brew.list_recipes(RecipeVersion="LATEST_PUBLISHED")["Recipes"]
            }[published] == "1.0"
    working = {r["Name"]: r["RecipeVersion"] for r in brew.list_recipes(RecipeVersion="LATEST_WORKING")["Recipes"]}
    assert working[published] == "1.1" and working[draft] == "0.1"
    page = brew.list_recipes(RecipeVersion="LATEST_WORKING", MaxResults=1)
    assert len(page["Recipes"]) == 1 and page["NextToken"]
    names = [r["Name"] for p in brew.get_paginator("list_recipes").paginate(
        RecipeVersion="LATEST_WORKING", PaginationConfig={"PageSize": 1}) for r in p["Recipes"]]
    assert names == sorted(names) and {published, draft} <= set(names)
    for _ in range(2):
        brew.publish_recipe(Name=draft)
    versions = brew.list_recipe_versions(Name=draft, MaxResults=1)
    assert [v["RecipeVersion"] for v in versions["Recipes"]] == ["1.0"]
    rest = brew.list_recipe_versions(Name=draft, MaxResults=1, NextToken=versions["NextToken"])
    assert [v["RecipeVersion"] for v in rest["Recipes"]] == ["2.0"] and "NextToken" not in rest


def test_deleting_versions(brew: Any) -> None:
    recipe = name()
    brew.create_recipe(Name=recipe, Steps=UPPER)
    for _ in range(3):
        brew.publish_recipe(Name=recipe)
    deleted = brew.delete_recipe_version(Name=recipe, RecipeVersion="2.0")
    assert (deleted["Name"], deleted["RecipeVersion"]) == (recipe, "2.0")
    assert [v["RecipeVersion"] for v in brew.list_recipe_versions(Name=recipe)["Recipes"]] == ["1.0", "3.0"]
    code, message, status = refused(brew.delete_recipe_version, Name=recipe, RecipeVersion="LATEST_WORKING")
    assert (code, status) == ("ConflictException", 409) and "1.0, 3.0" in message
    code, message, status = refused(brew.delete_recipe_version, Name=recipe, RecipeVersion="LATEST_PUBLISHED")
    assert (code, status) == ("ValidationException", 400) and "LATEST_PUBLISHED is not supported" in message
    assert refused(brew.delete_recipe_version, Name=recipe, RecipeVersion="2.0")[:3:2] == (
        "ResourceNotFoundException", 404)
    assert refused(brew.delete_recipe_version, Name=recipe, RecipeVersion="two")[0] == "ValidationException"
    partial = brew.batch_delete_recipe_version(Name=recipe, RecipeVersions=["LATEST_WORKING", "1.0", "7.0"])
    assert partial["Name"] == recipe
    assert [(e["RecipeVersion"], e["ErrorCode"]) for e in partial["Errors"]] == [
        ("7.0", "404"), ("LATEST_WORKING", "409")]
    assert [v["RecipeVersion"] for v in brew.list_recipe_versions(Name=recipe)["Recipes"]] == ["3.0"]
    done = brew.batch_delete_recipe_version(Name=recipe, RecipeVersions=["LATEST_WORKING", "3.0"])
    assert "Errors" not in done
    assert refused(brew.describe_recipe, Name=recipe)[0] == "ResourceNotFoundException"
    draft = name()
    brew.create_recipe(Name=draft, Steps=UPPER)
    brew.delete_recipe_version(Name=draft, RecipeVersion="LATEST_WORKING")
    assert refused(brew.describe_recipe, Name=draft)[0] == "ResourceNotFoundException"
    brew.create_recipe(Name=draft, Steps=LOWER)  # the name is free again
    assert brew.describe_recipe(Name=draft)["Steps"] == LOWER


def test_error_paths(brew: Any) -> None:
    recipe = name()
    brew.create_recipe(Name=recipe, Steps=UPPER)
    missing = name("missing")
    # what boto3 would refuse before sending, sent anyway: the server checks the model too
    loose = boto3.client("databrew", endpoint_url=brew.meta.endpoint_url, region_name="us-east-1",
                         aws_access_key_id="AKIDBREW", aws_secret_access_key="secret",
                         config=botocore.config.Config(parameter_validation=False, retries={"max_attempts": 1}))
    cases = [
        (brew.create_recipe, {"Name": recipe, "Steps": UPPER}, "ConflictException", 409, f"Recipe {recipe} already"),
        (brew.create_recipe, {"Name": "bad_name!", "Steps": UPPER}, "ValidationException", 400,
         "valid characters are alphanumeric"),
        (brew.create_recipe, {"Name": name(), "Steps": [{"Action": {"Operation": "SHOUT"}}]},
         "ValidationException", 400, "Recipe step 1 (SHOUT): unknown operation 'SHOUT'"),
        (brew.create_recipe, {"Name": name(), "Steps": [{"Action": {"Operation": "SPLIT_COLUMN_SINGLE_DELIMITER",
                                                                    "Parameters": {"sourceColumn": "a",
                                                                                   "pattern": ",", "limit": "0"}}}]},
         "ValidationException", 400, "Recipe step 1 (SPLIT_COLUMN_SINGLE_DELIMITER): parameter 'limit' must be"),
        (brew.create_recipe, {"Name": name(), "Steps": [{"Action": {"Operation": "upper", "Parameters": {}}}]},
         "ValidationException", 400, "at 'steps.1.member.action.operation'"),
        (loose.create_recipe, {"Name": name(), "Steps": UPPER * 101}, "ValidationException", 400,
         "at most 100 steps"),
        (brew.describe_recipe, {"Name": missing}, "ResourceNotFoundException", 404, f"Recipe {missing} wasn't found"),
        (brew.describe_recipe, {"Name": recipe, "RecipeVersion": "4.0"}, "ResourceNotFoundException", 404,
         "has no version 4.0"),
        (brew.describe_recipe, {"Name": recipe, "RecipeVersion": "LATEST_PUBLISHED"}, "ResourceNotFoundException",
         404, "has no published version"),
        (brew.describe_recipe, {"Name": recipe, "RecipeVersion": "newest"}, "ValidationException", 400,
         "is not a version number"),
        (brew.update_recipe, {"Name": missing, "Steps": UPPER}, "ResourceNotFoundException", 404, "wasn't found"),
        (brew.update_recipe, {"Name": recipe, "Steps": [{"Action": {"Operation": "UPPER_CASE"}}]},
         "ValidationException", 400, "parameter 'sourceColumn' is required"),
        (brew.publish_recipe, {"Name": missing}, "ResourceNotFoundException", 404, "wasn't found"),
        (brew.delete_recipe_version, {"Name": missing, "RecipeVersion": "1.0"}, "ResourceNotFoundException", 404,
         "wasn't found"),
        (brew.batch_delete_recipe_version, {"Name": missing, "RecipeVersions": ["1.0"]},
         "ResourceNotFoundException", 404, "wasn't found"),
        (brew.batch_delete_recipe_version, {"Name": recipe, "RecipeVersions": ["1.0", "1.0"]},
         "ValidationException", 400, "repeats 1.0"),
        (brew.batch_delete_recipe_version, {"Name": recipe, "RecipeVersions": ["LATEST_PUBLISHED"]},
         "ValidationException", 400, "is not a version number"),
        (loose.batch_delete_recipe_version, {"Name": recipe, "RecipeVersions": []}, "ValidationException", 400,
         "at 'recipeVersions' failed to satisfy constraint"),
        (brew.list_recipes, {"RecipeVersion": "1.0"}, "ValidationException", 400,
         "is not LATEST_WORKING or LATEST_PUBLISHED"),
        (brew.list_recipes, {"NextToken": "not-a-token"}, "ValidationException", 400, "Invalid NextToken"),
        (brew.list_recipe_versions, {"Name": recipe, "NextToken": "xyz"}, "ValidationException", 400,
         "Invalid NextToken"),
        (loose.list_recipes, {"MaxResults": 101}, "ValidationException", 400, "at 'maxResults'"),
    ]
    for call, kwargs, code, status, message in cases:
        got = refused(call, **kwargs)
        assert got[0] == code and got[2] == status and message in got[1], (kwargs, got)
    # nothing half-written: the refused creates made no recipe, the refused update changed nothing
    assert brew.describe_recipe(Name=recipe)["Steps"] == UPPER
    assert all(r["Name"] != "bad_name!" for r in brew.list_recipes(RecipeVersion="LATEST_WORKING")["Recipes"])


def test_the_aws_cli(server: ServerProcess, tmp_path: Path) -> None:
    executable = shutil.which("aws", path=str(Path(sys.executable).parent)) or "aws"
    env = dict(os.environ, AWS_ACCESS_KEY_ID="AKIDCLI", AWS_SECRET_ACCESS_KEY="secret", AWS_DEFAULT_REGION="us-east-1",
               AWS_CONFIG_FILE=os.devnull, AWS_SHARED_CREDENTIALS_FILE=os.devnull)

    def aws(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return subprocess.run([executable, "databrew", *args, "--endpoint-url", server.endpoint, "--output", "json"],
                              capture_output=True, text=True, env=env, check=check, timeout=60)

    steps = tmp_path / "steps.json"
    steps.write_text(json.dumps(UPPER))
    recipe = name("cli")
    assert json.loads(aws("create-recipe", "--name", recipe, "--steps", f"file://{steps}").stdout) == {"Name": recipe}
    aws("publish-recipe", "--name", recipe, "--description", "from the CLI")
    described = json.loads(aws("describe-recipe", "--name", recipe, "--recipe-version", "1.0").stdout)
    assert (described["RecipeVersion"], described["Steps"], described["Description"]) == ("1.0", UPPER, "from the CLI")
    listed = json.loads(aws("list-recipe-versions", "--name", recipe).stdout)
    assert [r["RecipeVersion"] for r in listed["Recipes"]] == ["1.0"]
    failed = aws("describe-recipe", "--name", recipe, "--recipe-version", "5.0", check=False)
    assert failed.returncode != 0 and "ResourceNotFoundException" in failed.stderr and "no version 5.0" in failed.stderr
    batch = json.loads(aws("batch-delete-recipe-version", "--name", recipe, "--recipe-versions", "1.0",
                           "LATEST_WORKING").stdout)
    assert batch == {"Name": recipe}


def test_quotas_are_enforced(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'quota.db'}")
    edge = Edge(AccountDirectory(), "us-east-1")
    edge.add_rest_service("databrew")
    edge.mount(OPERATIONS, RecipeNeeds(store, Quotas(recipes=2, versions=1)))
    brew = boto3.session.Session().client("databrew", region_name="us-east-1", endpoint_url="http://127.0.0.1:1",
                                           aws_access_key_id="AKID", aws_secret_access_key="s", config=CONFIG)
    answer_in_process(brew, edge.handle)
    brew.create_recipe(Name="one", Steps=UPPER)
    brew.create_recipe(Name="two", Steps=UPPER)
    code, message, status = refused(brew.create_recipe, Name="three", Steps=UPPER)
    assert (code, status) == ("ServiceQuotaExceededException", 402) and "2 recipes" in message
    brew.publish_recipe(Name="one")
    code, message, status = refused(brew.publish_recipe, Name="one")
    assert (code, status) == ("ServiceQuotaExceededException", 402) and "1 published versions" in message
    assert [v["RecipeVersion"] for v in brew.list_recipe_versions(Name="one")["Recipes"]] == ["1.0"]
    brew.delete_recipe_version(Name="two", RecipeVersion="LATEST_WORKING")
    brew.create_recipe(Name="three", Steps=UPPER)
    store.dispose()


@pytest.fixture(scope="module")
def iam_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServerProcess, tuple[str, str]]]:
    home = tmp_path_factory.mktemp("databrew-iam")
    server = ServerProcess(home, extra_args=("--auth", "iam")).start()
    profile = configparser.ConfigParser()
    profile.read(home / "credentials")
    yield server, (profile["glueball"]["aws_access_key_id"], profile["glueball"]["aws_secret_access_key"])
    server.stop()


def test_identity_is_enforced_with_databrew_actions(iam_server: tuple[ServerProcess, tuple[str, str]]) -> None:
    server, (key, secret) = iam_server

    def client(service: str, access: str, password: str) -> Any:
        return boto3.client(service, endpoint_url=server.endpoint, region_name="us-east-1",
                            aws_access_key_id=access, aws_secret_access_key=password, config=CONFIG)

    root = client("databrew", key, secret)
    root.create_recipe(Name="guarded", Steps=UPPER)
    iam = client("iam", key, secret)
    iam.create_user(UserName="reader")
    iam.put_user_policy(UserName="reader", PolicyName="read", PolicyDocument=json.dumps({
        "Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "databrew:DescribeRecipe",
                                                "Resource": "arn:aws:databrew:us-east-1:*:recipe/guarded"}]}))
    made = iam.create_access_key(UserName="reader")["AccessKey"]
    reader = client("databrew", made["AccessKeyId"], made["SecretAccessKey"])
    assert reader.describe_recipe(Name="guarded")["Steps"] == UPPER
    code, message, status = refused(reader.publish_recipe, Name="guarded")
    assert (code, status) == ("AccessDeniedException", 403)
    assert "is not authorized to perform: databrew:PublishRecipe on resource: " \
           "arn:aws:databrew:us-east-1:" in message and "recipe/guarded" in message
    assert refused(reader.list_recipes)[0] == "AccessDeniedException"
    forged = client("databrew", made["AccessKeyId"], "not-the-secret")
    assert refused(forged.describe_recipe, Name="guarded")[0] == "InvalidSignatureException"
