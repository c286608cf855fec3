"""What enforcing identity costs: GetTable with ``--auth iam`` against ``--auth off``, side by side in one run.

    .venv/bin/python bench/auth.py [--calls N] [--rounds R] [--sizes 1,20,200]

Two ``glueball server`` processes on SQLite (one per mode) hold the same table; the iam one has a user per
policy size (``--sizes``), whose inline policy has that many statements: all but one do not apply (other
actions, other databases, conditions that fail), one allows the read. Rounds alternate the modes (and the
order within a round), one boto3 client each; a round's ratio compares its two halves. Printed per case:
requests/second per mode (best round), the median of the rounds' ratios with their spread (lowest and
highest), and the servers' own CPU time per request (read from ``/proc``: steadier than wall time on a
shared machine). Then the same in-process (the edge alone, no HTTP: signature verification and policy
evaluation against the raw dispatch), with wall and CPU time.

Two kinds of question:

- **the same question** — the standard case, one table read again and again: after the first request
  the decision is remembered (for a second), so this measures the signature check and the path to the
  remembered decision;
- **a new question every request** — GetTable of a table that does not exist, a new name each time
  (both modes answer ``EntityNotFoundException``; authorization comes first): no decision can be
  remembered, so every request is evaluated against the whole policy.

The goals (issue 34) are for the standard case with the 20-statement policy: at most 1.15x in-process and
1.05x over HTTP. Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import configparser
import itertools
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import boto3
import botocore.config
from botocore.exceptions import ClientError

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from glueball.app import Glueball  # noqa: E402
from glueball.config import Settings  # noqa: E402
from tests.helpers import ServerProcess  # noqa: E402

CONFIG = botocore.config.Config(retries={"max_attempts": 1})


def policy_of(size: int, account: str) -> dict[str, Any]:
    """``size`` statements; only the last one allows GetTable on the bench database."""
    statements: list[dict[str, Any]] = []
    makers: list[Callable[[int], dict[str, Any]]] = [
        lambda i: {"Effect": "Allow", "Action": [f"glue:CreateJob{i}", "glue:StartJobRun"],
                   "Resource": f"arn:aws:glue:*:{account}:job/other{i}"},
        lambda i: {"Effect": "Allow", "Action": "glue:Get*", "Resource": f"arn:aws:glue:*:{account}:table/other{i}/*"},
        lambda i: {"Effect": "Deny", "Action": "glue:*", "Resource": "*",
                   "Condition": {"StringEquals": {"aws:PrincipalTag/blocked": f"yes{i}"}}},
        lambda i: {"Effect": "Allow", "Action": "glue:GetTable", "Resource": "*",
                   "Condition": {"IpAddress": {"aws:SourceIp": f"203.0.{i // 250}.{i % 250}/32"}}},
    ]
    for i in range(size - 1):  # the 20-statement policy: 6 jobs, 6 other tables, 4 denies, 3 IP conditions
        kind = 0 if i < 6 else 1 if i < 12 else 2 if i < 16 else 3 if i < 19 else i % 4
        statements.append(makers[kind](i))
    statements.append({"Effect": "Allow", "Action": ["glue:GetTable", "glue:GetDatabase"],
                       "Resource": [f"arn:aws:glue:*:{account}:catalog", f"arn:aws:glue:*:{account}:database/bench",
                                    f"arn:aws:glue:*:{account}:table/bench/*"]})
    return {"Version": "2012-10-17", "Statement": statements}


def client(server: ServerProcess, service: str, key: str, secret: str) -> Any:
    return boto3.client(service, endpoint_url=server.endpoint, region_name="us-east-1", aws_access_key_id=key,
                        aws_secret_access_key=secret, config=CONFIG)


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Side:
    """One mode's calls: ``call()`` makes one request; ``cpu()`` reads the CPU time of the process serving it."""

    def __init__(self, call: Callable[[], Any], cpu: Callable[[], float],
                 prepare: Callable[[int], None] | None = None) -> None:
        self.call, self.cpu, self.prepare = call, cpu, prepare
        self.rates: list[float] = []
        self.cpu_per_call: list[float] = []

    def round(self, calls: int) -> float:
        if self.prepare is not None:  # not timed
            self.prepare(calls)
        cpu, started = self.cpu(), time.perf_counter()
        for _ in range(calls):
            self.call()
        wall = time.perf_counter() - started
        self.rates.append(calls / wall)
        self.cpu_per_call.append((self.cpu() - cpu) / calls)
        return wall


def compare(label: str, off: Side, iam: Side, rounds: int, calls: int, goal: str) -> None:
    ratios, cpu_ratios = [], []
    for index in range(rounds):  # each round measures both, back to back, in alternating order
        order = (off, iam) if index % 2 == 0 else (iam, off)
        for side in order:
            side.round(calls)
        ratios.append(off.rates[-1] / iam.rates[-1])
        if off.cpu_per_call[-1] > 0:
            cpu_ratios.append(iam.cpu_per_call[-1] / off.cpu_per_call[-1])
    print(f"  {label}")
    print(f"    --auth off {max(off.rates):8,.0f} req/s, --auth iam {max(iam.rates):8,.0f} req/s (best rounds); "
          f"iam/off: median {statistics.median(ratios):.3f}x, rounds {min(ratios):.3f}-{max(ratios):.3f}x "
          f"(goal {goal})")
    if cpu_ratios:
        print(f"    CPU per request: off {statistics.median(off.cpu_per_call) * 1e6:6.0f} us, iam "
              f"{statistics.median(iam.cpu_per_call) * 1e6:6.0f} us; iam/off median "
              f"{statistics.median(cpu_ratios):.3f}x, rounds {min(cpu_ratios):.3f}-{max(cpu_ratios):.3f}x")


def get_table(glue: Any, names: Any) -> Callable[[], Any]:
    def call() -> Any:
        try:
            return glue.get_table(DatabaseName="bench", Name=next(names))
        except ClientError as error:  # a table that does not exist: the new-question case
            if error.response["Error"]["Code"] != "EntityNotFoundException":
                raise
            return None

    return call


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=1500)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--sizes", default="1,20,200", help="statements in the user's policy, comma-separated")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"load average at start: {', '.join(f'{x:.1f}' for x in os.getloadavg())} ({os.cpu_count()} cores)")
    root = Path(tempfile.mkdtemp(prefix="glueball-bench-auth-"))
    (root / "off").mkdir()
    (root / "iam").mkdir()
    off = ServerProcess(root / "off").start()
    enforced = ServerProcess(root / "iam", extra_args=("--auth", "iam")).start()
    keys: dict[int, tuple[str, str]] = {}
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
        for size in sizes:
            iam.create_user(UserName=f"reader{size}")
            iam.put_user_policy(UserName=f"reader{size}", PolicyName="bench",
                                PolicyDocument=json.dumps(policy_of(size, account)))
            created = iam.create_access_key(UserName=f"reader{size}")["AccessKey"]
            keys[size] = (created["AccessKeyId"], created["SecretAccessKey"])
        anyone = client(off, "glue", "AKIDBENCH", "x")
        assert off.proc is not None and enforced.proc is not None
        off_pid, iam_pid = off.proc.pid, enforced.proc.pid
        print(f"\nGetTable over HTTP, one boto3 client per mode, {args.rounds} rounds x {args.calls} calls:")
        for size in sizes:
            reader = client(enforced, "glue", *keys[size])
            for fresh in (False, True):
                counter = itertools.count()
                off_names = (f"missing{i}" for i in counter) if fresh else itertools.repeat("t")
                iam_names = (f"missing{i}" for i in itertools.count()) if fresh else itertools.repeat("t")
                sides = (Side(get_table(anyone, off_names), lambda: cpu_seconds(off_pid)),
                         Side(get_table(reader, iam_names), lambda: cpu_seconds(iam_pid)))
                for side in sides:
                    for _ in range(200):
                        side.call()
                kind = "a new question every request" if fresh else "the same question"
                goal = "<= 1.05x" if size == 20 and not fresh else "-"
                compare(f"{size} statement(s), {kind}", *sides, args.rounds, args.calls, goal)
    finally:
        off.stop()
        enforced.stop()
    in_process(root, args, sizes)
    print(f"load average at end: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")


def in_process(root: Path, args: argparse.Namespace, sizes: list[int]) -> None:
    """The same two modes in this process: the edge's cost alone, requests signed by botocore."""
    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials

    from glueball.edge.inprocess import to_wire_request
    from glueball.store.identity_tables import AccessKeyRow

    def signed(key: str, secret: str, name: str) -> Any:
        request = AWSRequest("POST", "http://127.0.0.1:9400/", data=json.dumps({"DatabaseName": "bench",
                                                                                 "Name": name}).encode(),
                             headers={"X-Amz-Target": "AWSGlue.GetTable",
                                      "Content-Type": "application/x-amz-json-1.1"})
        SigV4Auth(Credentials(key, secret), "glue", "us-east-1").add_auth(request)
        return to_wire_request(request.prepare())

    off = Glueball(Settings(home=root / "off"), migrate=False)
    enforced = Glueball(Settings(home=root / "iam", auth="iam"), migrate=False)
    print(f"\nGetTable in-process (the edge alone), {args.rounds} rounds x {args.calls * 2} calls:")
    for size in sizes:
        key = enforced.iam.access_keys(enforced.accounts.default_account, f"reader{size}")[0].access_key_id
        with enforced.store.read() as session:
            row = session.get(AccessKeyRow, key)
            assert row is not None
            secret = row.secret
        for fresh in (False, True):
            sides = []
            for app, who in ((off, ("AKIDBENCH", "x")), (enforced, (key, secret))):
                names = (f"missing{i}" for i in itertools.count())
                ready: list[Any] = []

                def prepare(calls: int, who: tuple[str, str] = who, names: Any = names, ready: list[Any] = ready,
                            fresh: bool = fresh) -> None:
                    # signed before the round is timed (a signature is valid for five minutes)
                    ready[:] = ([signed(*who, next(names)) for _ in range(calls)] if fresh
                                else [signed(*who, "t")] * calls)

                def call(app: Glueball = app, ready: list[Any] = ready, fresh: bool = fresh) -> None:
                    status = app.handle(ready.pop()).status
                    assert status == (400 if fresh else 200), status

                sides.append(Side(call, time.process_time, prepare))
                prepare(300)
                for _ in range(300):
                    call()
            kind = "a new question every request" if fresh else "the same question"
            compare(f"{size} statement(s), {kind}", sides[0], sides[1], args.rounds, args.calls * 2,
                    "<= 1.15x" if size == 20 and not fresh else "-")
    off.close()
    enforced.close()


if __name__ == "__main__":
    main()
