"""What an in-process player is: an object that answers decision requests with an action id."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Callable

from arena.games.base import JSON, Game


class DecisionRequest:
    """One decision asked of one seat: the legal actions, the seat's observation, the clock.

    The observation is built on first use, so agents that never look at it cost nothing.
    """

    __slots__ = ("seat", "legal_actions", "time_left_s", "_observation", "_make_observation")

    def __init__(
        self,
        seat: int,
        legal_actions: list[int],
        observation: JSON | Callable[[], JSON],
        time_left_s: float | None = None,
    ) -> None:
        self.seat = seat
        self.legal_actions = legal_actions
        self.time_left_s = time_left_s
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
