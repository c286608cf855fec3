"""Usage: billed DPU-seconds and estimated cost of runs, by tag, resource, kind and user."""
