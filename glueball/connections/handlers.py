"""Wire handlers of Glue connections."""
