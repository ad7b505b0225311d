"""Pre-flights are leased: a web server running one holds it until a time it keeps renewing, so a second web
server on the same database never runs it too, and one left by a server that died is taken up again.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"


def upgrade() -> None:
    with op.batch_alter_table("submissions") as table:
        table.add_column(sa.Column("leased_by", sa.String(64), nullable=True))
        table.add_column(sa.Column("lease_until", sa.DateTime(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("submissions") as table:
        table.drop_column("lease_until")
        table.drop_column("leased_by")
