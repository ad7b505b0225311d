"""The ladder service's state, one frozen value: what `arena ladder serve` writes down in its ladder's stored
tournament (settings["service"], as JSON) and reads back, and `arena ladder status` reads."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class LastRound:
    """What the service's last round did for this ladder (arena.ladder.service.PoolRound, stored)."""

    round: int | None  # counted from 0; shown from 1
    started_at: str | None  # naive UTC, ISO
    pool: str = ""
    bots: int = 0
    planned: int = 0
    carried: int = 0
    stored: int = 0
    infrastructure: int = 0
    left: int = 0
    seconds: float = 0.0
    note: str = ""

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> LastRound:
        """The stored form read back (a key it lacks keeps its default)."""
        known = {name: data[name] for name in cls.__dataclass_fields__ if name in data}
        return cls(**{"round": None, "started_at": None, **known})

    def to_json(self) -> dict[str, Any]:
        """The stored form: the round's report (PoolRound.to_json), then when it started."""
        return {"pool": self.pool, "round": self.round, "bots": self.bots, "planned": self.planned,
                "carried": self.carried, "stored": self.stored, "infrastructure": self.infrastructure,
                "left": self.left, "seconds": self.seconds, "note": self.note, "started_at": self.started_at}


@dataclass(frozen=True)
class LadderState:
    """The service's state for one ladder; None where it has not written that yet. Times are naive UTC, ISO."""

    seen_match_id: int | None = None  # the newest stored match already sent to the webhook (none: nothing is news)
    settings: dict[str, Any] | None = None  # what the service was told (LadderSettings.to_json)
    heartbeat: str | None = None  # when the service last wrote
    pid: int | None = None
    field: tuple[int, ...] | None = None  # the bots of its last round
    durations: dict[int, float] | None = None  # per bot: how long its matches take (seconds, smoothed)
    last_round: LastRound | None = None
    next_round_at: str | None = None
    stopped_at: str | None = None  # set when the service stopped (cleared by its next write)
    waiting: str | None = None  # what its round waits for (no worker serves its queue), while it does

    @property
    def match_seconds(self) -> dict[int, float]:
        """Per bot, how long its matches take (a copy; empty before the first is timed)."""
        return dict(self.durations or {})

    def last_field(self, otherwise: Sequence[int]) -> Sequence[int]:
        """The bots of its last round (`otherwise` before the first)."""
        return otherwise if self.field is None else self.field

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> LadderState:
        """The stored form read back ({}: a ladder the service never wrote to)."""
        last, bots, durations = data.get("last_round"), data.get("field"), data.get("durations")
        return cls(seen_match_id=data.get("seen_match_id"), settings=data.get("settings"),
                   heartbeat=data.get("heartbeat"), pid=data.get("pid"),
                   field=None if bots is None else tuple(bots),
                   durations=None if durations is None else {int(bot): float(seconds)
                                                             for bot, seconds in durations.items()},
                   last_round=LastRound.from_json(last) if last else None, next_round_at=data.get("next_round_at"),
                   stopped_at=data.get("stopped_at"), waiting=data.get("waiting"))

    def to_json(self) -> dict[str, Any]:
        """The stored form: what has been written, in the order the service first writes it."""
        data: dict[str, Any] = {
            "seen_match_id": self.seen_match_id, "settings": self.settings, "heartbeat": self.heartbeat,
            "pid": self.pid, "field": None if self.field is None else list(self.field),
            "durations": None if self.durations is None else {str(bot): value for bot, value in self.durations.items()},
            "last_round": None if self.last_round is None else self.last_round.to_json(),
            "next_round_at": self.next_round_at, "stopped_at": self.stopped_at, "waiting": self.waiting}
        return {key: value for key, value in data.items() if value is not None}
