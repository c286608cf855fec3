"""Launching a driver: under its keeper, in a process group of its own, noted in its run's folder at once.

Every supervised driver a server starts cold goes through :func:`spawn` (job runs, data quality and
column statistics runs, blueprint layouts); warm drivers go through the pool
(:mod:`glueball.supervise.warm`), whose drivers have keepers too.

Each cold launch is numbered in its folder before the keeper starts, and the keeper claims it before it starts the
driver (:mod:`glueball.supervise.fence`), so that a server taking over a run whose launcher died before noting its
keeper decides, once, whether that driver runs.

Testing knobs: ``GLUEBALL_LAUNCH_GATE=<file>`` holds every launch while that file exists (a run stays
STARTING), so that a test can kill its server at that moment - before the driver starts;
``GLUEBALL_SPAWNED_GATE=<file>`` holds the server just after it started the keeper, before it notes it in the
run's folder - the moment a server that dies leaves a keeper no record names;
``GLUEBALL_LAUNCHED_GATE=<file>`` holds the server just after the driver started and was noted in its folder,
before the server records it on the run - the moment a server that dies leaves a STARTING run whose driver runs;
``GLUEBALL_CLAIM_GATE=<file>`` holds each keeper before it claims its launch (:mod:`glueball.supervise.keeper`).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from glueball.supervise import fence, keeper, outcome

GATE_ENV = "GLUEBALL_LAUNCH_GATE"
SPAWNED_GATE_ENV = "GLUEBALL_SPAWNED_GATE"
LAUNCHED_GATE_ENV = "GLUEBALL_LAUNCHED_GATE"


def pass_gate(variable: str = GATE_ENV) -> None:
    """Wait while the launch gate ``variable`` names (a testing knob) is closed."""
    keeper.pass_gate(variable)


def spawn(argv: list[str], env: dict[str, str], cwd: Path, output_log: Path,
          error_log: Path, record: Path | None = None, generation: int | None = None) -> subprocess.Popen[bytes]:
    """Start ``argv`` under its keeper, recording its outcome in ``record`` (default: ``cwd``, the run's folder),
    in its own session (process group), stdout and stderr appended to its logs; noted in the folder
    (:func:`glueball.supervise.outcome.write_driver`) before this returns; the launch numbered first, for its keeper
    to claim (:mod:`glueball.supervise.fence`), unless its number is given (``generation``: numbered by the caller
    when it began to launch)."""
    folder = record or cwd
    pass_gate()
    outcome.clear(folder)
    generation = fence.begin(folder) if generation is None else generation
    with output_log.open("ab") as out, error_log.open("ab") as err:
        proc = subprocess.Popen(keeper.command(argv, record=folder, generation=generation), stdout=out, stderr=err,
                                stdin=subprocess.DEVNULL, env=env, cwd=cwd, start_new_session=True)
    pass_gate(SPAWNED_GATE_ENV)
    outcome.write_driver(folder, proc.pid)
    pass_gate(LAUNCHED_GATE_ENV)
    return proc
