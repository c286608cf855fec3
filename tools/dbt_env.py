"""The dbt-glue test's virtualenv: ``python -m tools.dbt_env`` builds ``build/dbt-venv`` once (a few minutes).

dbt-glue, dbt-core and awswrangler run as the programs their users run (the ``dbt`` command, a Python script
importing awswrangler) against ``glueball server``; they live in a virtualenv of their own because their
pins (pathspec < 0.13, protobuf < 7, pyarrow < 26) conflict with glueball's test tools.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VENV = ROOT / "build" / "dbt-venv"
REQUIREMENTS = ROOT / "tools" / "dbt-requirements.txt"


def ensure(venv: Path = VENV) -> Path:
    """The virtualenv's ``bin`` folder, built first if it is missing or its requirements changed."""
    marker = venv / ".installed"
    wanted = REQUIREMENTS.read_text()
    if marker.exists() and marker.read_text() == wanted:
        return venv / "bin"
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "--upgrade", "pip"], check=True)
    subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "-r", str(REQUIREMENTS)], check=True)
    marker.write_text(wanted)
    return venv / "bin"


if __name__ == "__main__":
    print(ensure())
