"""docs/recipes.md lists every action glueball runs, with each of its parameters, and no other action."""

from __future__ import annotations

import re
from pathlib import Path

from glueball.recipes.steps import SPECS

DOC = Path(__file__).resolve().parents[2] / "docs" / "recipes.md"


def test_the_actions_table_matches_the_engine() -> None:
    rows = {m.group(1): m.group(2) for m in re.finditer(r"^\| `([A-Z_]+)` \| (.*?) \|", DOC.read_text(), re.M)}
    assert set(rows) == set(SPECS)
    for operation, spec in SPECS.items():
        for param in spec.params:
            shown = f"**`{param.name}`**" if param.required else f"`{param.name}`"
            assert shown in rows[operation], (operation, param.name)
    assert f"{len(SPECS)} actions" in DOC.read_text()
