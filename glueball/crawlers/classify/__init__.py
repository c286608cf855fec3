"""Classifiers of crawled files: Glue's built-in classifiers and custom Grok/XML/JSON/CSV ones.

:func:`classify` recognises a file's format and schema from a bounded sample, the way an AWS Glue
crawler does; :func:`merge_columns` and :func:`similarity` decide whether the schemas of two files
belong to one table.
"""

from glueball.crawlers.classify.classifier import classify
from glueball.crawlers.classify.grok import GrokError, GrokPattern, compile_grok
from glueball.crawlers.classify.models import Classification, FileSample
from glueball.crawlers.classify.schema import SIMILARITY_THRESHOLD, merge_columns, similarity, union_columns, wider_type

__all__ = [
    "SIMILARITY_THRESHOLD",
    "Classification",
    "FileSample",
    "GrokError",
    "GrokPattern",
    "classify",
    "compile_grok",
    "merge_columns",
    "similarity",
    "union_columns",
    "wider_type",
]
