"""Bot versions and the hosted ladder: a bot's status (pending, failed, live, retired), its pre-flight
report, when it was retired, the version it follows and the games it declares; owners and their
token hashes; infrastructure faults (matches to try again, never scored).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"


def upgrade() -> None:
    with op.batch_alter_table("bots") as batch:
        batch.add_column(sa.Column("status", sa.String(16), nullable=False, server_default="live"))
        batch.add_column(sa.Column("report", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("retired_at", sa.DateTime(), nullable=True))
        batch.add_column(sa.Column("parent_id", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("games", sa.JSON(), nullable=True))
        batch.create_foreign_key("fk_bots_parent", "bots", ["parent_id"], ["id"])
    op.create_table(
        "owners",
        sa.Column("name", sa.String(200), primary_key=True),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
    )
    op.create_table(
        "infra_faults",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("tournament_id", sa.Integer(), sa.ForeignKey("tournaments.id", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("pairing", sa.Integer(), nullable=False),
        sa.Column("rotation", sa.Integer(), nullable=False),
        sa.Column("bots", sa.JSON(), nullable=False),
        sa.Column("detail", sa.Text(), nullable=False),
        sa.Column("at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_infra_faults_key", "infra_faults", ["tournament_id", "round", "pairing", "rotation"])


def downgrade() -> None:
    op.drop_index("ix_infra_faults_key", "infra_faults")
    op.drop_table("infra_faults")
    op.drop_table("owners")
    with op.batch_alter_table("bots") as batch:
        batch.drop_constraint("fk_bots_parent", type_="foreignkey")
        for column in ("games", "parent_id", "retired_at", "report", "status"):
            batch.drop_column(column)
