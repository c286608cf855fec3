"""The scheduler under a clock file (SQLite and PostgreSQL): fires on time, once, across restarts and
between two servers sharing a store.

Each test starts its own servers (``make_server``) and moves their clock by writing the clock file;
nothing waits for a real minute. "Nothing fired" checks give the scheduler 0.7 s (~3 ticks).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from tests.api.test_crawlers import create as create_crawler
from tests.api.test_crawlers import s3_targets, wait_ready, write_object
from tests.helpers import unique
from tests.jobs.test_runs import create_job, wait_for
from tests.workflows.helpers import (
    NOOP,
    Clock,
    ClockedServer,
    MakeServer,
    at,
    job_runs,
    on_job,
    settle,
    wait_runs,
    wait_workflow_run,
)

DAILY_AT_3 = "cron(0 3 * * ? *)"


def scheduled_job(glue: Any, server: ClockedServer, schedule: str = DAILY_AT_3) -> tuple[str, str]:
    """A job and an ACTIVATED standalone SCHEDULED trigger that runs it; (job, trigger)."""
    job, trigger = create_job(glue, server, NOOP), unique("nightly")
    glue.create_trigger(Name=trigger, Type="SCHEDULED", Schedule=schedule, Actions=[{"JobName": job}],
                        StartOnCreation=True)
    return job, trigger


def fired_lines(server: ClockedServer, trigger: str) -> int:
    log = server.home / "logs" / "server.log"
    return log.read_text().count(f"scheduled trigger {trigger} fired") if log.exists() else 0


def test_a_daily_schedule_fires_once_per_due_time_and_a_restart_loses_nothing(make_server: MakeServer,
                                                                            tmp_path: Path) -> None:
    clock = Clock(tmp_path / "clock", at(10, 2, 0))
    server = make_server(clock=clock)
    glue = server.client()
    job, trigger = scheduled_job(glue, server)

    clock.set(at(10, 2, 59))
    settle()
    assert job_runs(glue, job) == []
    clock.set(at(10, 3, 0, 10))
    runs = wait_runs(glue, job, 1)
    assert (runs[0]["TriggerName"], runs[0]["JobRunState"]) == (trigger, "SUCCEEDED")
    assert "--WORKFLOW_RUN_ID" not in runs[0].get("Arguments", {})
    settle()  # the clock stays past 03:00: no second fire
    assert len(job_runs(glue, job)) == 1
    clock.set(at(10, 23, 59))
    settle()
    assert len(job_runs(glue, job)) == 1
    clock.set(at(11, 3, 0, 10))
    wait_runs(glue, job, 2)

    # down over the next due time: the missed fire fires once when the server is back
    server.stop()
    clock.set(at(12, 3, 1))
    server.start()
    runs = wait_runs(glue, job, 3)
    assert all(r["TriggerName"] == trigger for r in runs)
    settle()
    assert len(job_runs(glue, job)) == 3

    # down for three due times (13th, 14th, 15th): still one fire, not three
    server.stop()
    clock.set(at(15, 3, 0, 30))
    server.start()
    wait_runs(glue, job, 4)
    settle()
    assert len(job_runs(glue, job)) == 4
    # and the schedule goes on from there
    clock.set(at(16, 3, 0, 10))
    wait_runs(glue, job, 5)


def test_a_deactivated_schedule_does_not_fire_and_resumes_from_now(make_server: MakeServer, tmp_path: Path) -> None:
    clock = Clock(tmp_path / "clock", at(10, 2, 0))
    server = make_server(clock=clock)
    glue = server.client()
    job, trigger = scheduled_job(glue, server)
    glue.stop_trigger(Name=trigger)
    clock.set(at(10, 3, 0, 10))
    settle()
    assert job_runs(glue, job) == []
    glue.start_trigger(Name=trigger)  # activated after 03:00: the next fire is tomorrow's
    settle()
    assert job_runs(glue, job) == []
    clock.set(at(11, 3, 0, 10))
    assert wait_runs(glue, job, 1)[0]["TriggerName"] == trigger
    # UpdateTrigger reschedules an activated trigger from now
    glue.update_trigger(Name=trigger, TriggerUpdate={"Schedule": "cron(30 6 * * ? *)"})
    clock.set(at(11, 6, 29))
    settle()
    assert len(job_runs(glue, job)) == 1
    clock.set(at(11, 6, 30, 5))
    wait_runs(glue, job, 2)
    clock.set(at(12, 3, 0, 10))  # the old time is no longer due
    settle()
    assert len(job_runs(glue, job)) == 2


def test_a_miss_older_than_the_grace_is_skipped(make_server: MakeServer, tmp_path: Path) -> None:
    clock = Clock(tmp_path / "clock", at(10, 2, 0))
    server = make_server(clock=clock, env={"GLUEBALL_MISFIRE_GRACE_SECONDS": "600"})
    glue = server.client()
    job, _ = scheduled_job(glue, server)
    server.stop()
    clock.set(at(10, 3, 20))  # 20 minutes late: more than the 10 minutes of grace
    server.start()
    settle()
    assert job_runs(glue, job) == []
    assert "missed its fire" in (server.home / "logs" / "server.log").read_text()
    clock.set(at(11, 3, 0, 10))  # the following due time fires as usual
    wait_runs(glue, job, 1)
    server.stop()
    clock.set(at(12, 3, 5))  # 5 minutes late: within the grace, fired
    server.start()
    wait_runs(glue, job, 2)


def test_a_scheduled_starting_trigger_starts_workflow_runs(make_server: MakeServer, tmp_path: Path) -> None:
    clock = Clock(tmp_path / "clock", at(10, 2, 0))
    server = make_server(clock=clock)
    glue = server.client()
    job, second = create_job(glue, server, NOOP), create_job(glue, server, NOOP)
    workflow, trigger = unique("wf"), unique("nightly")
    glue.create_workflow(Name=workflow, DefaultRunProperties={"source": "schedule"})
    glue.create_trigger(Name=trigger, WorkflowName=workflow, Type="SCHEDULED", Schedule=DAILY_AT_3,
                        Actions=[{"JobName": job}], StartOnCreation=True)
    glue.create_trigger(Name=unique("then"), WorkflowName=workflow, Type="CONDITIONAL", StartOnCreation=True,
                        Predicate={"Conditions": [on_job(job)]},
                        Actions=[{"JobName": second}])
    settle()
    assert glue.get_workflow_runs(Name=workflow)["Runs"] == []
    clock.set(at(10, 3, 0, 10))
    run_id = wait_for(lambda: glue.get_workflow_runs(Name=workflow)["Runs"], 30, "a workflow run")[0]["WorkflowRunId"]
    run = wait_workflow_run(glue, workflow, run_id)
    assert run["Status"] == "COMPLETED" and run["WorkflowRunProperties"] == {"source": "schedule"}
    assert run["Statistics"]["SucceededActions"] == 2
    first_job_run = job_runs(glue, job)[0]
    assert first_job_run["TriggerName"] == trigger
    assert first_job_run["Arguments"] == {"--WORKFLOW_NAME": workflow, "--WORKFLOW_RUN_ID": run_id}
    clock.set(at(11, 3, 0, 10))
    runs = wait_for(lambda: (found := glue.get_workflow_runs(Name=workflow)["Runs"]) and len(found) == 2
                    and found[0]["Status"] == "COMPLETED" and found, 30, "a second workflow run")
    assert runs[1]["WorkflowRunId"] == run_id
    settle()
    assert len(glue.get_workflow_runs(Name=workflow)["Runs"]) == 2
    assert len(job_runs(glue, second)) == 2


def test_a_crawlers_own_schedule_crawls_under_the_clock(make_server: MakeServer, tmp_path: Path) -> None:
    clock = Clock(tmp_path / "clock", at(10, 2, 0))
    server = make_server(clock=clock)
    glue = server.client()
    database, prefix = unique("db"), unique("lake")
    glue.create_database(DatabaseInput={"Name": database})
    write_object(server, f"bucket/{prefix}/events/part-0.json", '{"id": 1}\n')
    crawler = create_crawler(glue, DatabaseName=database, Schedule="cron(0 4 * * ? *)",
                             Targets=s3_targets(f"s3://bucket/{prefix}/events/"))
    settle()
    assert glue.list_crawls(CrawlerName=crawler)["Crawls"] == []
    # the scheduler takes a new crawler schedule's first due time from its next tick; move a day at a
    # time until the crawl comes
    day = 10

    def crawled() -> Any:
        nonlocal day
        crawls = glue.list_crawls(CrawlerName=crawler)["Crawls"]
        if not crawls:
            clock.set(at(day, 4, 0, 10))
            day += 1
            time.sleep(0.3)
        return crawls

    wait_for(crawled, 30, "a scheduled crawl")
    last = wait_ready(glue, crawler)["LastCrawl"]
    assert last["Status"] == "SUCCEEDED"
    assert [t["Name"] for t in glue.get_tables(DatabaseName=database)["TableList"]] == ["events"]
    settle()
    assert len(glue.list_crawls(CrawlerName=crawler)["Crawls"]) == 1
    # a stopped crawler schedule does not fire
    glue.stop_crawler_schedule(CrawlerName=crawler)
    clock.set(at(day + 1, 4, 0, 10))
    settle()
    assert len(glue.list_crawls(CrawlerName=crawler)["Crawls"]) == 1


def test_two_servers_sharing_a_store_fire_each_due_time_once(make_server: MakeServer, store_kind: str,
                                                            tmp_path: Path) -> None:
    clock = Clock(tmp_path / "clock", at(10, 2, 0))
    first = make_server(clock=clock, store_url=None if store_kind == "postgres"
                        else f"sqlite:///{tmp_path / 'shared.db'}")
    second = make_server(clock=clock, store_url=first.store_url)
    glue = first.client()
    script = tmp_path / "noop.py"
    script.write_text(NOOP)
    job, trigger = unique("job"), unique("nightly")
    glue.create_job(Name=job, Role="r", Command={"Name": "pythonshell", "ScriptLocation": str(script)})
    glue.create_trigger(Name=trigger, Type="SCHEDULED", Schedule=DAILY_AT_3, Actions=[{"JobName": job}],
                        StartOnCreation=True)
    assert second.client().get_trigger(Name=trigger)["Trigger"]["State"] == "ACTIVATED"  # one store
    for day in (10, 11, 12):
        clock.set(at(day, 3, 0, 10))
        wait_runs(glue, job, day - 9)
        settle()  # both schedulers tick ~3 times more with the fire due
        assert first.up() and second.up()
        assert len(job_runs(second.client(), job)) == day - 9
        assert fired_lines(first, trigger) + fired_lines(second, trigger) == day - 9

    # both schedulers evaluate every workflow run: a CONDITIONAL trigger still fires once per run
    head, then, workflow = unique("head"), unique("then"), unique("wf")
    for name in (head, then):
        glue.create_job(Name=name, Role="r", Command={"Name": "pythonshell", "ScriptLocation": str(script)},
                        ExecutionProperty={"MaxConcurrentRuns": 3})
    glue.create_workflow(Name=workflow)
    glue.create_trigger(Name=unique("start"), WorkflowName=workflow, Type="ON_DEMAND", Actions=[{"JobName": head}])
    glue.create_trigger(Name=unique("after"), WorkflowName=workflow, Type="CONDITIONAL", StartOnCreation=True,
                        Predicate={"Conditions": [on_job(head)]},
                        Actions=[{"JobName": then}])
    run_ids = {first.client().start_workflow_run(Name=workflow)["RunId"],
               second.client().start_workflow_run(Name=workflow)["RunId"],
               first.client().start_workflow_run(Name=workflow)["RunId"]}
    for run_id in run_ids:
        run = wait_workflow_run(glue, workflow, run_id)
        assert run["Status"] == "COMPLETED" and run["Statistics"]["SucceededActions"] == 2, run["Statistics"]
    settle()
    runs = job_runs(glue, then)
    assert sorted(r["Arguments"]["--WORKFLOW_RUN_ID"] for r in runs) == sorted(run_ids)
