"""A recipe published once and referenced by version: ``recipe_steps`` fetches it through the DataBrew API of
the installation (a server through ``GLUEBALL_ENDPOINT``, as a launched driver does; or the embedded one),
and the claims-cleanup recipe it returns cleans the claims as the inline steps do."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import boto3
import botocore.config
import pytest

from glueball.recipes.recipe_engine import RecipeReferenceError, apply_recipe, recipe_steps
from glueball.runtime.client import reset_client, service_client
from tests.helpers import ServerProcess
from tests.recipes.test_claims_and_errors import CLAIMS_RECIPE, EXAMPLES, EXPECTED_CLAIMS

UPPER = [{"Action": {"Operation": "UPPER_CASE", "Parameters": {"sourceColumn": "patient_name"}}}]


@pytest.fixture()
def endpoint(server: ServerProcess, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("GLUEBALL_ENDPOINT", server.endpoint)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDDRIVER")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "secret")
    reset_client()
    yield server
    reset_client()


def test_a_published_recipe_is_referenced_by_version(endpoint: ServerProcess, spark: Any) -> None:
    brew = boto3.client("databrew", endpoint_url=endpoint.endpoint, region_name="us-east-1",
                        aws_access_key_id="AKIDBREW", aws_secret_access_key="secret",
                        config=botocore.config.Config(retries={"max_attempts": 1}))
    brew.create_recipe(Name="claims-cleanup", Steps=CLAIMS_RECIPE)
    brew.publish_recipe(Name="claims-cleanup", Description="seven steps")
    brew.update_recipe(Name="claims-cleanup", Steps=UPPER)  # the working version moves on; 1.0 stays
    assert recipe_steps("claims-cleanup", "1.0") == CLAIMS_RECIPE
    assert recipe_steps("claims-cleanup") == CLAIMS_RECIPE  # the latest published
    assert recipe_steps("claims-cleanup", "LATEST_WORKING") == UPPER
    claims = spark.read.option("header", True).csv(str(EXAMPLES / "data" / "claims" / "claims.csv"))
    cleaned = apply_recipe(claims, recipe_steps("claims-cleanup", "1.0"))
    assert [tuple(row) for row in cleaned.collect()] == EXPECTED_CLAIMS
    with pytest.raises(RecipeReferenceError) as missing:
        recipe_steps("claims-cleanup", "2.0")
    assert "ResourceNotFoundException" in str(missing.value) and "no version 2.0" in str(missing.value)
    with pytest.raises(RecipeReferenceError) as unknown:
        recipe_steps("no-such-recipe")
    assert "Recipe 'no-such-recipe'" in str(unknown.value) and "wasn't found" in str(unknown.value)


def test_the_embedded_installation_serves_recipes_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GLUEBALL_HOME", str(tmp_path))
    monkeypatch.delenv("GLUEBALL_ENDPOINT", raising=False)
    reset_client()
    try:
        service_client("databrew").create_recipe(Name="local", Steps=UPPER)
        service_client("databrew").publish_recipe(Name="local")
        assert recipe_steps("local", "1.0") == UPPER
    finally:
        reset_client()
