"""``getResolvedOptions``: the job arguments of ``sys.argv``, resolved as AWS Glue resolves them.

Behaviour mirrored from Glue's documentation and its ``awsglue.utils``:

- each requested name ``X`` is a required ``--X value`` argument; anything else on
  the command line is ignored (Glue passes many arguments a script does not ask for);
- ``--JOB_NAME`` may be requested; ``--JOB_ID``, ``--JOB_RUN_ID`` and
  ``--SECURITY_CONFIGURATION``, the bookmark options and ``encryption-type`` are
  reserved: requesting them is a ``RuntimeError``, but they are parsed when given;
- ``TempDir`` and ``RedshiftTempDir`` are optional and mirror each other;
- ``job_bookmark_option`` is always in the answer: ``--job-bookmark-option``, else
  the legacy ``--continuation-option`` translated, else ``job-bookmark-disable``;
  ``--job-bookmark-from``/``--job-bookmark-to`` must come together, and only with
  ``job-bookmark-pause``;
- the answer is also merged into the module-level ``_global_args``.
"""

from __future__ import annotations

import argparse
from typing import Any

JOB_BOOKMARK_OPTION = "--job-bookmark-option"
JOB_BOOKMARK_VALUES = ("job-bookmark-enable", "job-bookmark-pause", "job-bookmark-disable")
CONTINUATION_OPTION = "--continuation-option"
CONTINUATION_VALUES = ("continuation-enabled", "continuation-readonly", "continuation-ignore")
BOOKMARK_RANGE_OPTIONS = ("--job-bookmark-from", "--job-bookmark-to")
ID_OPTIONS = ("--JOB_NAME", "--JOB_ID", "--JOB_RUN_ID", "--SECURITY_CONFIGURATION")
ENCRYPTION_OPTION = "--encryption-type"
ENCRYPTION_VALUES = ("sse-s3",)
TEMP_DIRS = ("TempDir", "RedshiftTempDir")

_global_args: dict[str, Any] = {}


class GlueArgumentError(Exception):
    """A job argument is missing or has a value Glue does not accept."""


class GlueArgumentParser(argparse.ArgumentParser):
    """An ArgumentParser that raises ``GlueArgumentError`` instead of exiting."""

    def error(self, message: str) -> Any:
        raise GlueArgumentError(message)


def _reserved(options: list[str]) -> None:
    reserved = [JOB_BOOKMARK_OPTION, CONTINUATION_OPTION, *BOOKMARK_RANGE_OPTIONS, *ID_OPTIONS[1:],
                ENCRYPTION_OPTION]
    for option in reserved:
        if option[2:] in options:
            raise RuntimeError(f"Using reserved arguments {option}")


def getResolvedOptions(args: list[str], options: list[str]) -> dict[str, Any]:  # noqa: N802
    """Resolve ``options`` (names without ``--``) from ``args`` (usually ``sys.argv``).

    Raises:
        RuntimeError: a reserved argument was requested, or the bookmark range options are inconsistent.
        GlueArgumentError: a requested argument is missing, or a choice argument has a bad value.
    """
    _reserved(options)
    parser = GlueArgumentParser()
    parser.add_argument(JOB_BOOKMARK_OPTION, choices=JOB_BOOKMARK_VALUES, required=False)
    parser.add_argument(CONTINUATION_OPTION, choices=CONTINUATION_VALUES, required=False)
    for option in BOOKMARK_RANGE_OPTIONS:
        parser.add_argument(option, required=False)
    for option in ID_OPTIONS[1:]:
        parser.add_argument(option, required=False)
    parser.add_argument(ENCRYPTION_OPTION, choices=ENCRYPTION_VALUES)
    for temp_dir in TEMP_DIRS:
        parser.add_argument(f"--{temp_dir}", required=False)
    for option in options:
        if option not in TEMP_DIRS:
            parser.add_argument(f"--{option}", required=True)

    parsed, _unknown = parser.parse_known_args(args[1:])
    resolved = vars(parsed)

    if resolved.get("TempDir") is not None:
        resolved["RedshiftTempDir"] = resolved["TempDir"]
    elif resolved.get("RedshiftTempDir") is not None:
        resolved["TempDir"] = resolved["RedshiftTempDir"]

    continuation = resolved.pop("continuation_option", None)
    if resolved.get("job_bookmark_option") is None:
        if continuation is None:
            resolved["job_bookmark_option"] = "job-bookmark-disable"
        else:
            resolved["job_bookmark_option"] = JOB_BOOKMARK_VALUES[CONTINUATION_VALUES.index(continuation)]

    missing = [o for o in BOOKMARK_RANGE_OPTIONS if resolved.get(o[2:].replace("-", "_")) is None]
    if resolved["job_bookmark_option"] == "job-bookmark-pause":
        if len(missing) == 1:
            raise RuntimeError(f"Missing option or value for {missing[0]}")
    elif not missing:
        raise RuntimeError(f"Invalid option(s) {' '.join(BOOKMARK_RANGE_OPTIONS)} for "
                           f"{resolved['job_bookmark_option']}")

    _global_args.update(resolved)
    return resolved
