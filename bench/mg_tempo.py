#!/usr/bin/env python3
"""Major General's tempo: what the turn to come is worth to the seat that plays it (the analysis' evaluation,
arena/games/major_general/knowledge.py's TEMPO_FIRST and TEMPO_SECOND, read by `turn_values`).

    python bench/mg_tempo.py [--game major-general] [--games 6000] [--seed 7] [--json]

Plays --games matches, two in three greedy against greedy and one in three greedy against random (seats
alternating), and at every turn's start (a card to play) keeps the evaluation's lead for Yellow (in points), who
plays the card (the first mover or the second) and the result. Fitted by least squares of the chance (as
`turn_values` makes it: tanh((lead + tempo) / SCALE), the tempo to the side on turn) against the result: the two
tempos, over all the matches and over greedy against greedy alone. Printed beside them, per turn start (the
first mover's turns, the second mover's), the chance's mean error for the first mover without a tempo, with the
shipped tempos and with the fitted ones (0: the evaluation neither flatters nor slights the first mover there).
The same per scenario card (`by_scenario`: the matches of --game that drew it; --game a mode such as
major-general/superior-numbers plays that scenario alone), the shipped tempos being the scenario's own. And the
first mover's mean error with the shipped tempos at each turn start (`error_shipped_by_turn`, by cards played
before it): a mean of 0 over all turns can hide an error where a search's leaves fall (the first turns).
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
from arena.games.major_general.data import SCENARIOS  # noqa: E402
from arena.games.major_general.rules import PLAY, YELLOW, MajorGeneralState  # noqa: E402
from arena.games.registry import load_game  # noqa: E402
from arena.referee.authority import play_match  # noqa: E402

GRID = np.arange(-1.0, 6.01, 0.05)  # tempos tried (points), then refined around the best


def turn_starts(game_name: str, games: int, seed: int) -> dict[str, np.ndarray]:
    """Per turn start: Yellow's lead, +1/-1 (Yellow/Red on turn), whether the first mover is on turn, Yellow's
    result, whether the match was greedy against greedy, its scenario (-1: none) and the cards played before it."""
    game = load_game(game_name)
    rng = random.Random(seed)
    rows: list[tuple[float, int, bool, float, bool, int, int]] = []
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
                             state.active == state.first, result, specs == ("greedy", "greedy"), state.scenario,
                             state.played_count))
            state.apply_action(step.action)
    columns = list(zip(*rows))
    names = ("lead", "side", "first", "result", "equal", "scenario", "turn")
    return {name: np.array(column) for name, column in zip(names, columns)}


def chances(data: dict[str, np.ndarray], first: float | np.ndarray, second: float | np.ndarray) -> np.ndarray:
    """Yellow's chance at each turn start with these tempos (numbers, or one per turn start)."""
    tempo = np.where(data["first"], first, second) * data["side"]
    return (1.0 + np.tanh((data["lead"] + tempo) / knowledge.SCALE)) / 2.0


def shipped(data: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The shipped tempos of each turn start's scenario: (the first mover's turns, the second mover's)."""
    pairs = np.array([knowledge.tempos(int(scenario)) for scenario in data["scenario"]]).reshape(-1, 2)
    return pairs[:, 0], pairs[:, 1]


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


def first_mover_errors(errors: np.ndarray, data: dict[str, np.ndarray], keep: np.ndarray) -> dict[str, float]:
    """The chance's mean error for the first mover (`errors`: mover_errors) at its own turn starts and at the
    second mover's."""
    return {"first_movers_turns": round(float(np.mean(errors[keep & data["first"]])), 4),
            "second_movers_turns": round(float(np.mean(errors[keep & ~data["first"]])), 4)}


def mover_errors(data: dict[str, np.ndarray], first: float | np.ndarray, second: float | np.ndarray) -> np.ndarray:
    """At each turn start, the first mover's chance (with these tempos) less its result."""
    chance = chances(data, first, second)
    yellow_first = np.where(data["first"], data["side"] == 1, data["side"] == -1)
    return np.where(yellow_first, chance, 1.0 - chance) - np.where(yellow_first, data["result"], 1.0 - data["result"])


def errors_by_turn(data: dict[str, np.ndarray], keep: np.ndarray, errors: np.ndarray) -> list[float | None]:
    """The first mover's mean error (`errors`: mover_errors with the shipped tempos) at each turn start, by cards
    played before it (0: the first mover's first turn, 1: the second mover's first, ...; None where no match
    reached it)."""
    return [round(float(np.mean(errors[at])), 3) if np.any(at := keep & (data["turn"] == turn)) else None
            for turn in range(knowledge.TOTAL_TURNS)]


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--game", default="major-general", help="major-general or one of its modes")
    parser.add_argument("--games", type=int, default=6000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    data = turn_starts(args.game, args.games, args.seed)
    figures: dict[str, Any] = {"game": args.game, "games": args.games, "seed": args.seed,
                               "turn_starts": int(len(data["lead"])),
                               "shipped": [knowledge.TEMPO_FIRST, knowledge.TEMPO_SECOND]}
    everything = np.ones(len(data["lead"]), dtype=bool)
    own = shipped(data)
    for name, keep in (("all", everything), ("greedy_vs_greedy", data["equal"])):
        figures[name] = _fitted(data, keep, own)
    figures["by_scenario"] = {("none" if scenario < 0 else SCENARIOS[scenario].id):
                              _fitted(data, data["scenario"] == scenario, own)
                              for scenario in sorted(set(int(s) for s in data["scenario"]))}
    print(json.dumps(figures, indent=None if args.json else 2))
    return 0


def _fitted(data: dict[str, np.ndarray], keep: np.ndarray, own: tuple[np.ndarray, np.ndarray]) -> dict[str, Any]:
    """The tempos fitted over the turn starts kept, and the first mover's errors without, with the shipped tempos
    (`own`: `shipped(data)`) and with the fitted ones."""
    first, second, error = fit(data, keep)
    shipped_errors = mover_errors(data, *own)
    return {"turn_starts": int(np.sum(keep)), "tempo_first": first, "tempo_second": second, "mse": error,
            "mse_without": round(float(np.mean((chances(data, 0, 0)[keep] - data["result"][keep]) ** 2)), 5),
            "error_without": first_mover_errors(mover_errors(data, 0.0, 0.0), data, keep),
            "error_shipped": first_mover_errors(shipped_errors, data, keep),
            "error_fitted": first_mover_errors(mover_errors(data, first, second), data, keep),
            "error_shipped_by_turn": errors_by_turn(data, keep, shipped_errors)}


if __name__ == "__main__":
    sys.exit(main())
