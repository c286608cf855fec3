"""Wire handlers of jobs, job runs and job bookmarks."""
