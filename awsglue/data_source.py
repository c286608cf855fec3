from glueball.runtime.io.sources import DataSource

__all__ = ["DataSource"]
