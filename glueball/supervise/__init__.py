"""Supervision of the long-running work of a glueball process: driver processes and threads.

One mechanism for every kind of run (job runs, data quality runs, crawls; sessions and warm
drivers next): :mod:`.process` knows processes (identity of the supervising process, orphan
detection, driver liveness, process-group signals, launching); :mod:`.supervisor` keeps the runs a
process watches with their stop events and one heartbeat thread, watches a driver to its end
(exit, stop, timeout with SIGTERM then SIGKILL) and settles orphans after a restart; each kind
plugs in its own state table through small callables. :mod:`.driverenv` is the environment
contract between the launcher and the driver. Nothing here imports an area.
"""
