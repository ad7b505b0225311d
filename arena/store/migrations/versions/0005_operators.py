"""Operators: an owner marked so (`arena owner add NAME --operator`) sees every bot's fault evidence on
the match pages, as the bots' owners see their own.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"


def upgrade() -> None:
    with op.batch_alter_table("owners") as batch:
        batch.add_column(sa.Column("operator", sa.Boolean(), nullable=False, server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("owners") as batch:
        batch.drop_column("operator")
