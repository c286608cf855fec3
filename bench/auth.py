"""What enforcing identity costs: GetTable with ``--auth iam`` (a user whose policy has 20 statements)
against ``--auth off``, measured side by side in one run.

Run ``.venv/bin/python bench/auth.py [--calls N] [--rounds R]``. It starts two ``glueball server``
processes on SQLite (one per mode), creates the same table in both, and in the iam one a user whose
inline policy has 19 statements that do not apply (other actions, other databases, conditions that
fail) and one that allows the read. Rounds alternate the two servers with one boto3 client each; it
prints requests/second per mode (best round) and the ratio (goal: at most 1.15x). It then does the
same in-process (the edge alone, no HTTP: signature verification and policy evaluation against the
raw dispatch). Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import configparser
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import boto3
import botocore.config

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from glueball.app import Glueball  # noqa: E402
from glueball.config import Settings  # noqa: E402
from tests.helpers import ServerProcess  # noqa: E402

CONFIG = botocore.config.Config(retries={"max_attempts": 1})


def policy_of_20(account: str) -> dict[str, Any]:
    statements: list[dict[str, Any]] = []
    for i in range(6):
        statements.append({"Effect": "Allow", "Action": [f"glue:CreateJob{i}", "glue:StartJobRun"],
                           "Resource": f"arn:aws:glue:*:{account}:job/other{i}"})
    for i in range(6):
        statements.append({"Effect": "Allow", "Action": "glue:Get*",
                           "Resource": f"arn:aws:glue:*:{account}:table/other{i}/*"})
    for i in range(4):
        statements.append({"Effect": "Deny", "Action": "glue:*", "Resource": "*",
                           "Condition": {"StringEquals": {"aws:PrincipalTag/blocked": f"yes{i}"}}})
    for i in range(3):
        statements.append({"Effect": "Allow", "Action": "glue:GetTable", "Resource": "*",
                           "Condition": {"IpAddress": {"aws:SourceIp": f"203.0.113.{i}/32"}}})
    statements.append({"Effect": "Allow", "Action": ["glue:GetTable", "glue:GetDatabase"],
                       "Resource": [f"arn:aws:glue:*:{account}:catalog", f"arn:aws:glue:*:{account}:database/bench",
                                    f"arn:aws:glue:*:{account}:table/bench/*"]})
    return {"Version": "2012-10-17", "Statement": statements}


def client(server: ServerProcess, service: str, key: str, secret: str) -> Any:
    return boto3.client(service, endpoint_url=server.endpoint, region_name="us-east-1", aws_access_key_id=key,
                        aws_secret_access_key=secret, config=CONFIG)


def rate(call: Callable[[], Any], calls: int) -> float:
    started = time.perf_counter()
    for _ in range(calls):
        call()
    return calls / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=1500)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="glueball-bench-auth-"))
    (root / "off").mkdir()
    (root / "iam").mkdir()
    off = ServerProcess(root / "off").start()
    enforced = ServerProcess(root / "iam", extra_args=("--auth", "iam")).start()
    try:
        profile = configparser.ConfigParser()
        profile.read(root / "iam" / "credentials")
        root_key = (profile["glueball"]["aws_access_key_id"], profile["glueball"]["aws_secret_access_key"])
        account = client(enforced, "sts", *root_key).get_caller_identity()["Account"]
        table = {"Name": "t", "StorageDescriptor": {"Columns": [{"Name": "a", "Type": "int"}]}}
        for server, key in ((off, ("AKIDBENCH", "x")), (enforced, root_key)):
            glue = client(server, "glue", *key)
            glue.create_database(DatabaseInput={"Name": "bench"})
            glue.create_table(DatabaseName="bench", TableInput=table)
        iam = client(enforced, "iam", *root_key)
        iam.create_user(UserName="reader")
        iam.put_user_policy(UserName="reader", PolicyName="twenty", PolicyDocument=json.dumps(policy_of_20(account)))
        created = iam.create_access_key(UserName="reader")["AccessKey"]
        reader = client(enforced, "glue", created["AccessKeyId"], created["SecretAccessKey"])
        anyone = client(off, "glue", "AKIDBENCH", "x")
        calls = {"off": lambda: anyone.get_table(DatabaseName="bench", Name="t"),
                 "iam": lambda: reader.get_table(DatabaseName="bench", Name="t")}
        for call in calls.values():
            for _ in range(200):
                call()
        best = {"off": 0.0, "iam": 0.0}
        ratios = []
        for _ in range(args.rounds):  # each round measures both, back to back: the ratio of a round is fair
            measured = {mode: rate(call, args.calls) for mode, call in calls.items()}
            ratios.append(measured["off"] / measured["iam"])
            best = {mode: max(best[mode], measured[mode]) for mode in best}
        print(f"GetTable over HTTP, 1 boto3 client, {args.rounds} rounds x {args.calls} calls:")
        print(f"  --auth off                {best['off']:8,.0f} req/s (best round)")
        print(f"  --auth iam (20 stmts)     {best['iam']:8,.0f} req/s (best round)")
        print(f"  cost of enforcing: median of the rounds' ratios {statistics.median(ratios):.2f}x, "
              f"best rounds {best['off'] / best['iam']:.2f}x (goal <= 1.15x)")
    finally:
        off.stop()
        enforced.stop()
    in_process(root, args)


def in_process(root: Path, args: argparse.Namespace) -> None:
    """The same two modes in this process: the edge's cost alone, requests signed by botocore."""
    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials

    from glueball.edge.inprocess import to_wire_request

    def signed(key: str, secret: str) -> Any:
        request = AWSRequest("POST", "http://127.0.0.1:9400/", data=json.dumps({"DatabaseName": "bench",
                                                                                 "Name": "t"}).encode(),
                             headers={"X-Amz-Target": "AWSGlue.GetTable",
                                      "Content-Type": "application/x-amz-json-1.1"})
        SigV4Auth(Credentials(key, secret), "glue", "us-east-1").add_auth(request)
        return to_wire_request(request.prepare())

    off = Glueball(Settings(home=root / "off"), migrate=False)
    enforced = Glueball(Settings(home=root / "iam", auth="iam"), migrate=False)
    key = enforced.iam.access_keys(enforced.accounts.default_account, "reader")[0].access_key_id
    with enforced.store.read() as session:
        from glueball.store.identity_tables import AccessKeyRow

        row = session.get(AccessKeyRow, key)
        assert row is not None
        secret = row.secret
    requests = {"off": (off, signed("AKIDBENCH", "x")), "iam": (enforced, signed(key, secret))}
    for app, request in requests.values():
        assert app.handle(request).status == 200
    best = {"off": 0.0, "iam": 0.0}
    for _ in range(args.rounds):
        for mode, (app, request) in requests.items():
            best[mode] = max(best[mode], rate(lambda a=app, r=request: a.handle(r), args.calls * 2))
    print("GetTable in-process (the edge alone):")
    print(f"  --auth off                {best['off']:8,.0f} req/s")
    print(f"  --auth iam (20 stmts)     {best['iam']:8,.0f} req/s   ({best['off'] / best['iam']:.2f}x)")
    off.close()
    enforced.close()


if __name__ == "__main__":
    main()
