"""The catalog's resource policy through boto3 with authorization off: storage, conditions, AWS's error texts."""

from __future__ import annotations

import json
from typing import Any

import pytest
from botocore.exceptions import ClientError

from tests.helpers import error_of

POLICY = json.dumps({"Version": "2012-10-17", "Statement": [{
    "Effect": "Allow", "Principal": {"AWS": "arn:aws:iam::123456789012:root"}, "Action": "glue:*",
    "Resource": "arn:aws:glue:us-east-1:123456789012:*"}]})


def refused(call: Any, **params: Any) -> tuple[str, str]:
    with pytest.raises(ClientError) as excinfo:
        call(**params)
    return error_of(excinfo)


def test_a_missing_policy_is_refused_with_aws_text_and_a_stored_one_round_trips(glue: Any) -> None:
    # AWS answers "EntityNotFoundException: Policy not found" to a GetResourcePolicy of an account
    # without a catalog policy (indeni/dragoneye issue #19 quotes it from a live account)
    for leftover in glue.get_resource_policies()["GetResourcePoliciesResponseList"]:
        glue.delete_resource_policy(PolicyHashCondition=leftover["PolicyHash"])
    assert refused(glue.get_resource_policy) == ("EntityNotFoundException", "Policy not found")
    assert refused(glue.delete_resource_policy) == ("EntityNotFoundException", "Policy not found")
    digest = glue.put_resource_policy(PolicyInJson=POLICY)["PolicyHash"]
    stored = glue.get_resource_policy()
    assert stored["PolicyInJson"] == POLICY and stored["PolicyHash"] == digest
    assert refused(glue.delete_resource_policy, PolicyHashCondition="other")[0] == "ConditionCheckFailureException"
    glue.delete_resource_policy(PolicyHashCondition=digest)
    assert refused(glue.get_resource_policy) == ("EntityNotFoundException", "Policy not found")
