from glueball.runtime.transforms.base import GlueTransform

__all__ = ["GlueTransform"]
