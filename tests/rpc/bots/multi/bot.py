"""An SDK bot for several matches at once: each agent checks that it alone plays its stream.

Its version is its process id, so a test can tell which process played which match.
"""

from __future__ import annotations

import os

from arena.agents.base import Agent, DecisionRequest
from arena.rpc import run_bot


class SeatCheckingAgent(Agent):
    """First legal action; raises if a request is not for the seat this agent was reset to."""

    name = "multi"
    version = f"pid{os.getpid()}"

    def act(self, request: DecisionRequest) -> int:
        if request.seat != self.seat or request.observation["seat"] != self.seat:
            raise RuntimeError(f"agent of seat {self.seat} asked for seat {request.seat}: agents are shared")
        return request.legal_actions[0]


if __name__ == "__main__":
    run_bot(SeatCheckingAgent())
