"""databrew recipes

Revision ID: 0008
Revises: 0003
Create Date: 2026-11-25 09:40:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = '0008'
down_revision = '0003'
branch_labels = None
depends_on = None

_JSON = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), 'postgresql')


def upgrade() -> None:
    op.create_table('databrew_recipe',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('account_id', sa.String(length=12), nullable=False),
    sa.Column('region', sa.String(length=64), nullable=False),
    sa.Column('name', sa.String(length=255), nullable=False),
    sa.Column('description', sa.Text(), nullable=True),
    sa.Column('tags', _JSON, nullable=False),
    sa.Column('steps', _JSON, nullable=False),
    sa.Column('next_major', sa.Integer(), nullable=False),
    sa.Column('created_by', sa.String(length=2048), nullable=False),
    sa.Column('create_date', sa.Float(), nullable=False),
    sa.Column('last_modified_by', sa.String(length=2048), nullable=False),
    sa.Column('last_modified_date', sa.Float(), nullable=False),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('account_id', 'region', 'name')
    )
    op.create_table('databrew_recipe_version',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('recipe_row_id', sa.Integer(), nullable=False),
    sa.Column('major', sa.Integer(), nullable=False),
    sa.Column('description', sa.Text(), nullable=True),
    sa.Column('steps', _JSON, nullable=False),
    sa.Column('published_by', sa.String(length=2048), nullable=False),
    sa.Column('published_date', sa.Float(), nullable=False),
    sa.ForeignKeyConstraint(['recipe_row_id'], ['databrew_recipe.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('recipe_row_id', 'major')
    )


def downgrade() -> None:
    op.drop_table('databrew_recipe_version')
    op.drop_table('databrew_recipe')
