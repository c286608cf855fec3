"""AWS Glue's blueprint layout library (``awsglue.blueprint``), served by :mod:`glueball.blueprints.entities`."""
