"""The ladder over the network: uploads over the web and their pre-flight progress, owners' browser
sessions, and remote bots (their token hashes and when they were last seen).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"


def upgrade() -> None:
    op.create_table(
        "submissions",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("owner", sa.String(200), nullable=False),
        sa.Column("filename", sa.String(300), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("upload_path", sa.Text(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("name", sa.String(200), nullable=True),
        sa.Column("version", sa.String(64), nullable=True),
        sa.Column("bot_id", sa.Integer(), sa.ForeignKey("bots.id"), nullable=True),
        sa.Column("events", sa.JSON(), nullable=False),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("started_at", sa.DateTime(), nullable=True),
        sa.Column("finished_at", sa.DateTime(), nullable=True),
    )
    op.create_index("ix_submissions_owner_created", "submissions", ["owner", "created_at"])
    op.create_index("ix_submissions_status", "submissions", ["status"])
    op.create_table(
        "owner_sessions",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("owner", sa.String(200), nullable=False),
        sa.Column("csrf", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("expires_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_owner_sessions_owner", "owner_sessions", ["owner"])
    op.create_table(
        "remote_bots",
        sa.Column("name", sa.String(200), primary_key=True),
        sa.Column("owner", sa.String(200), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("bot_id", sa.Integer(), sa.ForeignKey("bots.id"), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("last_seen", sa.DateTime(), nullable=True),
        sa.Column("online", sa.Integer(), nullable=False, server_default="0"),
    )
    op.create_index("ix_remote_bots_owner", "remote_bots", ["owner"])


def downgrade() -> None:
    op.drop_index("ix_remote_bots_owner", "remote_bots")
    op.drop_table("remote_bots")
    op.drop_index("ix_owner_sessions_owner", "owner_sessions")
    op.drop_table("owner_sessions")
    op.drop_index("ix_submissions_status", "submissions")
    op.drop_index("ix_submissions_owner_created", "submissions")
    op.drop_table("submissions")
