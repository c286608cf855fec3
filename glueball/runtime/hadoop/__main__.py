"""``python -m glueball.runtime.hadoop``: build glueball's Hadoop FileSystem jar ahead of time and print its path.

Exit status 1, with the reason on stderr, when it cannot be built (no JDK, javac failed).
"""

from __future__ import annotations

import sys

from glueball.runtime.hadoop import HadoopJarError, build


def main() -> int:
    """Build the jar (or find it in the cache); 0 and its path, or 1 and why not."""
    try:
        print(build())
    except HadoopJarError as exc:
        print(f"glueball: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
