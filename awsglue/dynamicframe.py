from glueball.runtime.context import DynamicFrameReader, DynamicFrameWriter
from glueball.runtime.dynamicframe import DynamicFrame, DynamicFrameCollection
from glueball.runtime.ops.choice import ResolveOption

__all__ = ["DynamicFrame", "DynamicFrameCollection", "DynamicFrameReader", "DynamicFrameWriter", "ResolveOption"]
