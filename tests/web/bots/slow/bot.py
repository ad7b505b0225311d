"""A random player that takes 0.1 s per decision (for the live page's test)."""

import time

from arena.agents import RandomAgent
from arena.agents.base import DecisionRequest
from arena.sdk import run_bot


class SlowRandom(RandomAgent):
    name = "slow"

    def act(self, request: DecisionRequest) -> int:
        time.sleep(0.1)
        return super().act(request)


if __name__ == "__main__":
    run_bot(SlowRandom())
