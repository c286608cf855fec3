from glueball.runtime.io.sources import DataSink

__all__ = ["DataSink"]
