"""The first schema: bots, tournaments, entries, pairings, records, matches, seats, ratings, history."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None


def upgrade() -> None:
    op.create_table(
        "bots",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("version", sa.String(64), nullable=False),
        sa.Column("artifact_hash", sa.String(64), nullable=False),
        sa.Column("owner", sa.String(200), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("spec", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.UniqueConstraint("name", "version", "artifact_hash", name="uq_bots_identity"),
    )
    op.create_index("ix_bots_name", "bots", ["name"])
    op.create_table(
        "tournaments",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("name", sa.String(200), nullable=True, unique=True),
        sa.Column("game", sa.String(200), nullable=False),
        sa.Column("pool", sa.String(300), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("format", sa.String(32), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("rounds", sa.Integer(), nullable=False),
        sa.Column("settings", sa.JSON(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("finished_at", sa.DateTime(), nullable=True),
    )
    op.create_index("ix_tournaments_pool", "tournaments", ["pool"])
    op.create_table(
        "entries",
        sa.Column("tournament_id", sa.Integer(), sa.ForeignKey("tournaments.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("position", sa.Integer(), primary_key=True),
        sa.Column("bot_id", sa.Integer(), sa.ForeignKey("bots.id"), nullable=False),
    )
    op.create_table(
        "pairings",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("tournament_id", sa.Integer(), sa.ForeignKey("tournaments.id", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("index", sa.Integer(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("bots", sa.JSON(), nullable=False),
        sa.Column("label", sa.String(64), nullable=False),
        sa.UniqueConstraint("tournament_id", "round", "index", name="uq_pairings_key"),
    )
    op.create_table(
        "records",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("encoding", sa.String(32), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
    )
    op.create_table(
        "matches",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("tournament_id", sa.Integer(), sa.ForeignKey("tournaments.id", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("pairing", sa.Integer(), nullable=False),
        sa.Column("rotation", sa.Integer(), nullable=False),
        sa.Column("uid", sa.String(32), nullable=False, unique=True),
        sa.Column("game", sa.String(200), nullable=False),
        sa.Column("pool", sa.String(300), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("num_seats", sa.Integer(), nullable=False),
        sa.Column("ranking", sa.JSON(), nullable=False),
        sa.Column("scores", sa.JSON(), nullable=False),
        sa.Column("reason", sa.String(64), nullable=False),
        sa.Column("offender", sa.Integer(), nullable=True),
        sa.Column("detail", sa.Text(), nullable=False),
        sa.Column("steps", sa.Integer(), nullable=False),
        sa.Column("decisions", sa.Integer(), nullable=False),
        sa.Column("timings", sa.JSON(), nullable=False),
        sa.Column("record_id", sa.Integer(), sa.ForeignKey("records.id"), nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("started_at", sa.DateTime(), nullable=False),
        sa.Column("finished_at", sa.DateTime(), nullable=False),
        sa.UniqueConstraint("tournament_id", "round", "pairing", "rotation", name="uq_matches_key"),
    )
    op.create_index("ix_matches_pool_id", "matches", ["pool", "id"])
    op.create_table(
        "match_seats",
        sa.Column("match_id", sa.Integer(), sa.ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("seat", sa.Integer(), primary_key=True),
        sa.Column("bot_id", sa.Integer(), sa.ForeignKey("bots.id"), nullable=False),
        sa.Column("rank", sa.Integer(), nullable=False),
        sa.Column("score", sa.Float(), nullable=True),
    )
    op.create_index("ix_match_seats_bot", "match_seats", ["bot_id", "match_id"])
    op.create_table(
        "ratings",
        sa.Column("pool", sa.String(300), primary_key=True),
        sa.Column("bot_id", sa.Integer(), sa.ForeignKey("bots.id"), primary_key=True),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("wins", sa.Integer(), nullable=False),
        sa.Column("draws", sa.Integer(), nullable=False),
        sa.Column("losses", sa.Integer(), nullable=False),
        sa.Column("last_match_id", sa.Integer(), nullable=True),
        sa.Column("last_played", sa.DateTime(), nullable=True),
    )
    op.create_table(
        "rating_history",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("pool", sa.String(300), nullable=False),
        sa.Column("bot_id", sa.Integer(), sa.ForeignKey("bots.id"), nullable=False),
        sa.Column("match_id", sa.Integer(), sa.ForeignKey("matches.id", ondelete="CASCADE"), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("played_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_rating_history_bot", "rating_history", ["pool", "bot_id", "match_id"])


def downgrade() -> None:
    for table in ("rating_history", "ratings", "match_seats", "matches", "records", "pairings", "entries",
                  "tournaments", "bots"):
        op.drop_table(table)
