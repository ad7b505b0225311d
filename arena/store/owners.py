"""The owners table: who may submit and retire bot names on a shared server (a name and the hash of its
token), and who of them are operators."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Engine, insert, select, update
from sqlalchemy.exc import IntegrityError

from arena.store.models import Owner, utcnow
from arena.store.retry import retried_on_lost_connection


@retried_on_lost_connection
class Owners:
    """Owners and their tokens."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def add(self, name: str, token_hash: str, operator: bool = False) -> bool:
        """Register an owner, an operator if so (False if the name is taken)."""
        try:
            with self.engine.begin() as conn:
                conn.execute(insert(Owner).values(name=name, token_hash=token_hash, created_at=utcnow(),
                                                  operator=operator))
        except IntegrityError:
            return False
        return True

    def set_token(self, name: str, token_hash: str) -> bool:
        """Give an owner a new token (False for an unknown owner)."""
        with self.engine.begin() as conn:
            return bool(conn.execute(update(Owner).where(Owner.name == name)
                                     .values(token_hash=token_hash)).rowcount)

    def token_hash(self, name: str) -> str | None:
        """The stored hash of an owner's token, or None for an unknown owner."""
        with self.engine.connect() as conn:
            return conn.execute(select(Owner.token_hash).where(Owner.name == name)).scalar()

    def by_token_hash(self, token_hash: str) -> str | None:
        """The owner holding the token whose hash this is, or None."""
        with self.engine.connect() as conn:
            return conn.execute(select(Owner.name).where(Owner.token_hash == token_hash)).scalar()

    def all(self) -> list[tuple[str, datetime]]:
        """(name, registered at) of every owner."""
        with self.engine.connect() as conn:
            return [(row.name, row.created_at) for row in conn.execute(select(Owner.name, Owner.created_at)
                                                                       .order_by(Owner.name))]

    def operators(self) -> set[str]:
        """The owners who are operators (they see every bot's fault evidence)."""
        with self.engine.connect() as conn:
            return set(conn.execute(select(Owner.name).where(Owner.operator.is_(True))).scalars())
