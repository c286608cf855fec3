"""The AWS Glue ML transforms import path (``from awsglueml.transforms import FillMissingValues``)."""
