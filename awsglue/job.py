from glueball.runtime.job import Job

__all__ = ["Job"]
