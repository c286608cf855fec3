"""Launching a driver: under its keeper, in a process group of its own, noted in its run's folder at once.

Every supervised driver a server starts cold goes through :func:`spawn` (job runs, data quality and
column statistics runs, blueprint layouts); warm drivers go through the pool
(:mod:`glueball.supervise.warm`), whose drivers have keepers too.

Testing knob: ``GLUEBALL_LAUNCH_GATE=<file>`` holds every launch while that file exists (a run stays
STARTING), so that a test can kill its server at that moment - before the driver starts.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

from glueball.supervise import keeper, outcome

GATE_ENV = "GLUEBALL_LAUNCH_GATE"


def pass_gate() -> None:
    """Wait while the launch gate (a testing knob) is closed."""
    gate = os.environ.get(GATE_ENV)
    while gate and Path(gate).exists():
        time.sleep(0.05)


def spawn(argv: list[str], env: dict[str, str], cwd: Path, output_log: Path,
          error_log: Path, record: Path | None = None) -> subprocess.Popen[bytes]:
    """Start ``argv`` under its keeper, recording its outcome in ``record`` (default: ``cwd``, the run's folder),
    in its own session (process group), stdout and stderr appended to its logs; noted in the folder
    (:func:`glueball.supervise.outcome.write_driver`) before this returns."""
    folder = record or cwd
    pass_gate()
    outcome.clear(folder)
    with output_log.open("ab") as out, error_log.open("ab") as err:
        proc = subprocess.Popen(keeper.command(argv, record=folder), stdout=out, stderr=err,
                                stdin=subprocess.DEVNULL, env=env, cwd=cwd, start_new_session=True)
    outcome.write_driver(folder, proc.pid)
    return proc
