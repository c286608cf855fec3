"""The blueprint layout library: the classes a blueprint's ``layout.py`` builds its workflow with.

``from awsglue.blueprint.workflow import Workflow, Entities``, ``from awsglue.blueprint.job import Job``
and ``from awsglue.blueprint.crawler import Crawler`` reach these classes (AWS's library for blueprint
layouts has the same names and keyword arguments). A layout generator returns a :class:`Workflow`;
:meth:`Workflow.to_json` turns it into what a blueprint run creates:

- the workflow (Name, Description, DefaultRunProperties, Tags);
- each job and crawler, as CreateJob and CreateCrawler take them;
- one starting trigger, ``<workflow>_starting_trigger``: ON_DEMAND, or SCHEDULED with the workflow's
  ``OnSchedule`` (started on creation); it starts every job and crawler that depends on nothing;
- one CONDITIONAL trigger per job or crawler with ``DependsOn`` (``{entity: state}``),
  ``<workflow>_<name>_trigger``, whose predicate waits for those states (``WaitForDependencies``:
  ``AND``, the default, or ``ANY``).

Each class checks its fields' types as they are set and its required fields in :meth:`validate`,
raising ``TypeError`` naming the field, as AWS's library does.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

__all__ = ["Crawler", "Entities", "Job", "Workflow"]

_STATE_KEYS = {"Job": ("JobName", "State"), "Crawler": ("CrawlerName", "CrawlState")}
JOB_COMMANDS = ("glueetl", "gluestreaming", "pythonshell", "glueray")


class Resource:
    """An entity of a layout: keyword fields, each with its type and whether it is required."""

    FIELDS: ClassVar[dict[str, tuple[type | tuple[type, ...], bool]]] = {}

    def __init__(self, **fields: Any) -> None:
        for key, value in fields.items():
            setattr(self, key, value)

    def __getattr__(self, key: str) -> Any:
        if key in type(self).FIELDS:  # a field never set reads as None
            return None
        raise AttributeError(f"{type(self).__name__} has no field {key}")

    def __setattr__(self, key: str, value: Any) -> None:
        known = self.FIELDS.get(key)
        if known is None:
            raise TypeError(f"{type(self).__name__} has no field {key}; its fields are {', '.join(self.FIELDS)}")
        if value is not None and not isinstance(value, known[0]):
            raise TypeError(f"Value {value!r} for key {key} of {type(self).__name__} should be of type {known[0]}")
        self.check(key, value)
        object.__setattr__(self, key, value)

    def check(self, key: str, value: Any) -> None:
        """Refuse a value of the right type that the field still cannot take (a subclass's rules)."""

    def fields(self) -> dict[str, Any]:
        return {key: value for key, value in vars(self).items() if value is not None}

    def validate(self) -> bool:
        """True when every required field is set.

        Raises:
            TypeError: naming the required fields that are missing.
        """
        missing = [key for key, (_, required) in self.FIELDS.items() if required and self.fields().get(key) is None]
        if missing:
            raise TypeError(f"Required Fields for {type(self).__name__} were missing: {missing}")
        return True

    def to_json(self) -> dict[str, Any]:
        self.validate()
        return self.fields()


class Job(Resource):
    """A Glue job of a layout (CreateJob's members, plus ``DependsOn`` and ``WaitForDependencies``)."""

    FIELDS = {
        "Name": (str, True), "Description": (str, False), "LogUri": (str, False), "Role": (str, True),
        "ExecutionProperty": (dict, False), "Command": (dict, True), "DefaultArguments": (dict, False),
        "NonOverridableArguments": (dict, False), "Connections": (dict, False), "MaxRetries": (int, False),
        "AllocatedCapacity": (int, False), "Timeout": (int, False), "MaxCapacity": ((float, int), False),
        "SecurityConfiguration": (str, False), "Tags": (dict, False), "NotificationProperty": (dict, False),
        "GlueVersion": (str, False), "NumberOfWorkers": (int, False), "WorkerType": (str, False),
        "DependsOn": (dict, False), "WaitForDependencies": (str, False),
    }

    def check(self, key: str, value: Any) -> None:
        if key == "Command" and value is not None:
            if not value.get("Name") or not value.get("ScriptLocation"):
                raise TypeError("Job Command needs Name and ScriptLocation")
            if value["Name"] not in JOB_COMMANDS:
                raise TypeError(f"{value['Name']} is not a valid value for key Name in Command")
        _check_dependencies(self, key, value)


class Crawler(Resource):
    """A Glue crawler of a layout (CreateCrawler's members, plus ``DependsOn`` and ``WaitForDependencies``)."""

    FIELDS = {
        "Name": (str, True), "Description": (str, False), "Role": (str, True), "Targets": (dict, True),
        "DatabaseName": (str, False), "Classifiers": (list, False), "SchemaChangePolicy": (dict, False),
        "RecrawlPolicy": (dict, False), "LineageConfiguration": (dict, False), "TablePrefix": (str, False),
        "Configuration": (str, False), "CrawlerSecurityConfiguration": (str, False), "Tags": (dict, False),
        "Schedule": (str, False), "DependsOn": (dict, False), "WaitForDependencies": (str, False),
    }

    def check(self, key: str, value: Any) -> None:
        if key == "Targets" and value is not None:
            kinds = ("S3Targets", "JdbcTargets", "JDBCTargets", "MongoDBTargets", "DynamoDBTargets",
                     "CatalogTargets", "DeltaTargets", "IcebergTargets", "HudiTargets")
            unknown = sorted(set(value) - set(kinds))
            if unknown:
                raise TypeError(f"Crawler Targets has no {unknown[0]}; its targets are {', '.join(kinds)}")
        _check_dependencies(self, key, value)


def _check_dependencies(entity: Resource, key: str, value: Any) -> None:
    if key == "DependsOn" and value is not None:
        for dependency in value:
            if not isinstance(dependency, Job | Crawler):
                raise TypeError(f"Dependencies must be of type Job or Crawler, but found {type(dependency)} instead")
    if key == "WaitForDependencies" and value not in (None, "AND", "ANY"):
        raise TypeError(f"WaitForDependencies of {type(entity).__name__} must be AND or ANY, got {value!r}")


class Entities:
    """The jobs and crawlers of a workflow."""

    def __init__(self, Jobs: list[Job] | None = None, Crawlers: list[Crawler] | None = None) -> None:  # noqa: N803
        self.Jobs = list(Jobs or [])
        self.Crawlers = list(Crawlers or [])

    def validate(self) -> bool:
        for entity in [*self.Jobs, *self.Crawlers]:
            if not isinstance(entity, Job | Crawler):
                raise TypeError(f"Entities holds Jobs and Crawlers, not {type(entity).__name__}")
            entity.validate()
        names = [entity.Name for entity in [*self.Jobs, *self.Crawlers]]
        repeated = sorted({name for name in names if names.count(name) > 1})
        if repeated:
            raise TypeError(f"Entity names must be unique in a workflow: {', '.join(repeated)}")
        return True


def _trigger_condition(dependency: Job | Crawler, state: str, suffix: str) -> dict[str, str]:
    name_key, state_key = _STATE_KEYS[type(dependency).__name__]
    return {"LogicalOperator": "EQUALS", name_key: f"{dependency.Name}{suffix}", state_key: state}


class Workflow(Resource):
    """The workflow a layout generator returns."""

    FIELDS = {
        "Name": (str, True), "Description": (str, False), "DefaultRunProperties": (dict, False),
        "Tags": (dict, False), "OnSchedule": (str, False), "Entities": (Entities, True),
    }

    def validate(self) -> bool:
        super().validate()
        return self.Entities.validate()

    def to_json(self, name_suffix: str = "") -> dict[str, Any]:
        """The workflow, jobs, crawlers and triggers a blueprint run creates (``name_suffix`` is appended to each
        job and crawler name, with an underscore, when given)."""
        self.validate()
        suffix = f"_{name_suffix}" if name_suffix else ""
        workflow = {k: v for k, v in self.fields().items() if k not in ("Entities", "OnSchedule")}
        name = workflow["Name"]
        starting: dict[str, Any] = {"Name": f"{name}_starting_trigger", "WorkflowName": name, "Actions": []}
        schedule = getattr(self, "OnSchedule", None)
        if schedule:
            starting.update({"Type": "SCHEDULED", "Schedule": schedule, "StartOnCreation": True})
        else:
            starting["Type"] = "ON_DEMAND"
        triggers: list[dict[str, Any]] = []
        out: dict[str, list[dict[str, Any]]] = {"Jobs": [], "Crawlers": []}
        for kind, entities in (("Crawlers", self.Entities.Crawlers), ("Jobs", self.Entities.Jobs)):
            action_key = "CrawlerName" if kind == "Crawlers" else "JobName"
            for entity in entities:
                fields = entity.to_json()
                depends: Mapping[Job | Crawler, str] = fields.pop("DependsOn", None) or {}
                logical = fields.pop("WaitForDependencies", None)
                fields["Name"] = f"{fields['Name']}{suffix}"
                out[kind].append(fields)
                if not depends:
                    starting["Actions"].append({action_key: fields["Name"]})
                    continue
                predicate: dict[str, Any] = {"Conditions": [_trigger_condition(d, s, suffix)
                                                            for d, s in depends.items()]}
                if logical:
                    predicate["Logical"] = logical
                triggers.append({"Name": f"{name}_{fields['Name']}_trigger", "WorkflowName": name,
                                 "Type": "CONDITIONAL", "Predicate": predicate, "StartOnCreation": True,
                                 "Actions": [{action_key: fields["Name"]}]})
        return {"Workflow": workflow, "Crawlers": out["Crawlers"], "Jobs": out["Jobs"],
                "Triggers": [*triggers, starting]}
