"""Visual jobs: the script of a job that has a graph, made when the job is created or updated.

CreateJob and UpdateJob keep ``CodeGenConfigurationNodes`` as given (GetJob answers the same
graph). When there is a graph, :func:`stage_script` checks it and generates the script; the job's
``Command.ScriptLocation`` is where the script goes (by default
``s3://aws-glue-assets-<account>-<region>/scripts/<job name>.py``, as Glue Studio does) and the
files of custom visual transforms join ``--extra-py-files``. :meth:`StagedScript.write` puts the
script in the object store once the job is stored, so a refused request leaves nothing behind.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from glueball.errors import InvalidInputException
from glueball.objects import locations
from glueball.objects.access import Objects
from glueball.studio.codegen import generate
from glueball.studio.custom import (
    TRANSFORMS_PREFIX,
    Definition,
    TransformFileError,
    assets_bucket,
    read_transform_object,
)

Spec = dict[str, Any]


@dataclass(frozen=True)
class StagedScript:
    """A generated script and the object-store file it belongs in."""

    uri: str
    objects: Objects
    text: str

    def write(self) -> None:
        """Put the script at its location (whole or not at all)."""
        self.objects.write(self.uri, self.text.encode("utf-8"))


def custom_transform_reader(account_id: str, region: str, objects: Objects) -> Callable[[str], Definition]:
    """Reads a custom visual transform of the account's assets bucket (``transforms/``) by its .py URI."""
    prefix = f"s3://{assets_bucket(account_id, region)}/{TRANSFORMS_PREFIX}"

    def read(uri: str) -> Definition:
        if not uri.startswith(prefix):
            raise TransformFileError(f"{uri}: custom visual transforms live under {prefix}")
        try:
            return read_transform_object(objects, uri)[0]
        except locations.LocationError as exc:
            raise TransformFileError(f"{uri}: {exc}") from exc
    return read


def default_script_location(account_id: str, region: str, job_name: str) -> str:
    return f"s3://{assets_bucket(account_id, region)}/scripts/{job_name}.py"


def stage_script(spec: Spec, job_name: str, account_id: str, region: str,
                 objects: Objects) -> tuple[Spec, StagedScript | None]:
    """The job's stored definition and, for a job with a graph, its generated script (not yet written).

    Raises:
        InvalidInputException: the graph is invalid (naming the node), or the script location is not
            in the object store.
    """
    nodes = spec.get("CodeGenConfigurationNodes")
    if not nodes:
        return spec, None
    script = generate(nodes, custom_transforms=custom_transform_reader(account_id, region, objects))
    stored = copy.deepcopy(spec)
    command = stored["Command"]
    location = command.get("ScriptLocation") or default_script_location(account_id, region, job_name)
    if not locations.is_s3(location):
        raise InvalidInputException(f"Command.ScriptLocation of a visual job must be an s3:// location (glueball "
                                    f"writes the generated script there), got {location!r}")
    command["ScriptLocation"] = location
    if script.extra_py_files:
        arguments = stored.setdefault("DefaultArguments", {})
        present = [p for p in arguments.get("--extra-py-files", "").split(",") if p]
        arguments["--extra-py-files"] = ",".join(dict.fromkeys([*present, *script.extra_py_files]))
    try:
        locations.parse_s3(location)
    except locations.LocationError as exc:
        raise InvalidInputException(f"Command.ScriptLocation {location!r}: {exc}") from exc
    return stored, StagedScript(location, objects, script.text())
