"""``awsglue.blueprint.base_resource``: the base of the layout entities."""

from glueball.blueprints.entities import Resource as BaseResource

__all__ = ["BaseResource"]
