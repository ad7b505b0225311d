"""The match loop: rules, chance, seeds, clocks and the fault policy, whoever sits in the seats.

Like boardgame.io's master it knows nothing of transports: it drives one SeatPort per seat, an
in-process agent (`AgentSeat`) or a bot program's stream (arena.rpc.session). There is no other
loop: `play_match` is this one driven without an event loop, for in-process agents.

- Chance is resolved with random.Random(seed), one draw per chance node; each seat's own seed is
  `seat_seed(seed, seat, salt)`. So the same seed and the same deterministic players give the same
  match in process, in a tournament worker and through the referee (with public seeds).
- A match runs at most `game.info.max_game_length` steps (`max_length`).
- Any fault of a seat (an illegal action, an agent's exception, a timeout, a broken stream) ends
  the match by the fault policy, with the reason, the offender and the seat's evidence recorded.
- A stop from outside (server shutdown) or an error of the referee itself voids the match; every
  match ends with a record and a result, whatever goes wrong.
- Clocks: with `clock`, each decision is charged to its seat (and a remote seat that overruns is
  cancelled by a watchdog); without, seats are untimed (in-process matches and tournaments).
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import random
import time
from functools import partial
from typing import Any, Callable, Coroutine, NamedTuple, Sequence, TypeVar

from arena import __version__
from arena.agents.base import NOTE_CHARS, NOTE_CHARS_PER_MATCH, OUTPUT_CHARS, OUTPUT_CHARS_PER_MATCH, Agent
from arena.games.base import CHANCE, Game, IllegalActionError, State
from arena.games.registry import load_game
from arena.referee.clock import ClockSettings, SeatClock
from arena.referee.faults import FaultPolicy, SeatFault, void_result
from arena.referee.limits import DEFAULT_LIMITS, AgentLimits
from arena.referee.record import (MatchRecord, MatchResult, PlayerInfo, Step, Termination, decision_name,
                                  new_match_id)
from arena.referee.seats import AgentSeat, Answer, Ask, MatchSetup, SeatPort

StepCallback = Callable[[State, Step], None]
T = TypeVar("T")

FINISH_TIMEOUT_S = 2.0  # how long telling a remote seat the result may take
DEFAULT_POLICY = FaultPolicy()


def _seated(player: PlayerInfo, seat: int) -> PlayerInfo:
    return PlayerInfo(seat, player.name, player.version, player.kind)


OPPONENT = "opponent"  # what a seat is told of the others' names when the referee hides them


def players_seen_by(players: Sequence[PlayerInfo], seat: int, named: bool = True) -> tuple[PlayerInfo, ...]:
    """The players as `seat` is told of them: every seat's name and version, or (not `named`) its own alone and
    the others as OPPONENT with no version, so a bot cannot tell whose bot it faces (a sibling it could throw
    its games to, issue 46). The record keeps the real names."""
    if named:
        return tuple(players)
    return tuple(player if player.seat == seat else PlayerInfo(player.seat, OPPONENT, "", player.kind)
                 for player in players)


def seat_seed(match_seed: int, seat: int, salt: str | None = None) -> int:
    """The seed a seat's player gets: fixed by the match seed and the seat, keyed by `salt` if given.

    Without a salt anyone who knows this rule can search small match seeds for the one that gives
    a seed they were handed, and so predict the chance outcomes; a referee serving untrusted bots
    keys the seeds with a secret salt.
    """
    if not salt:
        return random.Random(match_seed * 7919 + seat).getrandbits(63)
    digest = hmac.new(salt.encode(), f"{match_seed}:{seat}".encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def new_record(game: Game, players: Sequence[PlayerInfo], seed: int, match_id: str | None = None) -> MatchRecord:
    """An empty record with the header facts of a match about to start."""
    return MatchRecord(game=game.name, options=game.options, seed=seed, players=list(players),
                       versions={"arena": __version__, "rules": game.rules_version},
                       match_id=match_id or new_match_id())


def play_match(game: Game | str, agents: Sequence[Agent], seed: int, *, match_id: str | None = None,
               on_step: StepCallback | None = None, limits: AgentLimits = DEFAULT_LIMITS) -> MatchRecord:
    """Play one match between in-process agents: the match loop, without an event loop or clocks.

    The seat asked to decide is `state.current_player()`, which need not be the player whose turn
    it is. An agent that raises or answers an illegal action forfeits, and the record says so; one
    that thinks past `limits` (per decision, per match) is stopped and loses on time.
    """
    if isinstance(game, str):
        game = load_game(game)
    if len(agents) != game.num_seats:
        raise ValueError(f"{game.name} needs {game.num_seats} agents, got {len(agents)}")
    return run_in_process(referee_match(game, [AgentSeat(agent, limits=limits) for agent in agents], seed,
                                        match_id=match_id, on_step=on_step))


def run_in_process(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run a match coroutine whose seats never wait on anything (in-process agents) to its end, with no
    event loop: what asyncio.run would do, less the loop's cost per match."""
    try:
        coroutine.send(None)
    except StopIteration as finished:
        value: T = finished.value
        return value
    coroutine.close()
    raise RuntimeError("a seat waited on I/O: matches with such seats run in an event loop (asyncio.run)")


async def referee_match(
    game: Game,
    seats: Sequence[SeatPort],
    seed: int,
    *,
    clock: ClockSettings | None = None,
    policy: FaultPolicy | None = None,
    match_id: str | None = None,
    seed_salt: str | None = None,
    on_step: StepCallback | None = None,
    extra: dict[str, Any] | None = None,
    public_view: bool = False,
    named_opponents: bool = True,
) -> MatchRecord:
    """Referee one match between `seats`; always returns a record with a result.

    With `public_view` each step also carries what a spectator may read of it (Step.spectator_label). Without
    `named_opponents` a seat is not told who sits in the others (`players_seen_by`).
    """
    if len(seats) != game.num_seats:
        raise ValueError(f"{game.name} needs {game.num_seats} seats, got {len(seats)}")
    policy = policy or DEFAULT_POLICY
    players = [_seated(port.player, seat) for seat, port in enumerate(seats)]
    record = new_record(game, players, seed, match_id)
    _note_referee_settings(record, clock, policy, extra)
    setups = _setups(game, players, record.match_id, seed, clock, seed_salt, named_opponents)
    try:
        result = await _play(game, seats, setups, seed, record, clock, on_step, public_view)
    except SeatFault as fault:
        fault, evidence = await _examine(seats[fault.seat], fault)
        result = policy.result(game.num_seats, fault)
        if evidence:
            record.extra.setdefault("evidence", {})[str(fault.seat)] = evidence
    except asyncio.CancelledError:  # stopped from outside: void it, keep the record, tell the seats
        result = void_result(game.num_seats, "the referee stopped the match before it ended (server shutdown)")
    except Exception as error:  # a referee-side bug must not lose the match either
        result = void_result(game.num_seats, f"referee error: {type(error).__name__}: {error}")
    record.result = result
    await _finish_all(seats, result)
    return record


def _note_referee_settings(record: MatchRecord, clock: ClockSettings | None, policy: FaultPolicy,
                           extra: dict[str, Any] | None) -> None:
    """Record the clock, the fault policy and the caller's extra facts, when the match has a clock or extras."""
    if clock is not None or extra:
        record.extra["referee"] = {"clock": (clock or ClockSettings()).to_json(), "fault_policy": str(policy),
                                   **(extra or {})}


def _setups(game: Game, players: Sequence[PlayerInfo], match_id: str, seed: int, clock: ClockSettings | None,
            seed_salt: str | None, named_opponents: bool) -> list[MatchSetup]:
    """What each seat is told as the match starts: the players as it sees them, the clock and its own seed."""
    return [MatchSetup(match_id, game, seat, players_seen_by(players, seat, named_opponents),
                       clock or ClockSettings(),
                       seat_seed(seed, seat, seed_salt)) for seat in range(game.num_seats)]


async def _start_seats(seats: Sequence[SeatPort], setups: list[MatchSetup]) -> None:
    """Start each seat's player with its setup, one after another in seat order."""
    for port, setup in zip(seats, setups):
        await port.start(setup)


async def _play(game: Game, seats: Sequence[SeatPort], setups: list[MatchSetup], seed: int, record: MatchRecord,
                clock: ClockSettings | None, on_step: StepCallback | None, public_view: bool) -> MatchResult:
    await _start_seats(seats, setups)
    seating = _Seating(seats, clock)
    clocks, remote, at_once, watchdog = seating.clocks, seating.remote, seating.at_once, seating.watchdog
    chance_rng = random.Random(seed)
    state = game.new_initial_state()
    limit = game.info.max_game_length
    steps = record.steps
    append = steps.append
    sequence = 0
    notes = NoteAllowance(game.num_seats)
    outputs = NoteAllowance(game.num_seats, OUTPUT_CHARS, OUTPUT_CHARS_PER_MATCH, keep_end=True)
    try:
        while not state.is_terminal():
            number = len(steps)
            if number >= limit:
                return MatchResult(tuple([0] * game.num_seats), Termination.MAX_LENGTH,
                                   detail=f"no result after {limit} steps")
            player = state.current_player()
            if player == CHANCE:
                outcome = state.sample_chance(chance_rng)
                step = Step(number, CHANCE, outcome, state.action_to_string(outcome), {},
                            state.spectator_label(outcome) if public_view else None)
                state.apply_action(outcome)
            else:
                sequence += 1
                answer_now = at_once[player]
                if answer_now is not None:
                    action, think, note = answer_now(player, state.legal_actions(), state, None, sequence, number + 1)
                    timing, printed = {"think_ms": int(think * 1e6 + 0.5) / 1000}, ""  # (round(ms, 3), cheaper)
                else:
                    action, timing, note, printed = await _ask(seats[player], player, Moment(sequence, number + 1),
                                                               state, clock, clocks[player], watchdog)
                try:
                    label = state.action_to_string(action)
                    hidden = state.spectator_label(action) if public_view else None
                    state.apply_action(action)
                except (IllegalActionError, TypeError) as error:
                    raise SeatFault(player, Termination.ILLEGAL_ACTION,
                                    f"{decision_name(sequence, number + 1)}: {error}") from None
                step = Step(number, player, action, label, timing, hidden)
                if note:
                    step.note = notes.keep(player, note)
                if printed:
                    step.output = outputs.keep(player, printed)
                if remote:
                    _raise_a_seat_lost(remote)
            append(step)
            if on_step is not None:
                on_step(state, step)
    finally:
        seating.close()
    ending = state.outcome()
    assert ending is not None
    return MatchResult(ending.ranking, ending.reason, ending.scores)


def _raise_a_seat_lost(ports: list[SeatPort]) -> None:
    """Raise the fault of the first remote seat lost (between its decisions, while another seat decided)."""
    for port in ports:
        if port.failure is not None:
            raise port.failure


class _Seating:
    """How a match's loop reaches its seats: each seat's clock (None: untimed), the remote seats (only these can fail
    between their decisions), each seat's fast path and the watchdog over remote seats on a clock."""

    __slots__ = ("clocks", "remote", "at_once", "watchdog")

    def __init__(self, seats: Sequence[SeatPort], clock: ClockSettings | None) -> None:
        self.clocks: list[SeatClock | None] = [SeatClock(clock) if clock is not None else None for _ in seats]
        self.remote = [port for port in seats if port.is_remote]
        # an untimed in-process seat answers at once and measures its own thinking: the fast path
        self.at_once = [None if port.is_remote or clock is not None else port.answer_now for port in seats]
        self.watchdog = self._watch_remote(clock)

    def _watch_remote(self, clock: ClockSettings | None) -> _Watchdog | None:
        """A watchdog over the remote seats of a match on a clock, told when any of them is lost (None: no clock, or
        no remote seat)."""
        if clock is None or not self.remote:
            return None
        watchdog = _Watchdog()
        for port in self.remote:  # a seat lost while another decides ends the match at once
            port.on_lost = partial(watchdog.seat_lost, port)
        return watchdog

    def close(self) -> None:
        """Stop the watchdog, if any."""
        if self.watchdog is not None:
            self.watchdog.close()
            for port in self.remote:
                port.on_lost = None


class Moment(NamedTuple):
    """A decision's place in the match: its decision number (the request's sequence) and its step number."""

    decision: int
    step: int

    def __str__(self) -> str:
        return decision_name(self.decision, self.step)


async def _ask(port: SeatPort, player: int, moment: Moment, state: State, clock: ClockSettings | None,
               seat_clock: SeatClock | None, watchdog: _Watchdog | None) -> tuple[int, dict[str, float], str, str]:
    """A decision through the port, under the seat's clock if the match has one: (action, timing, note, what
    the bot printed with it)."""
    if port.failure is not None:
        raise port.failure
    sequence = moment.decision
    if seat_clock is None:
        started = time.perf_counter()
        answer = await port.decide(Ask(sequence, player, state.legal_actions(), state, None, None, moment.step))
        elapsed = time.perf_counter() - (answer.sent_at or started)
    else:
        assert clock is not None
        answer, elapsed = await _timed_decision(port, player, moment, state, seat_clock, clock, watchdog)
    if answer.sequence != sequence:
        raise SeatFault(player, Termination.WRONG_SEQUENCE,
                        f"answered sequence number {answer.sequence} to {moment}, expected {sequence}")
    think = min(max(answer.think_s, 0.0), elapsed)
    if not port.is_remote:
        return answer.action, {"think_ms": round(think * 1000.0, 3)}, answer.note, answer.output
    return (answer.action, {"think_ms": round(think * 1000.0, 3), "transport_ms": round((elapsed - think) * 1000.0, 3)},
            answer.note, answer.output)


class NoteAllowance:
    """What is kept of the seats' notes (or printed lines) in one match: `each` characters of a decision's (its
    start, or with `keep_end` its end), `per_match` of a seat's in all (the one that reaches the limit says so;
    later ones are not kept)."""

    __slots__ = ("left", "each", "per_match", "keep_end")

    def __init__(self, seats: int, each: int = NOTE_CHARS, per_match: int = NOTE_CHARS_PER_MATCH,
                 keep_end: bool = False) -> None:
        self.left = [per_match] * seats
        self.each, self.per_match, self.keep_end = each, per_match, keep_end

    def keep(self, seat: int, note: str) -> str | None:
        """What is kept of `note` (None: nothing, or a note that is not text: an in-process agent's is its own)."""
        left = self.left[seat]
        if left <= 0 or not isinstance(note, str):
            return None
        kept = self._cut(note)
        if len(kept) >= left:
            end = f"… (kept up to here: {self.per_match} characters a match)"
            if left <= len(end):  # (no room left even to say so)
                self.left[seat] = 0
                return None
            kept = kept[:left - len(end)] + end
        self.left[seat] = left - len(kept)
        return kept

    def _cut(self, note: str) -> str:
        """One note cut to `each` characters: its start, or with `keep_end` its end."""
        if len(note) <= self.each:
            return note
        return "…" + note[-(self.each - 1):] if self.keep_end else note[:self.each - 1] + "…"


async def _timed_decision(port: SeatPort, player: int, moment: Moment, state: State, seat_clock: SeatClock,
                          clock: ClockSettings, watchdog: _Watchdog | None) -> tuple[Answer, float]:
    """Ask a seat under its clock: a remote seat past its deadline is cancelled, any seat over its time
    left times out."""
    ask = Ask(moment.decision, player, state.legal_actions(), state, seat_clock.time_left_s, seat_clock.bank_s,
              moment.step)
    deadline = seat_clock.deadline_s
    started = time.perf_counter()
    if watchdog is not None and port.is_remote:
        watchdog.arm(deadline, port)
        try:
            answer = await port.decide(ask)
        except asyncio.CancelledError:
            lost = watchdog.lost_seat()
            if lost is not None and lost.failure is not None:  # another seat left while this one decided
                raise lost.failure from None
            if not watchdog.has_expired():  # a stop from outside, not the clock
                raise
            raise SeatFault(player, Termination.TIMEOUT,
                            f"no {moment} within {deadline:.3f}s ({clock.describe()}; "
                            f"{seat_clock.bank_s:.3f}s left in the bank)") from None
        watchdog.disarm()
    else:
        answer = await port.decide(ask)
    elapsed = time.perf_counter() - (answer.sent_at or started)  # from its request's leaving, where the port says
    if not seat_clock.charge(elapsed):
        raise SeatFault(player, Termination.TIMEOUT,
                        f"{moment} took {elapsed:.3f}s, over the time left ({clock.describe()})")
    return answer, elapsed


class _Watchdog:
    """Cancels the match task when a decision is overdue: one timer per match, not one per decision.

    `arm` sets the deadline of the decision being awaited; the timer is rescheduled only when it
    would fire too late for it. A timer that fires before the current deadline re-arms itself for
    it, and one that fires while no decision is awaited simply lapses. It also cancels the wait when
    another seat is lost meanwhile (its stream dropped, its process died): the match ends then, not
    when the deciding seat answers, and that seat gets MatchEnd with its decision still open.
    """

    __slots__ = ("task", "loop", "due", "when", "handle", "expired", "awaited", "lost")

    def __init__(self) -> None:
        task = asyncio.current_task()
        assert task is not None
        self.task = task
        self.loop = asyncio.get_running_loop()
        self.due: float | None = None  # loop time the awaited decision is overdue at
        self.when = 0.0  # loop time the timer fires at
        self.handle: asyncio.TimerHandle | None = None
        self.expired = False
        self.awaited: SeatPort | None = None  # the seat whose decision is awaited
        self.lost: SeatPort | None = None  # another seat, lost while it was awaited

    def arm(self, deadline_s: float, port: SeatPort) -> None:
        """A decision is awaited from `port` from now, for at most `deadline_s` seconds."""
        self.due = due = self.loop.time() + deadline_s
        self.awaited = port
        self.expired = False
        if self.handle is None or due < self.when:
            if self.handle is not None:
                self.handle.cancel()
            self.when = due
            self.handle = self.loop.call_at(due, self._fire)

    def disarm(self) -> None:
        """The decision came in time."""
        self.due = None
        self.awaited = None

    def has_expired(self) -> bool:
        """True if the cancellation being handled is the watchdog's own (and it is taken back)."""
        return self.expired and self.task.uncancel() == 0

    def seat_lost(self, port: SeatPort) -> None:
        """`port` failed between its decisions: stop waiting on another seat's decision (once)."""
        if self.awaited is None or self.awaited is port or self.lost is not None or self.expired:
            return  # not waiting (the loop sees the failure after the step), or the seat's own stream
        self.lost = port
        self.task.cancel()

    def lost_seat(self) -> SeatPort | None:
        """The seat whose loss caused the cancellation being handled (taken back), if that was the cause."""
        lost = self.lost
        if lost is None or self.task.uncancel() != 0:
            return None
        return lost

    def close(self) -> None:
        """The match is over."""
        self.due = None
        self.awaited = None
        if self.handle is not None:
            self.handle.cancel()
            self.handle = None

    def _fire(self) -> None:
        self.handle = None
        due = self.due
        if due is None or self.lost is not None:
            return
        if self.loop.time() >= due:
            self.expired = True
            self.due = None
            self.task.cancel()
        else:
            self.when = due
            self.handle = self.loop.call_at(due, self._fire)


async def _examine(port: SeatPort, fault: SeatFault) -> tuple[SeatFault, dict[str, Any]]:
    try:
        return await port.examine(fault)
    except Exception:  # evidence is best effort; the fault itself stands
        return fault, {}


async def _finish_all(seats: Sequence[SeatPort], result: MatchResult) -> None:
    """Tell every seat the result: in-process seats in turn, remote ones at once and with a time limit."""
    remote = [port for port in seats if port.is_remote]
    for port in seats:
        if not port.is_remote:
            try:
                await port.finish(result)
            except Exception:  # a seat that cannot be told does not stop the others
                pass
    if remote:
        await asyncio.gather(*(_finish_remote(port, result) for port in remote))


async def _finish_remote(port: SeatPort, result: MatchResult) -> None:
    try:
        async with asyncio.timeout(FINISH_TIMEOUT_S):
            await port.finish(result)
    except (Exception, asyncio.CancelledError):
        pass
