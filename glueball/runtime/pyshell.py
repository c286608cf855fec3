"""``python -m glueball.runtime.pyshell SCRIPT [args]``: a Python shell job's script, unchanged, with its own
boto3 clients reaching glueball (:mod:`glueball.runtime.lake`) — Glue's Python shell has no Spark."""

from __future__ import annotations

import sys
from pathlib import Path

from glueball.runtime.lake import expose
from glueball.runtime.scriptrunner import execute


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: python -m glueball.runtime.pyshell SCRIPT [args ...]", file=sys.stderr)
        return 2
    expose()
    return execute(Path(argv[0]).resolve(), argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
