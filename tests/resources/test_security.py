"""Security configurations and the Data Catalog's encryption settings through boto3 against `glueball server`
(SQLite and PostgreSQL): stored and answered as Glue does, with every error path."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError

from tests.helpers import ServerProcess, error_of, unique

KEY = "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"


def expect_error(call: Any, code: str) -> str:
    with pytest.raises(ClientError) as excinfo:
        call()
    got, message = error_of(excinfo)
    assert got == code, message
    return message


def test_security_configuration_round_trips_every_encryption_mode(glue: Any) -> None:
    name = unique("sec")
    configuration = {
        "S3Encryption": [{"S3EncryptionMode": "SSE-KMS", "KmsKeyArn": KEY}],
        "CloudWatchEncryption": {"CloudWatchEncryptionMode": "SSE-KMS", "KmsKeyArn": KEY},
        "JobBookmarksEncryption": {"JobBookmarksEncryptionMode": "CSE-KMS", "KmsKeyArn": KEY},
        "DataQualityEncryption": {"DataQualityEncryptionMode": "DISABLED"},
    }
    created = glue.create_security_configuration(Name=name, EncryptionConfiguration=configuration)
    assert created["Name"] == name
    got = glue.get_security_configuration(Name=name)["SecurityConfiguration"]
    assert got["Name"] == name and got["EncryptionConfiguration"] == configuration
    assert got["CreatedTimeStamp"] == created["CreatedTimestamp"]

    plain = unique("sec")
    glue.create_security_configuration(Name=plain, EncryptionConfiguration={
        "S3Encryption": [{"S3EncryptionMode": "SSE-S3"}]})
    listed = {c["Name"]: c for c in glue.get_security_configurations()["SecurityConfigurations"]}
    assert {name, plain} <= set(listed)
    assert listed[plain]["EncryptionConfiguration"] == {"S3Encryption": [{"S3EncryptionMode": "SSE-S3"}]}

    glue.delete_security_configuration(Name=plain)
    expect_error(lambda: glue.get_security_configuration(Name=plain), "EntityNotFoundException")


def test_security_configurations_page(glue: Any) -> None:
    names = sorted(unique("page") for _ in range(3))
    for name in names:
        glue.create_security_configuration(Name=name, EncryptionConfiguration={})
    seen: list[str] = []
    token = None
    while True:
        page = glue.get_security_configurations(MaxResults=2, **({"NextToken": token} if token else {}))
        assert len(page["SecurityConfigurations"]) <= 2
        seen += [c["Name"] for c in page["SecurityConfigurations"]]
        token = page.get("NextToken")
        if not token:
            break
    assert [n for n in seen if n in names] == names
    expect_error(lambda: glue.get_security_configurations(NextToken="garbage"), "InvalidInputException")


def test_security_configuration_error_paths(glue: Any) -> None:
    name = unique("sec")
    glue.create_security_configuration(Name=name, EncryptionConfiguration={})
    message = expect_error(lambda: glue.create_security_configuration(Name=name, EncryptionConfiguration={}),
                           "AlreadyExistsException")
    assert name in message
    message = expect_error(lambda: glue.create_security_configuration(
        Name=unique("sec"), EncryptionConfiguration={"S3Encryption": [{"S3EncryptionMode": "SSE-KMS"}]}),
        "InvalidInputException")
    assert "S3Encryption.KmsKeyArn is required when S3EncryptionMode is SSE-KMS" == message
    expect_error(lambda: glue.create_security_configuration(
        Name=unique("sec"), EncryptionConfiguration={"JobBookmarksEncryption": {"JobBookmarksEncryptionMode":
                                                                                "CSE-KMS"}}),
        "InvalidInputException")
    expect_error(lambda: glue.get_security_configuration(Name=unique("none")), "EntityNotFoundException")
    expect_error(lambda: glue.delete_security_configuration(Name=unique("none")), "EntityNotFoundException")


def test_jobs_runs_crawlers_and_trigger_actions_name_existing_security_configurations(glue: Any) -> None:
    name, job, crawler = unique("sec"), unique("job"), unique("crawler")
    missing = unique("nosec")
    command = {"Name": "glueetl", "ScriptLocation": "s3://scripts/job.py"}
    message = expect_error(lambda: glue.create_job(Name=job, Role="r", Command=command, SecurityConfiguration=missing),
                           "InvalidInputException")
    assert message == f"Security configuration {missing} does not exist"
    glue.create_security_configuration(Name=name, EncryptionConfiguration={
        "S3Encryption": [{"S3EncryptionMode": "SSE-S3"}]})
    glue.create_job(Name=job, Role="r", Command=command, SecurityConfiguration=name)
    assert glue.get_job(JobName=job)["Job"]["SecurityConfiguration"] == name
    expect_error(lambda: glue.update_job(JobName=job, JobUpdate={"Role": "r", "Command": command,
                                                                 "SecurityConfiguration": missing}),
                 "InvalidInputException")
    assert glue.get_job(JobName=job)["Job"]["SecurityConfiguration"] == name, "a refused update changes nothing"
    expect_error(lambda: glue.start_job_run(JobName=job, SecurityConfiguration=missing), "InvalidInputException")
    assert glue.get_job_runs(JobName=job)["JobRuns"] == [], "no run recorded for a refused start"

    targets = {"S3Targets": [{"Path": "s3://bucket/data/"}]}
    expect_error(lambda: glue.create_crawler(Name=crawler, Role="r", Targets=targets,
                                             CrawlerSecurityConfiguration=missing), "InvalidInputException")
    glue.create_crawler(Name=crawler, Role="r", Targets=targets, CrawlerSecurityConfiguration=name)
    assert glue.get_crawler(Name=crawler)["Crawler"]["CrawlerSecurityConfiguration"] == name

    trigger = unique("trigger")
    message = expect_error(lambda: glue.create_trigger(Name=trigger, Type="ON_DEMAND", Actions=[
        {"JobName": job, "SecurityConfiguration": missing}]), "InvalidInputException")
    assert message == f"Actions[0]: Security configuration {missing} does not exist"
    glue.create_trigger(Name=trigger, Type="ON_DEMAND", Actions=[{"JobName": job, "SecurityConfiguration": name}])
    assert glue.get_trigger(Name=trigger)["Trigger"]["Actions"][0]["SecurityConfiguration"] == name


def test_catalog_encryption_settings_default_put_and_errors(glue: Any, server: ServerProcess) -> None:
    other = server.client(region="eu-west-1")  # settings are per catalog: each region has its own
    assert other.get_data_catalog_encryption_settings()["DataCatalogEncryptionSettings"] == {
        "EncryptionAtRest": {"CatalogEncryptionMode": "DISABLED"},
        "ConnectionPasswordEncryption": {"ReturnConnectionPasswordEncrypted": False}}
    settings = {"EncryptionAtRest": {"CatalogEncryptionMode": "SSE-KMS-WITH-SERVICE-ROLE", "SseAwsKmsKeyId": KEY,
                                     "CatalogEncryptionServiceRole": "arn:aws:iam::123456789012:role/catalog"},
                "ConnectionPasswordEncryption": {"ReturnConnectionPasswordEncrypted": True, "AwsKmsKeyId": KEY}}
    other.put_data_catalog_encryption_settings(DataCatalogEncryptionSettings=settings)
    assert other.get_data_catalog_encryption_settings()["DataCatalogEncryptionSettings"] == settings
    replaced = {"EncryptionAtRest": {"CatalogEncryptionMode": "SSE-KMS", "SseAwsKmsKeyId": KEY}}
    other.put_data_catalog_encryption_settings(DataCatalogEncryptionSettings=replaced)
    assert other.get_data_catalog_encryption_settings(CatalogId="123456789012")["DataCatalogEncryptionSettings"] == {
        **replaced, "ConnectionPasswordEncryption": {"ReturnConnectionPasswordEncrypted": False}}

    for bad, why in (({"EncryptionAtRest": {"CatalogEncryptionMode": "SSE-KMS-WITH-SERVICE-ROLE"}},
                      "CatalogEncryptionServiceRole is required"),
                     ({"EncryptionAtRest": {"CatalogEncryptionMode": "DISABLED",
                                            "CatalogEncryptionServiceRole": "arn:aws:iam::123456789012:role/x"}},
                      "only valid when"),
                     ({"ConnectionPasswordEncryption": {"ReturnConnectionPasswordEncrypted": True}},
                      "AwsKmsKeyId is required")):
        message = expect_error(lambda b=bad: other.put_data_catalog_encryption_settings(
            DataCatalogEncryptionSettings=b), "InvalidInputException")
        assert why in message
    assert other.get_data_catalog_encryption_settings()["DataCatalogEncryptionSettings"]["EncryptionAtRest"] == \
        replaced["EncryptionAtRest"]  # a refused put changes nothing
    expect_error(lambda: other.get_data_catalog_encryption_settings(CatalogId="999999999999"),
                 "AccessDeniedException")
