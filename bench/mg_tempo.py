#!/usr/bin/env python3
"""Major General's tempo: what the turn to come is worth to the seat that plays it (the analysis' evaluation,
arena/games/major_general/knowledge.py's TEMPO_FIRST and TEMPO_SECOND, read by `turn_values`).

    python bench/mg_tempo.py [--games 6000] [--seed 7] [--json]

Plays --games matches, two in three greedy against greedy and one in three greedy against random (seats
alternating), and at every turn's start (a card to play) keeps the evaluation's lead for Yellow (in points), who
plays the card (the first mover or the second) and the result. Fitted by least squares of the chance (as
`turn_values` makes it: tanh((lead + tempo) / SCALE), the tempo to the side on turn) against the result: the two
tempos, over all the matches and over greedy against greedy alone. Printed beside them, per turn start (the
first mover's turns, the second mover's), the chance's mean error for the first mover without a tempo, with the
shipped tempos and with the fitted ones (0: the evaluation neither flatters nor slights the first mover there).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any, cast

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.agents import make_agent  # noqa: E402
from arena.games.major_general import knowledge  # noqa: E402
from arena.games.major_general.rules import PLAY, YELLOW, MajorGeneralState  # noqa: E402
from arena.games.registry import load_game  # noqa: E402
from arena.referee.authority import play_match  # noqa: E402

GRID = np.arange(-1.0, 6.01, 0.05)  # tempos tried (points), then refined around the best


def turn_starts(games: int, seed: int) -> dict[str, np.ndarray]:
    """Per turn start: Yellow's lead, +1/-1 (Yellow/Red on turn), whether the first mover is on turn, Yellow's
    result, and whether the match was greedy against greedy."""
    game = load_game("major-general")
    rng = random.Random(seed)
    rows: list[tuple[float, int, bool, float, bool]] = []
    for index in range(games):
        specs = ("greedy", "greedy") if index % 3 else ("greedy", "random")
        specs = specs[::-1] if index % 2 else specs
        record = play_match(game, [make_agent(spec) for spec in specs], seed=rng.randrange(2 ** 62))
        assert record.result is not None
        ranking = record.result.ranking
        result = 1.0 if ranking[0] < ranking[1] else 0.5 if ranking[0] == ranking[1] else 0.0
        state = cast(MajorGeneralState, game.new_initial_state())
        for step in record.steps:
            if state.phase == PLAY:
                rows.append((knowledge.yellow_advantage(state), 1 if state.active == YELLOW else -1,
                             state.active == state.first, result, specs == ("greedy", "greedy")))
            state.apply_action(step.action)
    columns = list(zip(*rows))
    return {name: np.array(column) for name, column in zip(("lead", "side", "first", "result", "equal"), columns)}


def chances(data: dict[str, np.ndarray], first: float, second: float) -> np.ndarray:
    """Yellow's chance at each turn start with these tempos."""
    tempo = np.where(data["first"], first, second) * data["side"]
    return (1.0 + np.tanh((data["lead"] + tempo) / knowledge.SCALE)) / 2.0


def fit(data: dict[str, np.ndarray], keep: np.ndarray) -> tuple[float, float, float]:
    """(tempo of the first mover's turns, of the second mover's, the mean squared error) over the rows kept."""
    def error(first: float, second: float) -> float:
        return float(np.mean((chances(data, first, second)[keep] - data["result"][keep]) ** 2))
    best = min(((error(a, b), a, b) for a in GRID for b in GRID[::4]), key=lambda row: row[0])
    for step in (0.05, 0.01):  # coordinate refinement
        for _ in range(40):
            _, a, b = best
            best = min([best] + [(error(a + da, b + db), a + da, b + db)
                                 for da in (-step, 0.0, step) for db in (-step, 0.0, step)], key=lambda row: row[0])
    return round(best[1], 2), round(best[2], 2), round(best[0], 5)


def first_mover_errors(data: dict[str, np.ndarray], keep: np.ndarray, first: float, second: float) -> dict[str, float]:
    """The chance's mean error for the first mover at its own turn starts and at the second mover's."""
    chance = chances(data, first, second)
    yellow_first = np.where(data["first"], data["side"] == 1, data["side"] == -1)
    mover_chance = np.where(yellow_first, chance, 1.0 - chance)
    mover_result = np.where(yellow_first, data["result"], 1.0 - data["result"])
    errors = mover_chance - mover_result
    return {"first_movers_turns": round(float(np.mean(errors[keep & data["first"]])), 4),
            "second_movers_turns": round(float(np.mean(errors[keep & ~data["first"]])), 4)}


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--games", type=int, default=6000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    data = turn_starts(args.games, args.seed)
    figures: dict[str, Any] = {"games": args.games, "seed": args.seed, "turn_starts": int(len(data["lead"])),
                               "shipped": [knowledge.TEMPO_FIRST, knowledge.TEMPO_SECOND]}
    for name, keep in (("all", np.ones(len(data["lead"]), dtype=bool)), ("greedy_vs_greedy", data["equal"])):
        first, second, error = fit(data, keep)
        figures[name] = {"tempo_first": first, "tempo_second": second, "mse": error,
                         "mse_without": round(float(np.mean((chances(data, 0, 0)[keep] - data["result"][keep]) ** 2)), 5),
                         "error_without": first_mover_errors(data, keep, 0.0, 0.0),
                         "error_shipped": first_mover_errors(data, keep, knowledge.TEMPO_FIRST, knowledge.TEMPO_SECOND),
                         "error_fitted": first_mover_errors(data, keep, first, second)}
    print(json.dumps(figures, indent=None if args.json else 2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
