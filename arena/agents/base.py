"""What an in-process player is: an object that answers decision requests with an action id."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Callable

from arena.games.base import JSON, Game


NOTE_CHARS = 1024  # of one decision's note, kept
NOTE_CHARS_PER_MATCH = 32768  # of one seat's notes in one match, kept
OUTPUT_CHARS = 2048  # of what a bot program printed around one decision, kept with it (the last of it)
OUTPUT_CHARS_PER_MATCH = 32768  # of a seat's printed lines kept with its decisions in one match


class DecisionRequest:
    """One decision asked of one seat: the legal actions, the seat's observation, the clock.

    The observation is built on first use, so agents that never look at it cost nothing. An agent may set
    `note` while it decides (its evaluation, principal variation, any text): the note is kept with the match
    at this decision for the bot's owner and the operators only (never the opponent or the public);
    at most NOTE_CHARS characters of it, and NOTE_CHARS_PER_MATCH over a match.

    `decision` and `step` name this moment of the match as its record, `arena replay`, the match page and the
    analysis do (arena.referee.record): decision 14 is the match's 14th decision (the protocol's
    `sequence`), step 28 the 28th step (decisions and chance events); 0 where the asker does not say.
    """

    __slots__ = ("seat", "legal_actions", "time_left_s", "note", "decision", "step", "_observation",
                 "_make_observation")

    def __init__(
        self,
        seat: int,
        legal_actions: list[int],
        observation: JSON | Callable[[], JSON],
        time_left_s: float | None = None,
        decision: int = 0,
        step: int = 0,
    ) -> None:
        self.seat = seat
        self.legal_actions = legal_actions
        self.time_left_s = time_left_s
        self.note = ""
        self.decision = decision
        self.step = step
        if callable(observation):
            self._observation: JSON | None = None
            self._make_observation: Callable[[], JSON] | None = observation
        else:
            self._observation = observation
            self._make_observation = None

    @property
    def observation(self) -> JSON:
        """All the seat may know (see `State.observation`)."""
        if self._observation is None:
            assert self._make_observation is not None
            self._observation = self._make_observation()
        return self._observation


class Agent(ABC):
    """A player that lives in this process. Seeded, so a match can be reproduced."""

    name: str = "agent"
    version: str = "1"

    def reset(self, game: Game, seat: int, seed: int) -> None:
        """Prepare for a new match of `game` in `seat`; `seed` drives every random choice."""
        self.game = game
        self.seat = seat
        self.seed = seed

    @abstractmethod
    def act(self, request: DecisionRequest) -> int:
        """The chosen action id, one of `request.legal_actions`."""

    def close(self) -> None:
        """Release whatever the agent holds (processes, trees); called after its last match."""
