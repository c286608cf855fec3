"""Regenerate the initial migration from glueball.store.schema (pre-release only).

Until the first release the schema has one migration, 0001; after a release,
add a new revision instead (``alembic revision --autogenerate``).
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

from alembic import command

from glueball.store.engine import create_store_engine
from glueball.store.migrate import MIGRATIONS, alembic_config


def main() -> None:
    for old in (MIGRATIONS / "versions").glob("0001_*.py"):
        old.unlink()
    with tempfile.TemporaryDirectory() as tmp:
        engine = create_store_engine(f"sqlite:///{Path(tmp) / 'empty.db'}")
        command.revision(alembic_config(engine), message="catalog connections and tags",
                         autogenerate=True, rev_id="0001")
    for path in (MIGRATIONS / "versions").glob("0001_*.py"):
        text = path.read_text().replace("astext_type=Text()", "astext_type=sa.Text()")
        text = re.sub(r"Create Date: .*", "Create Date: generated from glueball.store.schema", text)
        path.write_text(text)
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
