"""Built-in agents go by one name everywhere: 'openspiel-mcts:simulations=20:evaluator=arena' becomes
'openspiel-mcts(20,arena)', as the command line has always shown it (the spec stays in `spec`).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"

bots = sa.table("bots", sa.column("id", sa.Integer), sa.column("name", sa.String), sa.column("version", sa.String),
                sa.column("artifact_hash", sa.String), sa.column("kind", sa.String), sa.column("spec", sa.Text))


def compact(spec: str) -> str:
    """The naming rule as of this revision (arena.agents.agent_name); frozen here as migrations are."""
    name, _, settings = spec.strip().partition(":")
    return f"{name}({','.join(part.partition('=')[2] or part for part in settings.split(':'))})"


def upgrade() -> None:
    conn = op.get_bind()
    rows = conn.execute(sa.select(bots.c.id, bots.c.name, bots.c.version, bots.c.artifact_hash, bots.c.spec)
                        .where(bots.c.kind == "agent")).all()
    taken = {(row.name, row.version, row.artifact_hash) for row in rows}
    for row in rows:
        if row.name != row.spec or ":" not in row.spec:
            continue  # named by its user, or no settings to show
        new = compact(row.spec)
        if (new, row.version, row.artifact_hash) in taken:
            continue  # the new name is already stored (a newer run made it): leave both as they are
        conn.execute(sa.update(bots).where(bots.c.id == row.id).values(name=new))
        taken.add((new, row.version, row.artifact_hash))


def downgrade() -> None:
    conn = op.get_bind()
    for row in conn.execute(sa.select(bots.c.id, bots.c.name, bots.c.spec).where(bots.c.kind == "agent")).all():
        if ":" in row.spec and row.name == compact(row.spec):
            conn.execute(sa.update(bots).where(bots.c.id == row.id).values(name=row.spec))
