"""The host of the server that ran a crawl, whose disk holds its log (several servers on several machines)

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-29 06:00:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0011'
down_revision = '0010'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('glue_crawl') as batch:
        batch.add_column(sa.Column('host', sa.String(length=255), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('glue_crawl') as batch:
        batch.drop_column('host')
