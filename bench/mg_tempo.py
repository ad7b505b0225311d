#!/usr/bin/env python3
"""Major General's tempo: what the turn to come is worth to the seat that plays it (the analysis' evaluation,
`turn_values` in arena/games/major_general/knowledge.py: each scenario card's tempos by turn, from tempos.json
beside it, or TEMPO_FIRST and TEMPO_SECOND with no card).

    python bench/mg_tempo.py [--game major-general] [--games 6000] [--seed 7] [--write [FILE]] [--json]

Plays --games matches, two in three greedy against greedy and one in three greedy against random (seats
alternating), and at every turn's start (a card to play) keeps the evaluation's lead for Yellow (in points), who
plays the card (the first mover or the second) and the result. Fitted by least squares of the chance (as
`turn_values` makes it: tanh((lead + tempo) / SCALE), the tempo to the side on turn) against the result: the two
tempos, over all the matches and over greedy against greedy alone. Printed beside them, per turn start (the
first mover's turns, the second mover's), the chance's mean error for the first mover without a tempo, with the
shipped tempos and with the fitted ones (0: the evaluation neither flatters nor slights the first mover there).
The same per scenario card (`by_scenario`: the matches of --game that drew it, over all of them and, under
`greedy_vs_greedy`, greedy against greedy; --game a mode such as major-general/superior-numbers plays that
scenario alone), the shipped tempos being the scenario's own. And the first mover's mean error with the shipped
tempos at each turn start (`error_shipped_by_turn`, by cards played before it): a mean of 0 over all turns can
hide an error where a search's leaves fall (the first turns).

Each turn's own tempo (`tempo_by_turn`, by cards played before it: the first mover's turns even, the second
mover's odd) fitted on that turn's starts alone, and the first mover's error with them (`error_fitted_by_turn`).
What `turn_values` reads is each scenario card's (arena/games/major_general/tempos.json): with --write, the
tempos by turn of each card played here, the mean of the fit over all its matches and over greedy against greedy,
replace that card's in the file (the other cards' stay); --write FILE writes them into FILE instead (a
candidate beside the shipped file).
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import statistics
import sys
from pathlib import Path
from typing import Any, Callable, NamedTuple, cast

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
                lead = knowledge.yellow_advantage(state, knowledge.flow_weight(state.scenario))  # (as turn_values)
                rows.append((lead, 1 if state.active == YELLOW else -1,
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


def shipped(data: dict[str, np.ndarray]) -> np.ndarray:
    """The shipped tempo of each turn start (its scenario card's, at its turn), as `turn_values` reads it."""
    return np.array([knowledge.tempos(int(scenario))[int(turn)]
                     for scenario, turn in zip(data["scenario"], data["turn"])], dtype=float)


def _least(error: Callable[..., float], *grids: np.ndarray) -> tuple[tuple[float, ...], float]:
    """(the point, its error) least over the grids (one a coordinate), then refined around the best, every
    coordinate a step either way at once."""
    best = min(((error(*point), point) for point in itertools.product(*grids)), key=lambda row: row[0])
    for step in (0.05, 0.01):
        for _ in range(40):
            point = best[1]
            best = min([best] + [(error(*moved), moved) for moved in
                                 itertools.product(*((x - step, x, x + step) for x in point))],
                       key=lambda row: row[0])
    return best[1], best[0]


def fit(data: dict[str, np.ndarray], keep: np.ndarray) -> tuple[float, float, float]:
    """(tempo of the first mover's turns, of the second mover's, the mean squared error) over the rows kept."""
    def error(first: float, second: float) -> float:
        return float(np.mean((chances(data, first, second)[keep] - data["result"][keep]) ** 2))
    (first, second), least = _least(error, GRID, GRID[::4])
    return round(first, 2), round(second, 2), round(least, 5)


def fit_by_turn(data: dict[str, np.ndarray], keep: np.ndarray) -> list[float | None]:
    """Each turn's own tempo (by cards played before it), fitted on that turn's starts alone (None where no
    match reached it)."""
    tempos: list[float | None] = []
    for turn in range(knowledge.TOTAL_TURNS):
        at = keep & (data["turn"] == turn)
        if not np.any(at):
            tempos.append(None)
            continue
        rows = {name: column[at] for name, column in data.items()}

        def error(tempo: float, rows: dict[str, np.ndarray] = rows) -> float:
            return float(np.mean((chances(rows, tempo, tempo) - rows["result"]) ** 2))
        (tempo,), _ = _least(error, GRID)
        tempos.append(round(tempo, 2))
    return tempos


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
    """The first mover's mean error (`errors`: mover_errors) at each turn start, by cards played before it (0: the
    first mover's first turn, 1: the second mover's first, ...; None where no match reached it)."""
    return [round(float(np.mean(errors[at])), 3) if np.any(at := keep & (data["turn"] == turn)) else None
            for turn in range(knowledge.TOTAL_TURNS)]


def by_turn(data: dict[str, np.ndarray], tempos: list[float | None]) -> np.ndarray:
    """Each turn start's tempo from a list by turn (0 where it has none)."""
    table = np.array([0.0 if tempo is None else tempo for tempo in tempos])
    return table[data["turn"].astype(int)]


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--game", default="major-general", help="major-general or one of its modes")
    parser.add_argument("--games", type=int, default=6000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--write", nargs="?", const=str(knowledge.TEMPOS_FILE), metavar="FILE",
                        help="keep each card's tempos by turn in FILE (default: the shipped tempos.json)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    data = turn_starts(args.game, args.games, args.seed)
    figures: dict[str, Any] = {"game": args.game, "games": args.games, "seed": args.seed,
                               "turn_starts": int(len(data["lead"])),
                               "shipped": [knowledge.TEMPO_FIRST, knowledge.TEMPO_SECOND]}
    everything = np.ones(len(data["lead"]), dtype=bool)
    own = shipped(data)
    base = Base(mover_errors(data, own, own), mover_errors(data, 0.0, 0.0), chances(data, 0.0, 0.0))
    for name, keep in (("all", everything), ("greedy_vs_greedy", data["equal"])):
        figures[name] = _fitted(data, keep, base)
    figures["by_scenario"] = {}
    for scenario in sorted(set(int(s) for s in data["scenario"])):
        card = _fitted(data, data["scenario"] == scenario, base)
        card["greedy_vs_greedy"] = _fitted(data, (data["scenario"] == scenario) & data["equal"], base)
        figures["by_scenario"]["none" if scenario < 0 else SCENARIOS[scenario].id] = card
    if args.write:
        figures["written"] = write_tempos(figures["by_scenario"], args)
    print(json.dumps(figures, indent=None if args.json else 2))
    return 0


def write_tempos(by_scenario: dict[str, Any], args: argparse.Namespace) -> str:
    """Each card's tempos by turn (the mean of its two fits, all matches and greedy against greedy; a turn one
    of them lacks takes the other's) into --write's file, beside the cards not played here; its path."""
    path = Path(args.write)
    shipped_file = json.loads(path.read_text()) if path.exists() else {"cards": {}}
    for card, figures in by_scenario.items():
        if card == "none":
            continue
        pairs = zip(figures["tempo_by_turn"], figures["greedy_vs_greedy"]["tempo_by_turn"])
        shipped_file["cards"][card] = [round(statistics.fmean(t for t in pair if t is not None), 2)
                                       if any(t is not None for t in pair) else 0.0 for pair in pairs]
        shipped_file.setdefault("fitted_by", {})[card] = (f"python bench/mg_tempo.py --game {args.game} --games "
                                                          f"{args.games} --seed {args.seed} --write")
    path.write_text(json.dumps(shipped_file, indent=1, sort_keys=True) + "\n")
    return str(path)


class Base(NamedTuple):
    """What every group of turn starts is measured against, computed once over all of them: the first mover's
    errors with the shipped tempos and with none, and Yellow's chance with none."""

    shipped_errors: np.ndarray
    errors_without: np.ndarray
    chance_without: np.ndarray


def _fitted(data: dict[str, np.ndarray], keep: np.ndarray, base: Base) -> dict[str, Any]:
    """The tempos fitted over the turn starts kept, and the first mover's errors without, with the shipped tempos
    (`base`), with the fitted pair and with the fitted tempos by turn."""
    first, second, error = fit(data, keep)
    turns = fit_by_turn(data, keep)
    turn_tempo = by_turn(data, turns)
    return {"turn_starts": int(np.sum(keep)), "tempo_first": first, "tempo_second": second, "mse": error,
            "mse_without": round(float(np.mean((base.chance_without[keep] - data["result"][keep]) ** 2)), 5),
            "error_without": first_mover_errors(base.errors_without, data, keep),
            "error_shipped": first_mover_errors(base.shipped_errors, data, keep),
            "error_fitted": first_mover_errors(mover_errors(data, first, second), data, keep),
            "error_shipped_by_turn": errors_by_turn(data, keep, base.shipped_errors),
            "tempo_by_turn": turns,
            "error_fitted_by_turn": errors_by_turn(data, keep, mover_errors(data, turn_tempo, turn_tempo))}


if __name__ == "__main__":
    sys.exit(main())
