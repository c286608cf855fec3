"""The AWS Glue Data Quality ETL library's import path (``from awsgluedq.transforms import EvaluateDataQuality``),
served by glueball's evaluator (``glueball.dataquality``)."""
