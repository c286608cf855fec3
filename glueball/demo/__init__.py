"""The daily orders demo: its data generator, its two Glue job scripts and the report helpers.

``data`` writes raw orders and customers into the object store the way an upstream system
would drop them on S3; ``jobs/transform.py`` and ``jobs/aggregate.py`` are AWS Glue PySpark
scripts run unchanged by ``glueball run`` or a job run; ``report`` formats a workflow run.
"""
