"""Wire handlers of resource tags."""
