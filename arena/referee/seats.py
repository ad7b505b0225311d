"""What the match loop talks to: one SeatPort per seat, whatever carries the messages.

The loop (arena.referee.authority) asks a port to start, to decide (an `Ask`, answered with an
`Answer`), and to finish. A port for an in-process agent is here; the gRPC port for bot programs
lives in arena.rpc.session. Ports raise SeatFault for anything the seat did wrong.
"""

from __future__ import annotations

import asyncio
import math
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, Callable

from arena.agents.base import Agent, DecisionRequest
from arena.games.base import JSON, Game, State
from arena.referee.clock import ClockSettings
from arena.referee.faults import SeatFault
from arena.referee.limits import DEFAULT_LIMITS, AgentLimits, AgentOverran, SeatAllowance
from arena.referee.players import PlayerKind
from arena.referee.record import MatchResult, PlayerInfo, Termination


@dataclass(frozen=True)
class MatchSetup:
    """What a seat learns when the match starts."""

    match_id: str
    game: Game
    seat: int
    players: tuple[PlayerInfo, ...]
    clock: ClockSettings
    agent_seed: int


CLOCK_MARGIN_S = 1.0  # a clocked in-process agent is stopped this long after its clock ran out (the referee has
# already ended the match by then: this only stops its thread)


class Ask:
    """One decision asked of one seat. `state` is the referee's own: ports only read it. The times are
    None in an untimed match."""

    __slots__ = ("sequence", "seat", "legal_actions", "state", "time_left_s", "bank_s", "step")

    def __init__(self, sequence: int, seat: int, legal_actions: list[int], state: State, time_left_s: float | None,
                 bank_s: float | None, step: int = 0) -> None:
        self.sequence = sequence  # the match's decision number (1, 2, ...: arena.referee.record)
        self.step = step  # the match's step number of this decision (0: not said)
        self.seat = seat
        self.legal_actions = legal_actions
        self.state = state
        self.time_left_s = time_left_s
        self.bank_s = bank_s


class Answer:
    """A seat's answer: the sequence number it answers, its action, its own thinking time, the note it left for
    its owner (DecisionRequest.note; "" for none), what a bot program printed with it and when its request left
    (`sent_at`, time.perf_counter(): the seat's clock runs from then, not while the referee built the request;
    None from a port that does not say)."""

    __slots__ = ("sequence", "action", "think_s", "note", "output", "sent_at")

    def __init__(self, sequence: int, action: int, think_s: float, note: str = "", output: str = "",
                 sent_at: float | None = None) -> None:
        self.sequence = sequence
        self.action = action
        self.think_s = think_s
        self.note = note
        self.output = output  # what a bot program printed since its previous decision
        self.sent_at = sent_at


class SeatPort(ABC):
    """The referee's line to one seat."""

    #: A fault noticed while the seat was not deciding (a dropped connection); None while healthy.
    failure: SeatFault | None = None
    #: Set by the match loop while a match runs: a port that sets `failure` between its decisions
    #: calls it, so the match need not wait for another seat's answer to end.
    on_lost: Callable[[], None] | None = None
    #: True for a seat across a transport (its decisions may wait on I/O, can be cancelled by the clock,
    #: and carry transport time); False for an in-process agent, whose methods never wait.
    is_remote: bool = True

    @property
    @abstractmethod
    def player(self) -> PlayerInfo:
        """Who sits here (the seat number is filled in by the loop)."""

    @abstractmethod
    async def start(self, setup: MatchSetup) -> None:
        """Tell the seat the match begins; raise SeatFault if it cannot be reached."""

    @abstractmethod
    async def decide(self, ask: Ask) -> Answer:
        """Ask for a decision; raise SeatFault for a broken answer. The loop enforces the clock."""

    def answer_now(self, seat: int, legal_actions: list[int], state: State, time_left_s: float | None = None,
                   decision: int = 0, step: int = 0) -> tuple[int, float, str]:
        """An untimed in-process seat's decision (the match's `decision` number, at its `step`), without await:
        (action, seconds it thought, its note)."""
        raise NotImplementedError(f"{type(self).__name__} is remote: await decide()")

    @abstractmethod
    async def finish(self, result: MatchResult) -> None:
        """Tell the seat how the match ended. Never raises."""

    async def examine(self, fault: SeatFault) -> tuple[SeatFault, dict[str, Any]]:
        """Refine a fault once the match is stopped (a lost stream may be a crash) and gather evidence."""
        return fault, {}


class StateRequest(DecisionRequest):
    """A decision request whose observation is the referee's state's for the seat, built on first use: what an
    in-process agent is asked (no closure made for every decision)."""

    __slots__ = ("_state",)

    def __init__(self, seat: int, legal_actions: list[int], state: State, time_left_s: float | None = None,
                 decision: int = 0, step: int = 0) -> None:
        self.seat = seat
        self.legal_actions = legal_actions
        self.time_left_s = time_left_s
        self.note = ""
        self.decision = decision
        self.step = step
        self._observation = None
        self._state = state

    @property
    def observation(self) -> JSON:
        """All the seat may know (see `State.observation`)."""
        if self._observation is None:
            self._observation = self._state.observation(self.seat)
        return self._observation


class AgentSeat(SeatPort):
    """An in-process agent as a seat: its methods never wait, so a match of them needs no event loop.

    `threaded`: the agent thinks on a worker thread, for a match in a referee's event loop beside
    bot programs (their streams and clocks go on while it thinks); the seat is then awaited and
    clocked like a remote one. Either way its decisions are bounded by `limits` (arena.referee.limits):
    one that runs past them is interrupted and the seat loses on time; a threaded one is also stopped
    when its clock runs out, so that no thread thinks on for a match already over.
    """

    is_remote = False

    def __init__(self, agent: Agent, threaded: bool = False, limits: AgentLimits = DEFAULT_LIMITS) -> None:
        self.agent = agent
        self.is_remote = threaded
        self.limits = limits
        self.allowance = SeatAllowance(limits)

    @property
    def player(self) -> PlayerInfo:
        return PlayerInfo(0, self.agent.name, self.agent.version, PlayerKind.AGENT)

    async def start(self, setup: MatchSetup) -> None:
        self.allowance = SeatAllowance(self.limits)
        try:
            self.agent.reset(setup.game, setup.seat, setup.agent_seed)
        except Exception as error:  # e.g. an agent that has no strategy for this game
            raise SeatFault(setup.seat, Termination.AGENT_ERROR, f"{type(error).__name__}: {error}") from None

    async def decide(self, ask: Ask) -> Answer:
        if self.is_remote:
            return await asyncio.to_thread(self._decide, ask)
        return self._decide(ask)

    def _decide(self, ask: Ask) -> Answer:
        action, think, note = self.answer_now(ask.seat, ask.legal_actions, ask.state, ask.time_left_s, ask.sequence,
                                              ask.step)
        return Answer(ask.sequence, action, think, note)

    def answer_now(self, seat: int, legal_actions: list[int], state: State, time_left_s: float | None = None,
                   decision: int = 0, step: int = 0) -> tuple[int, float, str]:
        """The agent's decision under the watchdog (arena.referee.limits), stopped past its clock's `time_left_s`
        (and a margin) too if given: (action, seconds it thought, its note). Every decision of every in-process
        match comes here: one call between the loop and the agent's."""
        request = StateRequest(seat, legal_actions, state, time_left_s, decision, step)
        clock_cap = math.inf if time_left_s is None else time_left_s + CLOCK_MARGIN_S
        try:
            action, think = self.allowance.decide(self.agent.act, request, clock_cap)
        except AgentOverran as overran:
            raise SeatFault(seat, Termination.TIMEOUT, str(overran)) from None
        except Exception as error:  # the agent is at fault, not the referee
            raise SeatFault(seat, Termination.AGENT_ERROR, f"{type(error).__name__}: {error}") from None
        return action, think, request.note  # (a note that is not text is not kept: NoteAllowance.keep)

    async def finish(self, result: MatchResult) -> None:
        return None

