"""A launch's fence: whether a cold driver whose server died as it launched it runs - decided once, in its folder.

A server launches a cold driver by starting its keeper (:func:`glueball.supervise.launch.spawn`) and then noting
the keeper in the run's folder (``driver.json``) and on the run. A server killed between the two leaves a run with
no driver on record and a keeper that may be running, or about to, or may never have started. The server that
takes the run over cannot tell which from outside; so it does not guess, it decides:

- before it starts the keeper, the launching server numbers the launch (its *generation*, one more than the
  folder's last) and notes the number in the folder (``launching.json``);
- the keeper, before it starts the driver, **claims** its launch: it creates ``launch.<generation>.json`` naming
  itself;
- a server taking over a run whose driver is not on record **abandons** the noted launch: it creates the same
  file naming no one.

The file is created whole or not at all (a written temporary file hard-linked to its name, which fails if the
name exists), so exactly one of the two creates it. A keeper that finds its launch abandoned exits without
starting the driver (it records nothing); a server that finds the launch claimed watches the keeper that claimed
it, as if the dead server had noted it. Either way the driver runs at most once per launch, and a run whose
launch was abandoned provably never ran: its kind may launch it again (a job run does) or settle it.

This decides only on the machine whose disk holds the folder: a server on another machine cannot see it, and
settles such a run without fencing (see :mod:`glueball.supervise.supervisor`).
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from glueball.supervise.outcome import read_json, sync_folder, write_durably
from glueball.supervise.process import DriverProcess, host_name, process_identity, process_start

LAUNCHING = "launching.json"
PREFIX = "launch."
SUFFIX = ".json"


def _claim_path(directory: Path, generation: int) -> Path:
    return directory / f"{PREFIX}{generation}{SUFFIX}"


def _generations(directory: Path) -> list[int]:
    found = []
    for path in directory.glob(f"{PREFIX}*{SUFFIX}"):
        number = path.name[len(PREFIX):-len(SUFFIX)]
        if number.isdigit():
            found.append(int(number))
    return found


def begin(directory: Path) -> int:
    """Number a launch about to be made in ``directory`` and note it durably; its generation (for the keeper)."""
    launching = read_json(directory / LAUNCHING) or {}
    noted = launching.get("Generation")
    generation = 1 + max([*_generations(directory), noted if isinstance(noted, int) else 0])
    write_durably(directory / LAUNCHING, {"Generation": generation, "By": process_identity(), "At": time.time()})
    return generation


def _create(path: Path, body: dict[str, Any]) -> dict[str, Any] | None:
    """Create ``path`` holding ``body``, whole, unless it exists: None when this call created it, else what it
    holds."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with temporary.open("w", encoding="utf-8") as out:
        json.dump(body, out)
        out.flush()
        os.fsync(out.fileno())
    try:
        os.link(temporary, path)
    except FileExistsError:
        return read_json(path) or {}
    finally:
        temporary.unlink(missing_ok=True)
    sync_folder(path.parent)
    return None


def claim(directory: Path, generation: int) -> bool:
    """For a keeper, before it starts its driver: whether the launch is its own to run (False: a server taking the
    run over abandoned it)."""
    pid = os.getpid()
    held = _create(_claim_path(directory, generation),
                   {"Host": host_name(), "Pid": pid, "Start": process_start(pid)})
    return held is None or (held.get("Pid") == pid and held.get("Host") == host_name())


def _claimant(body: dict[str, Any]) -> DriverProcess | None:
    pid, start = body.get("Pid"), body.get("Start")
    if not isinstance(pid, int):
        return None
    return DriverProcess(str(body.get("Host")), pid, start if isinstance(start, int) else None)


@dataclass(frozen=True)
class Decided:
    """A run's last launch as a server taking the run over left it: claimed by the keeper ``claimant`` (its driver
    started: watch it), or not: ``never_ran`` when no driver of the run can be running - the launch is abandoned,
    or none was begun and the folder is empty (every launch, of this version or an earlier one, writes its notes
    and opens its logs there before it starts a process) - and False when that cannot be told."""

    claimant: DriverProcess | None = None
    never_ran: bool = False


def abandon(directory: Path) -> Decided:
    """For a server taking over a run whose driver is not on record: abandon the run's last launch, so that its
    driver never starts - unless its keeper had claimed it already."""
    launching = read_json(directory / LAUNCHING)
    generation = launching.get("Generation") if launching else None
    if not isinstance(generation, int):
        try:
            return Decided(never_ran=not any(directory.iterdir()))
        except FileNotFoundError:
            return Decided(never_ran=True)
        except OSError:
            return Decided()
    held = _create(_claim_path(directory, generation), {"Abandoned": True, "By": process_identity(),
                                                        "At": time.time()})
    if held is None:
        return Decided(never_ran=True)
    claimant = _claimant(held)
    return Decided(claimant) if claimant is not None else Decided(never_ran=bool(held.get("Abandoned")))
