"""The process that runs a blueprint's layout script (``python -m glueball.blueprints.layout_driver <run dir>``).

The run's folder holds ``run.json`` (the layout generator's dotted path and the user and system
parameters) and the extracted archive (``archive/``), which is the working directory and the first
entry of ``sys.path``, so the generator's module imports as ``blueprint.cfg`` names it and relative
file paths in the layout resolve inside the archive. The script's own boto3 clients reach glueball
(:func:`glueball.runtime.lake.expose`). The generated :class:`~awsglue.blueprint.workflow.Workflow` is
written as ``layout.json`` (its ``to_json()``) and reported SUCCEEDED; a failure is reported FAILED with
the exception, the traceback on stderr (:func:`glueball.supervise.outcome.report`, recorded by the
process's keeper). Nothing here runs in the server.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import traceback
from pathlib import Path
from typing import Any

from glueball.supervise import outcome

RUN_FILE = "run.json"
LAYOUT_FILE = "layout.json"
ARCHIVE_DIR = "archive"


def generate(directory: Path) -> dict[str, Any]:
    """Run the layout generator of the run in ``directory``; the workflow's ``to_json()``.

    Raises:
        Exception: whatever the layout script raised; ``TypeError`` when it returned no Workflow.
    """
    from glueball.blueprints.entities import Workflow
    from glueball.runtime import lake

    info = json.loads((directory / RUN_FILE).read_text())
    root = directory / ARCHIVE_DIR
    sys.path.insert(0, str(root))
    os.chdir(root)
    lake.expose()
    module, _, function = info["LayoutGenerator"].rpartition(".")
    generator = getattr(importlib.import_module(module), function)
    workflow = generator(info["UserParams"], info["SystemParams"])
    if not isinstance(workflow, Workflow):
        raise TypeError(f"the layout generator {info['LayoutGenerator']} returned {type(workflow).__name__}, "
                        "not an awsglue.blueprint.workflow.Workflow")
    layout: dict[str, Any] = workflow.to_json()
    return layout


def main(argv: list[str]) -> int:
    directory = Path(argv[1]).resolve()
    try:
        layout = generate(directory)
    except BaseException as exc:  # noqa: BLE001 - any failure of the user's script is the run's failure
        traceback.print_exc()
        outcome.report(outcome.FAILED, f"{type(exc).__name__}: {exc}", directory)
        return 1
    outcome.write_durably(directory / LAYOUT_FILE, layout)
    outcome.report(outcome.SUCCEEDED, None, directory)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
