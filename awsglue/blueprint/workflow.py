"""``awsglue.blueprint.workflow``: the workflow of a blueprint layout, and its entities."""

from glueball.blueprints.entities import Crawler, Entities, Job, Workflow

__all__ = ["Crawler", "Entities", "Job", "Workflow"]
