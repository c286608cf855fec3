"""What the authorizer keeps with a caller object (its policies, its catalogs' resource policies, its decisions)
holds no longer than what it was read from: an IAM change of this process ends it at once, a change made by
another process (another server worker on the same store) decides within a second, as before it was kept."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from botocore.exceptions import ClientError

from glueball.api.identity import Caller
from glueball.app import Glueball, embedded_client
from glueball.config import DEFAULT_ACCOUNT_ID, Settings
from glueball.iam import remembered
from glueball.iam.remembered import CallerMemory

READ = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "glue:GetDatabase", "Resource": "*"}]}


class Clock:
    """``time.monotonic`` of the identity memories, moved by the test."""

    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now


@pytest.fixture()
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(remembered, "time", fake)
    return fake


@pytest.fixture()
def two_processes(tmp_path: Path) -> Iterator[tuple[Glueball, Glueball, tuple[str, str]]]:
    """Two installations on one store: what the second changes, the first learns only from the store."""
    first = Glueball(Settings(home=tmp_path, auth="iam"))
    root = first.ensure_root_key()
    assert root is not None
    second = Glueball(Settings(home=tmp_path, auth="iam"), migrate=False)
    embedded_client(first, "glue", root[0], secret=root[1]).create_database(DatabaseInput={"Name": "kept"})
    yield first, second, root
    second.close()
    first.close()


def allowed(client: Any) -> bool:
    try:
        client.get_database(Name="kept")
    except ClientError as err:
        assert err.response["Error"]["Code"] == "AccessDeniedException"
        return False
    return True


def reader_keys(first: Glueball, root: tuple[str, str], count: int = 1) -> tuple[Any, list[dict[str, str]]]:
    """An IAM client of ``first`` as root, and ``count`` access keys of a user "reader" allowed READ."""
    iam = embedded_client(first, "iam", root[0], secret=root[1])
    iam.create_user(UserName="reader")
    iam.put_user_policy(UserName="reader", PolicyName="read", PolicyDocument=json.dumps(READ))
    return iam, [iam.create_access_key(UserName="reader")["AccessKey"] for _ in range(count)]


def test_a_change_by_another_process_decides_within_a_second_of_reading_the_policies(
        clock: Clock, two_processes: tuple[Glueball, Glueball, tuple[str, str]]) -> None:
    first, second, root = two_processes
    _, keys = reader_keys(first, root, 2)
    early, late = (embedded_client(first, "glue", k["AccessKeyId"], secret=k["SecretAccessKey"]) for k in keys)
    assert allowed(early)  # the user's policies are read now
    clock.now += 0.6
    assert allowed(late)  # a new key holder, so a new caller, whose memory starts with the policies read 0.6 s ago
    embedded_client(second, "iam", root[0], secret=root[1]).delete_user_policy(UserName="reader", PolicyName="read")
    clock.now += 0.3
    assert allowed(late)  # the other process's change is not known here yet (the policies are 0.9 s old)
    clock.now += 0.15
    assert not allowed(late)  # 1.05 s after they were read: read again, though the caller's memory is 0.45 s old
    assert not allowed(early)


def test_a_change_in_this_process_decides_the_next_request(
        clock: Clock, two_processes: tuple[Glueball, Glueball, tuple[str, str]]) -> None:
    first, _, root = two_processes
    iam, (key,) = reader_keys(first, root)
    glue = embedded_client(first, "glue", key["AccessKeyId"], secret=key["SecretAccessKey"])
    assert allowed(glue) and allowed(glue)
    iam.delete_user_policy(UserName="reader", PolicyName="read")  # the clock stands still: only the change counts
    assert not allowed(glue)
    iam.put_user_policy(UserName="reader", PolicyName="read", PolicyDocument=json.dumps(READ))
    assert allowed(glue)


def test_the_memory_belongs_to_one_caller_object(clock: Clock) -> None:
    caller = Caller("AKIDONE", "111122223333", "us-east-1")
    caller.memo["kept"] = CallerMemory(0)
    moved = replace(caller, account_id="444455556666")
    assert moved.memo == {} and caller.memo != {}
    assert moved == replace(moved) and hash(moved) == hash(replace(moved))  # the memo is not part of equality


def test_the_memory_ends_with_a_generation_a_second_or_an_older_read(clock: Clock) -> None:
    memory = CallerMemory(7)
    assert memory.current(7) and not memory.current(8)
    clock.now += remembered.SECONDS
    assert not memory.current(7)
    fresh = CallerMemory(7)
    fresh.read(clock.now - 0.9)  # it keeps a value read 0.9 s before it was made
    clock.now += 0.1
    assert not fresh.current(7)
    fresh = CallerMemory(7)
    fresh.read(clock.now + 5)  # a later read does not make it last longer
    clock.now += remembered.SECONDS
    assert not fresh.current(7)


def _memories(glue: Glueball) -> list[CallerMemory]:
    """The memories the authorizer keeps with the callers the edge keeps."""
    found = [known.caller.memo.get(glue.authorizer) for known in glue.edge._known.values()]
    return [memory for memory in found if isinstance(memory, CallerMemory)]


def test_a_request_by_name_is_answered_from_the_memory_only_when_its_decision_is_kept(
        clock: Clock, two_processes: tuple[Glueball, Glueball, tuple[str, str]]) -> None:
    first, _, root = two_processes
    iam = embedded_client(first, "iam", root[0], secret=root[1])
    timed = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "glue:GetDatabase", "Resource": "*",
                                                     "Condition": {"DateGreaterThan": {"aws:CurrentTime":
                                                                                       "2020-01-01T00:00:00Z"}}}]}
    for name, policy in (("plain", READ), ("timed", timed)):
        iam.create_user(UserName=name)
        iam.put_user_policy(UserName=name, PolicyName="read", PolicyDocument=json.dumps(policy))
    keys = {name: iam.create_access_key(UserName=name)["AccessKey"] for name in ("plain", "timed")}
    clients = {name: embedded_client(first, "glue", key["AccessKeyId"], secret=key["SecretAccessKey"])
               for name, key in keys.items()}
    for _ in range(2):
        assert allowed(clients["plain"]) and allowed(clients["timed"])
        with pytest.raises(ClientError):  # refused: never kept as allowed
            clients["plain"].get_table(DatabaseName="kept", Name="t")
    by_name = {m.identity_policies[0].statements[0].conditions != (): m.allowed_by_name for m in _memories(first)
               if m.identity_policies}
    assert by_name[False] == {("GetDatabase", DEFAULT_ACCOUNT_ID, None, "kept", None)}  # the plain user's
    assert by_name[True] == set()  # a decision that reads the time is made for each request
    iam.put_user_policy(UserName="plain", PolicyName="deny", PolicyDocument=json.dumps(
        {"Version": "2012-10-17", "Statement": [{"Effect": "Deny", "Action": "glue:*", "Resource": "*"}]}))
    assert not allowed(clients["plain"])  # the change ends the memory: the next request is decided afresh
