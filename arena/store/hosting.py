"""What a hosted ladder keeps beside the results: uploads over the web and their progress, owners'
browser sessions, and remote bots. (The owners themselves are `store.owners`, bot versions `store.bots`.)"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, Iterable

from sqlalchemy import and_, delete, func, insert, or_, select, update

from arena.store.models import Owner, OwnerSession, RemoteBot, Submission, utcnow
from arena.store.repository import Store
from arena.store.rows import RemoteBotRow, SubmissionRow
from arena.store.retry import retried_on_lost_connection

FINAL = ("live", "failed", "rejected", "duplicate", "error")


@retried_on_lost_connection
class Hosting:
    """Uploads, sessions and remote bots, over a Store's database."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.engine = store.engine

    # sessions -----------------------------------------------------------------------------------

    def add_session(self, token_hash: str, owner: str, csrf: str, expires_at: datetime) -> None:
        with self.engine.begin() as conn:
            conn.execute(delete(OwnerSession).where(OwnerSession.expires_at < utcnow()))
            conn.execute(insert(OwnerSession).values(token_hash=token_hash, owner=owner, csrf=csrf,
                                                     created_at=utcnow(), expires_at=expires_at))

    def session(self, token_hash: str) -> tuple[str, str] | None:
        """(owner, CSRF token) of a session that has not expired, or None."""
        with self.engine.connect() as conn:
            row = conn.execute(select(OwnerSession.owner, OwnerSession.csrf)
                               .where(OwnerSession.token_hash == token_hash,
                                      OwnerSession.expires_at > utcnow())).first()
        return (row.owner, row.csrf) if row is not None else None

    def end_session(self, token_hash: str) -> None:
        with self.engine.begin() as conn:
            conn.execute(delete(OwnerSession).where(OwnerSession.token_hash == token_hash))

    def end_sessions(self, owner: str) -> None:
        """Sign an owner out everywhere (their token changed)."""
        with self.engine.begin() as conn:
            conn.execute(delete(OwnerSession).where(OwnerSession.owner == owner))

    # submissions --------------------------------------------------------------------------------

    def add_submission(self, owner: str, filename: str, size: int, upload_path: str,
                       per_hour: int | None = None) -> int | None:
        """Queue an upload; None (nothing stored) when the owner has made `per_hour` uploads in the last hour.
        Counted and added in one transaction that holds the owner's row: uploads sent at once cannot all slip
        under the limit (SQLite's write transactions are serial anyway; PostgreSQL locks the row)."""
        with self.engine.begin() as conn:
            if per_hour is not None:
                conn.execute(select(Owner.name).where(Owner.name == owner).with_for_update())
                made = conn.execute(select(func.count()).select_from(Submission).where(
                    Submission.owner == owner, Submission.created_at >= utcnow() - timedelta(hours=1))).scalar()
                if int(made or 0) >= per_hour:
                    return None
            key = conn.execute(insert(Submission).values(
                owner=owner, filename=filename, size=size, upload_path=upload_path, status="queued", events=[],
                created_at=utcnow())).inserted_primary_key
        assert key is not None
        return int(key[0])

    def submission(self, submission_id: int) -> SubmissionRow | None:
        with self.engine.connect() as conn:
            row = conn.execute(select(Submission.__table__).where(Submission.id == submission_id)).first()
        return SubmissionRow(**row._mapping) if row is not None else None

    def submissions(self, owner: str, limit: int = 50) -> list[SubmissionRow]:
        """An owner's uploads, newest first."""
        with self.engine.connect() as conn:
            rows = conn.execute(select(Submission.__table__).where(Submission.owner == owner)
                                .order_by(Submission.id.desc()).limit(limit))
            return [SubmissionRow(**row._mapping) for row in rows]

    def uploads_since(self, owner: str, since: datetime) -> int:
        with self.engine.connect() as conn:
            return int(conn.execute(select(func.count()).select_from(Submission)
                                    .where(Submission.owner == owner, Submission.created_at >= since)).scalar() or 0)

    def queued(self) -> list[tuple[int, str]]:
        """(id, owner) of the submissions waiting for a worker, oldest first: those queued, and those running under
        a lease that ran out (the web server running it is gone)."""
        with self.engine.connect() as conn:
            return [(row.id, row.owner) for row in conn.execute(
                select(Submission.id, Submission.owner).where(_claimable()).order_by(Submission.id))]

    def claim(self, submission_id: int, holder: str, lease_s: float) -> bool:
        """Take a waiting submission for `holder` (a web server) for `lease_s` seconds (to renew); False if another
        took it first. One taken again after its lease ran out starts afresh."""
        with self.engine.begin() as conn:
            return bool(conn.execute(update(Submission).where(Submission.id == submission_id, _claimable())
                                     .values(status="running", started_at=utcnow(), events=[], leased_by=holder,
                                             lease_until=utcnow() + timedelta(seconds=lease_s))).rowcount)

    def renew(self, submission_id: int, holder: str, lease_s: float) -> bool:
        """Keep holding a running submission another `lease_s` seconds; False if it is no longer `holder`'s."""
        with self.engine.begin() as conn:
            return bool(conn.execute(update(Submission).where(
                Submission.id == submission_id, Submission.status == "running", Submission.leased_by == holder)
                .values(lease_until=utcnow() + timedelta(seconds=lease_s))).rowcount)

    def add_event(self, submission_id: int, event: dict[str, Any]) -> None:
        """Append one progress event (a stage, a pre-flight step) to a running submission."""
        with self.engine.begin() as conn:
            events = conn.execute(select(Submission.events).where(Submission.id == submission_id)).scalar() or []
            conn.execute(update(Submission).where(Submission.id == submission_id)
                         .values(events=[*events, {**event, "at": utcnow().isoformat(timespec="milliseconds")}]))

    def finish(self, submission_id: int, status: str, result: dict[str, Any], *, name: str | None = None,
               version: str | None = None, bot_id: int | None = None) -> None:
        assert status in FINAL
        with self.engine.begin() as conn:
            conn.execute(update(Submission).where(Submission.id == submission_id)
                         .values(status=status, result=result, name=name, version=version, bot_id=bot_id,
                                 finished_at=utcnow()))

    # remote bots --------------------------------------------------------------------------------

    def add_remote_bot(self, name: str, owner: str, token_hash: str, bot_id: int) -> None:
        with self.engine.begin() as conn:
            conn.execute(insert(RemoteBot).values(name=name, owner=owner, token_hash=token_hash, bot_id=bot_id,
                                                  created_at=utcnow(), online=0))

    def set_remote_token(self, name: str, token_hash: str) -> None:
        with self.engine.begin() as conn:
            conn.execute(update(RemoteBot).where(RemoteBot.name == name).values(token_hash=token_hash))

    def remote_bot(self, name: str) -> RemoteBotRow | None:
        with self.engine.connect() as conn:
            row = conn.execute(select(RemoteBot.__table__).where(RemoteBot.name == name)).first()
        return RemoteBotRow(**row._mapping) if row is not None else None

    def remote_bots(self, owner: str | None = None) -> list[RemoteBotRow]:
        query = select(RemoteBot.__table__).order_by(RemoteBot.name)
        if owner is not None:
            query = query.where(RemoteBot.owner == owner)
        with self.engine.connect() as conn:
            return [RemoteBotRow(**row._mapping) for row in conn.execute(query)]

    def note_presence(self, streams: dict[str, int], names: Iterable[str]) -> None:
        """Record which remote bots are connected now (open streams) and when each was last seen."""
        now = utcnow()
        with self.engine.begin() as conn:
            for name in names:
                count = streams.get(name, 0)
                values: dict[str, Any] = {"online": count}
                if count:
                    values["last_seen"] = now
                conn.execute(update(RemoteBot).where(RemoteBot.name == name).values(**values))


def _claimable() -> Any:
    """The condition of a submission a worker may take: queued, or running under a lease that ran out."""
    return or_(Submission.status == "queued",
               and_(Submission.status == "running",
                    or_(Submission.lease_until.is_(None), Submission.lease_until < utcnow())))
