"""``awsglue.blueprint.crawler``: a crawler of a blueprint layout."""

from glueball.blueprints.entities import Crawler

__all__ = ["Crawler"]
