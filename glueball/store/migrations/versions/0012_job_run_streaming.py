"""A streaming job run's batch summary, kept in the store by the server watching it (several servers on several
machines show the same)

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-29 16:20:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = '0012'
down_revision = '0011'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('glue_job_run') as batch:
        batch.add_column(sa.Column('streaming', sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), 'postgresql'),
                                   nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('glue_job_run') as batch:
        batch.drop_column('streaming')
