"""A bot's ratings found by its id (its page reads them in every pool), without a scan of the pool's ratings."""

from __future__ import annotations

from alembic import op

revision = "0006"
down_revision = "0005"


def upgrade() -> None:
    op.create_index("ix_ratings_bot", "ratings", ["bot_id"])


def downgrade() -> None:
    op.drop_index("ix_ratings_bot", table_name="ratings")
