"""The authoritative match loop: rules, clocks and fault policy, whatever the transport.

Like boardgame.io's master, it knows nothing of sockets: it drives one SeatPort per seat. Chance
is resolved with random.Random(seed) exactly as `arena.referee.local.play_match` does, so the
same seed and the same deterministic players give the same steps locally and over the network.
Every match ends with a result and a record, whatever goes wrong: a seat's fault ends it by the
fault policy, a stop from outside (server shutdown) or a referee error voids it.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import random
import time
from dataclasses import replace
from typing import Any, Callable, Sequence

from arena.games.base import CHANCE, Game, IllegalActionError, State
from arena.referee.clock import ClockSettings, SeatClock
from arena.referee.faults import FaultPolicy, SeatFault, void_result
from arena.referee.local import agent_seed, new_record
from arena.referee.record import MatchRecord, MatchResult, Step, Termination
from arena.referee.seats import Answer, Ask, MatchSetup, SeatPort

StepCallback = Callable[[State, Step], None]

FINISH_TIMEOUT_S = 2.0  # how long telling a seat the result may take


def bot_seed(match_seed: int, seat: int, salt: str | None = None) -> int:
    """The seed a seat's player gets: play_match's agent_seed, or keyed by a secret salt.

    Without a salt a bot that knows how seeds are derived could search small match seeds and
    predict the chance outcomes; a referee serving untrusted bots sets a salt.
    """
    if not salt:
        return agent_seed(match_seed, seat)
    digest = hmac.new(salt.encode(), f"{match_seed}:{seat}".encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") >> 1


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
) -> MatchRecord:
    """Referee one match between `seats`; always returns a record with a result."""
    if len(seats) != game.num_seats:
        raise ValueError(f"{game.name} needs {game.num_seats} seats, got {len(seats)}")
    clock = clock or ClockSettings()
    policy = policy or FaultPolicy()
    players = [replace(port.player, seat=seat) for seat, port in enumerate(seats)]
    record = new_record(game, players, seed, match_id)
    record.extra["referee"] = {"clock": clock.to_json(), "fault_policy": str(policy), **(extra or {})}
    setups = [MatchSetup(record.match_id, game, seat, tuple(players), clock, bot_seed(seed, seat, seed_salt))
              for seat in range(game.num_seats)]
    try:
        result = await _play(game, seats, setups, seed, record, clock, on_step)
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
    await asyncio.gather(*(_finish(port, result) for port in seats))
    return record


async def _play(game: Game, seats: Sequence[SeatPort], setups: list[MatchSetup], seed: int, record: MatchRecord,
                clock: ClockSettings, on_step: StepCallback | None) -> MatchResult:
    for port, setup in zip(seats, setups):
        await port.start(setup)
    clocks = [SeatClock(clock) for _ in seats]
    chance_rng = random.Random(seed)
    state = game.new_initial_state()
    limit = game.info.max_game_length
    steps = record.steps
    sequence = 0
    now = time.perf_counter
    watchdog = _Watchdog()
    try:
        while not state.is_terminal():
            if len(steps) >= limit:
                return MatchResult(tuple([0] * game.num_seats), Termination.MAX_LENGTH.value,
                                   detail=f"no result after {limit} steps")
            player = state.current_player()
            if player == CHANCE:
                outcome = state.sample_chance(chance_rng)
                step = Step(len(steps), CHANCE, outcome, state.action_to_string(outcome),
                            spectator_label=state.spectator_label(outcome))
                state.apply_action(outcome)
            else:
                port = seats[player]
                if port.failure is not None:
                    raise port.failure
                seat_clock = clocks[player]
                sequence += 1
                ask = Ask(sequence, player, state.legal_actions(), state, seat_clock.time_left_s, seat_clock.bank_s)
                deadline = seat_clock.deadline_s
                started = now()
                watchdog.arm(deadline)
                try:
                    answer = await port.decide(ask)
                except asyncio.CancelledError:
                    if not watchdog.has_expired():  # a stop from outside, not the clock
                        raise
                    raise SeatFault(player, Termination.TIMEOUT,
                                    f"no decision {sequence} within {deadline:.3f}s ({clock.describe()}; "
                                    f"{seat_clock.bank_s:.3f}s left in the bank)") from None
                watchdog.disarm()
                elapsed = now() - started
                if not seat_clock.charge(elapsed):
                    raise SeatFault(player, Termination.TIMEOUT,
                                    f"decision {sequence} took {elapsed:.3f}s, over the time left ({clock.describe()})")
                if answer.sequence != sequence:
                    raise SeatFault(player, Termination.WRONG_SEQUENCE,
                                    f"answered sequence number {answer.sequence}, expected {sequence}")
                action = answer.action
                try:
                    label = state.action_to_string(action)
                    hidden = state.spectator_label(action)
                    state.apply_action(action)
                except (IllegalActionError, TypeError) as error:
                    raise SeatFault(player, Termination.ILLEGAL_ACTION, str(error)) from None
                think = min(max(answer.think_s, 0.0), elapsed)
                step = Step(len(steps), player, action, label, {"think_ms": round(think * 1000.0, 3),
                                                                "transport_ms": round((elapsed - think) * 1000.0, 3)},
                            hidden)
                for other in seats:
                    if other.failure is not None:
                        raise other.failure
            steps.append(step)
            if on_step is not None:
                on_step(state, step)
    finally:
        watchdog.close()
    ending = state.outcome()
    assert ending is not None
    return MatchResult(ending.ranking, ending.reason, ending.scores)


class _Watchdog:
    """Cancels the match task when a decision is overdue: one timer per match, not one per decision.

    `arm` sets the deadline of the decision being awaited; the timer is rescheduled only when it
    would fire too late for it. A timer that fires before the current deadline re-arms itself for
    it, and one that fires while no decision is awaited simply lapses.
    """

    __slots__ = ("task", "loop", "due", "when", "handle", "expired")

    def __init__(self) -> None:
        task = asyncio.current_task()
        assert task is not None
        self.task = task
        self.loop = asyncio.get_running_loop()
        self.due: float | None = None  # loop time the awaited decision is overdue at
        self.when = 0.0  # loop time the timer fires at
        self.handle: asyncio.TimerHandle | None = None
        self.expired = False

    def arm(self, deadline_s: float) -> None:
        """A decision is awaited from now, for at most `deadline_s` seconds."""
        self.due = due = self.loop.time() + deadline_s
        self.expired = False
        if self.handle is None or due < self.when:
            if self.handle is not None:
                self.handle.cancel()
            self.when = due
            self.handle = self.loop.call_at(due, self._fire)

    def disarm(self) -> None:
        """The decision came in time."""
        self.due = None

    def has_expired(self) -> bool:
        """True if the cancellation being handled is the watchdog's own (and it is taken back)."""
        return self.expired and self.task.uncancel() == 0

    def close(self) -> None:
        """The match is over."""
        self.due = None
        if self.handle is not None:
            self.handle.cancel()
            self.handle = None

    def _fire(self) -> None:
        self.handle = None
        due = self.due
        if due is None:
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


async def _finish(port: SeatPort, result: MatchResult) -> None:
    try:
        async with asyncio.timeout(FINISH_TIMEOUT_S):
            await port.finish(result)
    except (Exception, asyncio.CancelledError):  # a seat that cannot be told does not stop the others
        pass
