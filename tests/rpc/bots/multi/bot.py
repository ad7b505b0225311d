"""An SDK bot for several matches at once: each agent checks that it alone plays its stream.

Its version is a random id of its process (in its sandbox every process is pid 2), so a test can
tell which process played which match.
"""

from __future__ import annotations

import secrets

from arena.agents.base import Agent, DecisionRequest
from arena.sdk import run_bot


PROCESS_ID = f"proc-{secrets.token_hex(6)}"


class SeatCheckingAgent(Agent):
    """First legal action; raises if a request is not for the seat this agent was reset to."""

    name = "multi"
    version = PROCESS_ID

    def act(self, request: DecisionRequest) -> int:
        if request.seat != self.seat or request.observation["seat"] != self.seat:
            raise RuntimeError(f"agent of seat {self.seat} asked for seat {request.seat}: agents are shared")
        return request.legal_actions[0]


if __name__ == "__main__":
    run_bot(SeatCheckingAgent())
