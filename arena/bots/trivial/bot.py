"""The trivial bot: answers every request with its first legal action, at once."""

from arena.agents.base import Agent, DecisionRequest
from arena.sdk import run_bot


class FirstLegalAgent(Agent):
    """Always the lowest legal action id."""

    name = "trivial"
    version = "1"

    def act(self, request: DecisionRequest) -> int:
        return request.legal_actions[0]


if __name__ == "__main__":
    run_bot(FirstLegalAgent())
