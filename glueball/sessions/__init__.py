"""Interactive sessions: Glue's session and statement operations, the drivers that run them."""
