from glueball.runtime.transforms.mapping import FillMissingValues

__all__ = ["FillMissingValues"]
