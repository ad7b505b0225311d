"""Match records: one JSON object per line.

    {"type": "header", "format": "arena-record/1", "match_id": .., "game": .., "options": {..},
     "seed": .., "players": [{"seat": 0, "name": .., "version": ..}, ..], "versions": {..}, ..}
    {"type": "chance", "n": 0, "outcome": 9, "label": "Red starts"}
    {"type": "decision", "n": 7, "seat": 1, "action": 12, "label": "...", "think_ms": 0.4}
    {"type": "result", "ranking": [1, 0], "reason": "score", "scores": [4, 14], "offender": null}

A record holds everything needed to replay the match exactly (`arena.referee.replay`).

A match's moments have one numbering, wherever they are named (`arena replay`, the match page, the analysis,
the SDK's DecisionRequest, the fault messages): its steps, every line of play (decisions and chance events),
are numbered from 1 (the step of the line with "n": k is step k + 1: the viewer's position after it), and its
decisions, the seats' decisions only, are numbered from 1 over the whole match (decision d is the referee's
d-th DecisionRequest, its `sequence`). A moment is named by both: "step 28 (decision 14)", "decision 14
(step 28)" (`step_name`, `decision_name`).
"""

from __future__ import annotations

import contextlib
import gzip
import json
import math
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from enum import StrEnum
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

from arena.games.base import CHANCE, JSON
from arena.referee.players import PlayerKind

RECORD_FORMAT = "arena-record/1"
#: Bounds on what a record's reader takes: a line's length (a header with its evidence, a decision with what its bot
#: printed, are far shorter) and how deep its JSON nests (Arena writes at most 4 levels).
MAX_LINE_CHARS = 16 * 1024 * 1024
MAX_DEPTH = 32
_encode_line = json.JSONEncoder(separators=(",", ":")).encode  # one encoder for every line
_quote = json.encoder.encode_basestring_ascii  # (the encoder's own quoting of a string)
#: A decision line's own keys: a timing of the same name would take the key's place (to_json), so such a step is
#: written through the encoder.
_DECISION_KEYS = frozenset(("type", "n", "seat", "action", "label", "note", "output"))


def step_name(step: int, decision: int | None) -> str:
    """A step named by the match's one numbering: "step 28 (decision 14)", or "step 29 (chance)" for a chance
    event (`decision` None)."""
    return f"step {step} (decision {decision})" if decision is not None else f"step {step} (chance)"


def decision_name(decision: int, step: int) -> str:
    """A decision named by the match's one numbering: "decision 14 (step 28)"."""
    return f"decision {decision} (step {step})"


def new_match_id() -> str:
    """A fresh match id: 32 hex digits from the operating system's randomness (a UUID4's)."""
    return uuid.uuid4().hex


class RecordError(ValueError):
    """A record file is missing, truncated or not a match record."""


class RecordWriteError(OSError):
    """A record that could not be written (a full disk, a folder that may not be written, ...): its errno is the
    cause's, its filename the record's; nothing of it was left behind."""

    def __str__(self) -> str:
        return f"cannot write the record {self.filename}: {self.strerror}"


class Termination(StrEnum):
    """Why a match ended when the referee, not the rules, ended it (its value is the word records, the store and
    the web's JSON carry)."""

    TIMEOUT = "timeout"
    ILLEGAL_ACTION = "illegal_action"
    MALFORMED_MESSAGE = "malformed_message"
    WRONG_SEQUENCE = "wrong_sequence"
    DISCONNECT = "disconnect"
    CRASH = "crash"
    PROTOCOL_ERROR = "protocol_error"
    AGENT_ERROR = "agent_error"
    MEMORY_LIMIT = "memory_limit"  # the kernel stopped a bot program at its memory limit
    PROCESS_LIMIT = "process_limit"  # ... at its limit of processes
    CPU_LIMIT = "cpu_limit"  # ... at its CPU time limit
    VOID = "void"
    MAX_LENGTH = "max_length"
    # not the bots' doing: a worker lost, the referee restarted, a sandbox that could not start. Never
    # scored; a tournament or ladder plays the match again (arena.tournament.runner)
    INFRASTRUCTURE = "infrastructure"


#: Why a match ended: the referee's Termination, or the rules' own word ("score", "vp": the game's, as its Outcome
#: gives it).
Reason = Termination | str


def reason_of(word: str) -> Reason:
    """A reason read back from a record, a message or a row: the Termination it names, or the rules' word as it is
    (an unknown word, as an old record may hold, is the rules')."""
    try:
        return Termination(word)
    except ValueError:
        return word


@dataclass(frozen=True)
class PlayerInfo:
    """Who sat in a seat."""

    seat: int
    name: str
    version: str = "1"
    kind: PlayerKind = PlayerKind.AGENT

    def to_json(self) -> JSON:
        return {"seat": self.seat, "name": self.name, "version": self.version, "kind": self.kind.value}

    @classmethod
    def from_json(cls, data: JSON) -> PlayerInfo:
        return cls(int(data["seat"]), str(data["name"]), str(data.get("version", "1")),
                   PlayerKind(str(data.get("kind", PlayerKind.AGENT.value))))


@dataclass(slots=True)
class Step:
    """One line of play: a chance outcome (seat == CHANCE) or a seat's decision.

    Not frozen, for speed (a match makes one per step; a frozen dataclass sets each field through
    object.__setattr__): treat it as a value and never change one.
    """

    n: int  # its index among the match's steps, from 0: its step number is n + 1
    seat: int
    action: int
    label: str
    timing: dict[str, float] = field(default_factory=dict)  # think_ms, transport_ms, ...
    #: What a spectator may read instead of `label` when the step hides something (State.spectator_label);
    #: None for a public step. Kept while the match is live; records do not store it.
    spectator_label: str | None = field(default=None, compare=False)
    #: The note the seat left for its owner with this decision (DecisionRequest.note), bounded; None for none.
    #: In the record for its owner and the operators: every public view of a record leaves it out
    #: (`MatchRecord.public_lines`, the web's record and replay).
    note: str | None = field(default=None, compare=False)
    #: What a bot program printed with this decision (since its previous one), bounded; owners' and operators' only.
    output: str | None = field(default=None, compare=False)

    @property
    def is_chance(self) -> bool:
        return self.seat == CHANCE

    def to_line(self) -> str:
        """to_json() as the record's line, the very text the record's JSON encoder writes: a step of the usual
        shape written directly, any other through the encoder (a record is mostly its steps)."""
        line = self._usual_line()
        return line if line is not None else _encode_line(self.to_json())

    def _usual_line(self) -> str | None:
        """The line of a step of the usual shape (int numbers, a text label, timings an int or a finite float under
        keys of their own, text notes), as the encoder writes it; None for any other step."""
        if not (type(self.n) is type(self.seat) is type(self.action) is int and type(self.label) is str):
            return None
        if self.seat == CHANCE:
            return f'{{"type":"chance","n":{self.n},"outcome":{self.action},"label":{_quote(self.label)}}}'
        parts = [f'{{"type":"decision","n":{self.n},"seat":{self.seat},"action":{self.action},'
                 f'"label":{_quote(self.label)}']
        for key, value in self.timing.items():
            if not _plain_timing(key, value):
                return None
            parts.append(f",{_quote(key)}:{value!r}")
        for key, text in (("note", self.note), ("output", self.output)):
            if text is not None and type(text) is not str:
                return None
            parts.append("" if text is None else f',"{key}":{_quote(text)}')
        return "".join(parts) + "}"

    def to_json(self) -> JSON:
        if self.is_chance:
            return {"type": "chance", "n": self.n, "outcome": self.action, "label": self.label}
        data: JSON = {"type": "decision", "n": self.n, "seat": self.seat, "action": self.action, "label": self.label,
                      **self.timing}
        if self.note is not None:
            data["note"] = self.note
        if self.output is not None:
            data["output"] = self.output
        return data


def _plain_timing(key: Any, value: Any) -> bool:
    """A timing the encoder writes as `repr` does: a text key of its own, an int or a finite float."""
    return (type(key) is str and key not in _DECISION_KEYS
            and (type(value) is int or type(value) is float and math.isfinite(value)))


def seat_outcome(ranking: Sequence[int], seat: int) -> str:
    """'win' (alone in first place), 'draw' (first place shared) or 'loss'."""
    if ranking[seat] != 0:
        return "loss"
    return "draw" if sum(1 for rank in ranking if rank == 0) > 1 else "win"


_PLACED = {"win": "won", "draw": "drew", "loss": "lost"}


@dataclass(frozen=True)
class MatchResult:
    """How the match ended: a rank per seat, the reason, and the seat at fault if any."""

    ranking: tuple[int, ...]
    reason: Reason
    scores: tuple[float, ...] = ()
    offender: int | None = None
    detail: str = ""
    voided: bool = False  # the fault policy voided the match: it must not count for ratings

    @property
    def winners(self) -> tuple[int, ...]:
        return tuple(seat for seat, rank in enumerate(self.ranking) if rank == 0)

    @property
    def is_draw(self) -> bool:
        return len(self.winners) == len(self.ranking)

    def placed(self, seat: int) -> str:
        """How `seat` did, in words: "won", "drew" or "lost" (seat_outcome's rule)."""
        return _PLACED[seat_outcome(self.ranking, seat)]

    @property
    def termination(self) -> Termination | None:
        """Why the referee ended the match, when it did (None: the rules ended it, `reason` is theirs)."""
        return self.reason if isinstance(self.reason, Termination) else None

    @property
    def is_fault(self) -> bool:
        return self.termination is not None

    def verdict(self, seat_names: Sequence[str], players: Sequence[str] = ()) -> str:
        """Who won and how, in words: 'Yellow (greedy) wins (score, 9 : 5)', 'draw (max length)', 'Red (bob)
        wins (Yellow (alice)'s timeout)'. The one place it is said: the web's pages are sent it (arena.web.replay,
        arena.rpc.client.event_json)."""
        def who(seat: int) -> str:
            name = seat_names[seat] if seat < len(seat_names) else f"seat {seat}"
            return f"{name} ({players[seat]})" if seat < len(players) and players[seat] else name

        how = self.reason.replace("_", " ")
        if self.offender is not None:
            how = f"{who(self.offender)}'s {how}"
        if self.scores:
            how += ", " + " : ".join(f"{score:g}" for score in self.scores)
        if self.is_draw:
            return f"draw ({how})"
        return f"{' and '.join(who(seat) for seat in self.winners)} wins ({how})"

    def to_json(self) -> JSON:
        data: JSON = {"type": "result", "ranking": list(self.ranking), "reason": self.reason,
                      "scores": list(self.scores), "offender": self.offender}
        if self.detail:
            data["detail"] = self.detail
        if self.voided:
            data["voided"] = True
        return data

    @classmethod
    def from_json(cls, data: JSON) -> MatchResult:
        offender = data.get("offender")
        return cls(
            ranking=tuple(int(r) for r in data["ranking"]),
            reason=reason_of(str(data["reason"])),
            scores=tuple(float(s) for s in data.get("scores", ())),
            offender=None if offender is None else int(offender),
            detail=str(data.get("detail", "")),
            voided=bool(data.get("voided", False)),
        )


@dataclass
class MatchRecord:
    """A whole match: header facts, every step, and the result once the match is over."""

    game: str
    options: dict[str, Any]
    seed: int
    players: list[PlayerInfo]
    versions: dict[str, str]
    match_id: str = field(default_factory=new_match_id)
    started_at: str = field(default_factory=lambda: datetime.now(timezone.utc).isoformat(timespec="seconds"))
    extra: dict[str, Any] = field(default_factory=dict)
    steps: list[Step] = field(default_factory=list)
    result: MatchResult | None = None

    @property
    def player_names(self) -> list[str]:
        """The players' names by seat ("" for a seat the header names no one in)."""
        names = {player.seat: player.name for player in self.players}
        return [names.get(seat, "") for seat in range(max(names, default=-1) + 1)]

    @property
    def decisions(self) -> list[Step]:
        """The steps that were seats' decisions (not chance)."""
        return [step for step in self.steps if not step.is_chance]

    def decision_numbers(self) -> list[int | None]:
        """Per step (in order), its decision number (1, 2, ... over the match), None for a chance step."""
        numbers: list[int | None] = []
        count = 0
        for step in self.steps:
            if step.is_chance:
                numbers.append(None)
            else:
                count += 1
                numbers.append(count)
        return numbers

    def step_of_decision(self, decision: int) -> int | None:
        """The step number (from 1) of decision number `decision` (from 1); None when the match has no such
        decision."""
        if decision < 1:
            return None
        return next((index for index, number in enumerate(self.decision_numbers(), start=1) if number == decision),
                    None)

    def header_json(self) -> JSON:
        data: JSON = {
            "type": "header",
            "format": RECORD_FORMAT,
            "match_id": self.match_id,
            "game": self.game,
            "options": self.options,
            "seed": self.seed,
            "players": [p.to_json() for p in self.players],
            "versions": self.versions,
            "started_at": self.started_at,
        }
        if self.extra:
            data["extra"] = self.extra
        return data

    def lines(self) -> Iterable[str]:
        """The record as JSON lines."""
        yield _encode_line(self.header_json())
        for step in self.steps:
            yield step.to_line()
        if self.result is not None:
            yield _encode_line(self.result.to_json())

    def to_jsonl(self) -> str:
        """The whole record as text, one JSON object per line."""
        return "\n".join(self.lines()) + "\n"

    def write(self, path: str | Path) -> Path:
        """Write the record (gzip-compressed when the name ends in .gz); returns the path. RecordWriteError when
        it cannot be (the disk full, the folder not writable): then no file of it is left, not even a part."""
        target = Path(path)
        data = self.to_jsonl().encode("utf-8")
        if target.suffix == ".gz":
            data = gzip.compress(data, mtime=0)
        temporary = target.with_name(target.name + ".part")
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            temporary.write_bytes(data)
            temporary.replace(target)  # never leave a half-written record behind
        except OSError as error:
            with contextlib.suppress(OSError):
                temporary.unlink(missing_ok=True)
            raise RecordWriteError(error.errno, error.strerror or str(error), str(target)) from error
        return target

    @classmethod
    def from_jsonl(cls, text: str) -> MatchRecord:
        """Parse a record; raises RecordError naming the line that is wrong."""
        record: MatchRecord | None = None
        for item in read_lines(text.splitlines()):
            if isinstance(item, MatchRecord):
                record = item
            elif isinstance(item, Step):
                assert record is not None
                record.steps.append(item)
            else:
                assert record is not None
                record.result = item
        if record is None:
            raise RecordError("empty record: no header line")
        return record

    @classmethod
    def read(cls, path: str | Path) -> MatchRecord:
        """Read a record file (plain or .gz)."""
        source = Path(path)
        try:
            data = source.read_bytes()
        except FileNotFoundError:
            raise RecordError(f"no such record file: {source}") from None
        except OSError as error:
            raise RecordError(f"cannot read {source}: {error.strerror}") from None
        return cls.from_bytes(data, str(source))

    @classmethod
    def from_bytes(cls, data: bytes, source: str = "record") -> MatchRecord:
        """Parse a record's bytes (plain or gzip-compressed); RecordError names `source`."""
        if data[:2] == b"\x1f\x8b":
            try:
                data = gzip.decompress(data)
            except (OSError, EOFError) as error:
                raise RecordError(f"{source}: corrupt gzip data ({error})") from None
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise RecordError(f"{source}: not a text record (bad UTF-8)") from None
        return cls.from_jsonl(text)


def read_lines(lines: Iterable[str | bytes]) -> Iterator[MatchRecord | Step | MatchResult]:
    """A record's lines one at a time, for records too big to hold: the header first (a MatchRecord
    without its steps), then each Step, then the MatchResult. RecordError names a wrong line."""
    header_seen = result_seen = False
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        data = _parsed_line(number, line)
        kind = data.get("type")
        try:
            if not header_seen:
                header_seen = True
                yield _header(number, data)
            elif result_seen:
                raise RecordError(f"line {number}: nothing may follow the result")
            else:
                result_seen = kind == "result"
                yield _body_line(number, kind, data)
        except RecordError:
            raise
        except (KeyError, TypeError, ValueError) as error:
            raise RecordError(f"line {number}: bad {kind or 'record'} line ({error!r})") from None


def _body_line(number: int, kind: Any, data: dict[str, Any]) -> Step | MatchResult:
    """What a line after the header holds (a chance step, a decision, the result); RecordError for another kind."""
    if kind == "chance":
        return Step(int(data["n"]), CHANCE, int(data["outcome"]), str(data["label"]))
    if kind == "decision":
        return _decision(number, data)
    if kind == "result":
        return MatchResult.from_json(data)
    raise RecordError(f"line {number}: unknown line type {kind!r}")


def _parsed_line(number: int, line: str | bytes) -> dict[str, Any]:
    """A record line's JSON object, read within the bounds (MAX_LINE_CHARS, MAX_DEPTH); RecordError if not."""
    if len(line) > MAX_LINE_CHARS:
        raise RecordError(f"line {number}: longer than {MAX_LINE_CHARS:,} characters (no record of Arena's is)")
    try:
        data = json.loads(line)
    except json.JSONDecodeError as error:
        raise RecordError(f"line {number}: not JSON ({error.msg})") from None
    except UnicodeDecodeError:
        raise RecordError(f"line {number}: not UTF-8 text") from None
    except RecursionError:
        data = None
    if data is None or _deeper_than(data, MAX_DEPTH, line):
        raise RecordError(f"line {number}: JSON nested more than {MAX_DEPTH} deep (no record of Arena's is)")
    if not isinstance(data, dict):
        raise RecordError(f"line {number}: expected a JSON object")
    return data


def _deeper_than(value: Any, limit: int, line: str | bytes) -> bool:
    """True when the parsed value nests deeper than `limit` (`{}` is 1 deep); a line with no more opening brackets
    than that (counted by str.count, in C) cannot, and is not walked."""
    opening = line.count(b"[") + line.count(b"{") if isinstance(line, bytes) else line.count("[") + line.count("{")
    if opening <= limit:
        return False
    level: list[Any] = [value]  # the values inside as many containers as the walk has gone down
    for _depth in range(limit):
        level = [child for item in level if isinstance(item, (dict, list))
                 for child in (item.values() if isinstance(item, dict) else item)]
    return any(isinstance(item, (dict, list)) for item in level)


def _header(number: int, data: dict[str, Any]) -> MatchRecord:
    """The record a header line starts (without its steps); RecordError if the line is no header of ours."""
    if data.get("type") != "header":
        raise RecordError(f"line {number}: a record starts with its header")
    if data.get("format") != RECORD_FORMAT:
        raise RecordError(f"line {number}: unknown record format {data.get('format')!r}")
    return MatchRecord(
        game=str(data["game"]),
        options=dict(data.get("options", {})),
        seed=int(data["seed"]),
        players=[PlayerInfo.from_json(p) for p in data["players"]],
        versions=dict(data.get("versions", {})),
        match_id=str(data.get("match_id", "")),
        started_at=str(data.get("started_at", "")),
        extra=dict(data.get("extra", {})),
    )


def _decision(number: int, data: dict[str, Any]) -> Step:
    """The step of a decision line (with its timings, and its note and output when it has them)."""
    seat = int(data["seat"])
    if seat < 0:
        raise RecordError(f"line {number}: a decision needs a seat")
    timing = {k: float(v) for k, v in data.items() if k.endswith("_ms")}
    step = Step(int(data["n"]), seat, int(data["action"]), str(data["label"]), timing)
    if isinstance(data.get("note"), str):
        step.note = data["note"]
    if isinstance(data.get("output"), str):
        step.output = data["output"]
    return step
