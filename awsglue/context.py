from glueball.runtime.context import (
    DataFrameReader,
    DataFrameWriter,
    DynamicFrameReader,
    DynamicFrameWriter,
    GlueContext,
)

__all__ = ["GlueContext", "DynamicFrameReader", "DynamicFrameWriter", "DataFrameReader", "DataFrameWriter"]
