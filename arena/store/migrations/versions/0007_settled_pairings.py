"""Pairings marked settled once every seat rotation is stored (or a bye): a ladder's round reads only the
open ones, not every pairing it ever planned. Existing pairings are settled from their stored matches.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"


def upgrade() -> None:
    with op.batch_alter_table("pairings") as batch:
        batch.add_column(sa.Column("settled", sa.Boolean(), nullable=False, server_default=sa.false()))
    op.create_index("ix_pairings_open", "pairings", ["tournament_id", "settled", "round"])
    op.execute('UPDATE pairings SET settled = (SELECT count(*) >= max(m.num_seats) FROM matches m '
               'WHERE m.tournament_id = pairings.tournament_id AND m.round = pairings.round '
               'AND m.pairing = pairings."index") IS TRUE')


def downgrade() -> None:
    op.drop_index("ix_pairings_open", table_name="pairings")
    with op.batch_alter_table("pairings") as batch:
        batch.drop_column("settled")
