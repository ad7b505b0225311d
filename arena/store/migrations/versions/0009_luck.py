"""Luck per seat: what chance gave each seat of a match (arena.luck), as its result is corrected by it."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"


def upgrade() -> None:
    with op.batch_alter_table("match_seats") as table:
        table.add_column(sa.Column("luck", sa.Float(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("match_seats") as table:
        table.drop_column("luck")
