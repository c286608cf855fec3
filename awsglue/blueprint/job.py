"""``awsglue.blueprint.job``: a job of a blueprint layout."""

from glueball.blueprints.entities import Job

__all__ = ["Job"]
