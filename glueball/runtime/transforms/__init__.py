"""Glue transforms (``awsglue.transforms``): classes whose ``apply`` runs one DynamicFrame operation."""
