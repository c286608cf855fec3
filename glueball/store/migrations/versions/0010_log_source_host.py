"""The host whose disk holds a run log source's file (several servers on several machines)

Revision ID: 0010
Revises: 0007
Create Date: 2026-11-28 09:20:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0010'
down_revision = '0009'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('logs_source') as batch:
        batch.add_column(sa.Column('host', sa.String(length=255), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('logs_source') as batch:
        batch.drop_column('host')
