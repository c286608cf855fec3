"""Recipe nodes: the seed's claims-cleanup recipe (seven steps) published through boto3's DataBrew client,
referenced by version from a visual job that joins the providers, run; the same steps inline in a second
Recipe node; and the refusals of a bad recipe node."""

from __future__ import annotations

import shutil
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError

from glueball.studio.codegen import generate
from tests.helpers import ServerProcess, error_of, shared_spark, unique, wait_for
from tests.recipes.test_claims_and_errors import CLAIMS_RECIPE, EXAMPLES, EXPECTED_CLAIMS

ROLE = "arn:aws:iam::123456789012:role/glue"
ARN = "arn:aws:databrew:us-east-1:123456789012:recipe/claims-cleanup"
ENDED = ("STOPPED", "SUCCEEDED", "FAILED", "TIMEOUT", "ERROR")
PROVIDERS = {"P001": "Northside Clinic", "P002": "Harbor Imaging", "P003": "Lakeview Cardiology"}


def _csv(name: str, path: str) -> dict[str, Any]:
    return {"S3CsvSource": {"Name": name, "Paths": [path], "Separator": "comma", "QuoteChar": "quote",
                            "WithHeader": True}}


def graph() -> dict[str, Any]:
    return {
        "node-1": _csv("Claims", "s3://claims-in/claims/"),
        "node-2": _csv("Providers", "s3://claims-in/providers/"),
        "node-3": {"Recipe": {"Name": "Clean claims", "Inputs": ["node-1"],
                              "RecipeReference": {"RecipeArn": ARN, "RecipeVersion": "1.0"}}},
        "node-4": {"Join": {"Name": "With providers", "Inputs": ["node-3", "node-2"], "JoinType": "equijoin",
                            "Columns": [{"From": "node-3", "Keys": [["provider_id"]]},
                                        {"From": "node-2", "Keys": [["provider_id"]]}]}},
        "node-5": {"S3DirectTarget": {"Name": "Clean out", "Inputs": ["node-4"], "Path": "s3://claims-out/joined/",
                                      "Format": "json"}},
        "node-6": {"Recipe": {"Name": "Inline recipe", "Inputs": ["node-1"], "RecipeSteps": CLAIMS_RECIPE}},
        "node-7": {"S3DirectTarget": {"Name": "Inline out", "Inputs": ["node-6"], "Path": "s3://claims-out/inline/",
                                      "Format": "json"}},
    }


def test_a_published_recipe_runs_in_a_visual_job(studio_server: ServerProcess) -> None:
    root = studio_server.home / "s3"
    for name in ("claims", "providers"):
        folder = root / "claims-in" / name
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copy(EXAMPLES / "data" / "claims" / f"{name}.csv", folder / f"{name}.csv")
    brew = boto3.client("databrew", endpoint_url=studio_server.endpoint, region_name="us-east-1",
                        aws_access_key_id="AKIDEXAMPLE", aws_secret_access_key="secret")
    brew.create_recipe(Name="claims-cleanup", Steps=CLAIMS_RECIPE)
    brew.publish_recipe(Name="claims-cleanup")
    brew.update_recipe(Name="claims-cleanup", Steps=CLAIMS_RECIPE[:1])  # the working version moves on; 1.0 stays
    glue = studio_server.client()
    name = unique("claims")
    nodes = graph()
    glue.create_job(Name=name, Role=ROLE, Command={"Name": "glueetl"}, CodeGenConfigurationNodes=nodes)
    assert glue.get_job(JobName=name)["Job"]["CodeGenConfigurationNodes"] == nodes
    script = generate(nodes).text()
    assert 'recipe_steps("claims-cleanup", "1.0")' in script

    run_id = glue.start_job_run(JobName=name)["JobRunId"]
    run = wait_for(lambda: (r := glue.get_job_run(JobName=name, RunId=run_id)["JobRun"])["JobRunState"] in ENDED
                   and r, timeout=300, what="the run to end", interval=1.0)
    assert run["JobRunState"] == "SUCCEEDED", run.get("ErrorMessage")
    spark = shared_spark()
    columns = ["claim_id", "provider_id", "patient_name", "amount", "service_date", "status"]
    joined = spark.read.json(str(root / "claims-out" / "joined"))
    got = sorted((*(r[c] for c in columns), r.provider_name) for r in joined.collect())
    assert got == sorted((*row, PROVIDERS[row[1]]) for row in EXPECTED_CLAIMS)
    inline = spark.read.json(str(root / "claims-out" / "inline"))
    assert sorted(tuple(r[c] for c in columns) for r in inline.collect()) == sorted(EXPECTED_CLAIMS)


def test_bad_recipe_nodes_are_refused(studio_server: ServerProcess) -> None:
    glue = studio_server.client()

    def refused(recipe: dict[str, Any]) -> str:
        nodes = {"node-1": _csv("Claims", "s3://claims-in/claims/"),
                 "node-2": {"Recipe": {"Name": "Clean", "Inputs": ["node-1"], **recipe}}}
        with pytest.raises(ClientError) as excinfo:
            glue.create_job(Name=unique("recipe"), Role=ROLE, Command={"Name": "glueetl"},
                            CodeGenConfigurationNodes=nodes)
        code, message = error_of(excinfo)
        assert code == "InvalidInputException" and "'Clean' (node-2)" in message
        return message

    unknown = [{"Action": {"Operation": "MAKE_IT_NICE", "Parameters": {"sourceColumn": "status"}}}]
    assert "Recipe step 1" in refused({"RecipeSteps": unknown})
    assert "either RecipeSteps or a RecipeReference" in refused({})
    both = {"RecipeSteps": CLAIMS_RECIPE, "RecipeReference": {"RecipeArn": ARN, "RecipeVersion": "1.0"}}
    assert "either RecipeSteps or a RecipeReference" in refused(both)
    bad_arn = {"RecipeReference": {"RecipeArn": "arn:aws:s3:::bucket/key", "RecipeVersion": "1.0"}}
    assert "is not a DataBrew recipe ARN" in refused(bad_arn)
