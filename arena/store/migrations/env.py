"""Alembic environment: migrations run on the connection Arena hands over (see arena.store.db.migrate)."""

from __future__ import annotations

from alembic import context

from arena.store.models import Base

connection = context.config.attributes.get("connection")
if connection is None:  # pragma: no cover - Arena always passes its connection
    raise RuntimeError("arena migrations run through arena.store.db.migrate(engine)")

context.configure(connection=connection, target_metadata=Base.metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
