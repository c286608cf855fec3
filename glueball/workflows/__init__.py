"""Triggers, AWS cron schedules, workflows and their scheduler."""
