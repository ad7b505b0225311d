"""The scale of a drop's standard error, measured per game family and budget and shipped beside the optimism
(arena/analysis/calibration.json, read by arena/analysis/calibration.py).

A drop's standard error comes from the spread of the values the judge's simulations backed up, over their number:
as if each simulation were an independent draw. They are not quite: a search's tree makes its later simulations
follow its earlier ones, so where the tree grows deep the value a search settles on varies more from search to
search than its simulations' spread says. Measured directly: at decisions of greedy against random (3+ moves, every
third decision, where the analysis' chooser picks a move other than the one played), the same two moves valued by
NOISE_SEEDS independent judges (as the analysis values them); the real spread of the drop over those judges against
the standard error they gave, pooled over the decisions (sqrt(mean spread^2 / mean error^2)). The analysis
multiplies every standard error by it, so a drop "clear of its noise" is clear of the real noise.

    python -m arena.analysis.measure_noise [--matches 40] [--seed 2028] [--budget 100 --budget 400 --budget 800]
        [--family NAME ...] [--mode NAME ...]

The scale grows with the budget; 800 is measured too because an analysis at the default budget (400) confirms a
large drop by a search of its whole budget, which values each of the two moves as an analysis at 800 does. It
plays its own matches, never the ones an analysis judges, and writes the scale, its 95% interval (a bootstrap
over the decisions), the number of decisions and the command into each budget's entry of the file (the optimism
there is kept; a budget where no decision could be measured is left as it was). It reads the file when it starts
and writes it whole when it ends: run one measuring command at a time (this one, or measure_optimism).
`bench/analysis_quality.py`'s "noise" checks the result on other matches.
"""

from __future__ import annotations

import math
import random
import statistics
import sys
from typing import Any, Callable, Iterator, Sequence

from arena.agents import MCTSAgent, make_agent
from arena.agents.base import DecisionRequest
from arena.analysis.calibration import CALIBRATION
from arena.analysis.match import Budget, _half, _judged
from arena.analysis.measure_optimism import measure_into
from arena.games.base import Game
from arena.games.registry import load_game
from arena.referee.authority import play_match
from arena.referee.seeds import derive_seed

NOISE_SEEDS = 4  # independent judges per decision
BUDGETS = ("100", "400", "800")  # measured by default
RESAMPLES = 2000  # bootstrap resamples of the decisions for the interval


Judge = Callable[[Game, int, list[int], Any, int, int, Budget, int], tuple[float, float, float]]


def single_judge(game: Game, seat: int, legal: list[int], seen: Any, played: int, best: int, budget: Budget,
                 seed: int) -> tuple[float, float, float]:
    """The analysis' judge at `budget`, as it values the best move and the one played: (before, after, the drop's
    standard error before any scale)."""
    before, after, error, _ = _judged(game, seat, legal, seen, played, best, _half(budget), seed)
    return before, after, error


def drop_noise(game: Game, rng: random.Random, matches: int, budget: Budget,
               seeds: int = NOISE_SEEDS) -> list[tuple[float, float]]:
    """Per decision measured (see the module's docstring), on `matches` matches of greedy against random:
    (the variance of the drop over `seeds` independent judges, their mean squared standard error)."""
    return drop_noise_by_judges(game, rng, matches, budget, (single_judge,), seeds)[0]


def drop_noise_by_judges(game: Game, rng: random.Random, matches: int, budget: Budget, judges: Sequence[Judge],
                         seeds: int = NOISE_SEEDS) -> list[list[tuple[float, float]]]:
    """drop_noise's rows for each of `judges` at the same decisions (the matches played and the best moves
    searched once for all)."""
    found: list[list[tuple[float, float]]] = [[] for _ in judges]
    for seat, legal, seen, played, best, place in _measured_decisions(game, rng, matches, budget):
        for judge, rows in zip(judges, found):
            judged = [judge(game, seat, legal, seen, played, best, budget, derive_seed(*place, n))
                      for n in range(seeds)]
            rows.append((statistics.variance([before - after for before, after, _ in judged]),
                         statistics.fmean(error * error for _, _, error in judged)))
    return found


def _measured_decisions(game: Game, rng: random.Random, matches: int,
                        budget: Budget) -> Iterator[tuple[int, list[int], Any, int, int, tuple[int, int]]]:
    """The decisions measured (see the module's docstring) of `matches` matches of greedy against random: (the
    mover, its legal moves, its observation, the move played, the best by a search of half the budget, its place
    (the match's seed, the step) its judges' seeds are derived from), where the best is not the move played."""
    half = _half(budget)
    for _ in range(matches):
        record = play_match(game, [make_agent("greedy"), make_agent("random")], seed=rng.randrange(2 ** 62))
        state = game.new_initial_state()
        for index, step in enumerate(record.steps):
            if not step.is_chance and index % 3 == 0 and len(state.legal_actions()) >= 3:
                seat, legal = state.current_player(), state.legal_actions()
                seen = state.observation(seat)
                chooser = MCTSAgent(iterations=half.simulations, seconds=half.seconds, keep_tree=False,
                                    turn_aware=True)
                chooser.reset(game, seat, derive_seed(record.seed, index))
                best = chooser.move_values(DecisionRequest(seat, legal, seen), include=(step.action,)).best
                if best != step.action:
                    yield seat, legal, seen, step.action, best, (record.seed, index)
            state.apply_action(step.action)


def spread_over_error(rows: list[tuple[float, float]]) -> float | None:
    """The drops' real spread against their standard errors, pooled over the decisions (None: no decision)."""
    errors = sum(error for _, error in rows)
    return math.sqrt(sum(spread for spread, _ in rows) / errors) if rows and errors > 0 else None


def measure(game: Game, matches: int, budget: str, seed: int) -> dict[str, Any] | None:
    """The scale at `budget` on `matches` of `game`: its value, its 95% interval and the decisions it rests on
    (None: no decision to measure it at)."""
    rows = drop_noise(game, random.Random(seed), matches, Budget.parse(budget))
    scale = spread_over_error(rows)
    if scale is None:
        return None
    rng = random.Random(seed)
    resampled = sorted(spread_over_error(rng.choices(rows, k=len(rows))) or scale for _ in range(RESAMPLES))
    return {"noise_scale": round(scale, 3), "noise_low": round(resampled[int(0.025 * RESAMPLES)], 3),
            "noise_high": round(resampled[int(0.975 * RESAMPLES)], 3), "noise_decisions": len(rows)}


def measured_rows(key: str, mode: str, entry: Any, asked: list[str], matches: int, seed: int,
                  command: str) -> dict[str, Any]:
    """A family's (or a mode's own) entry with the scale measured at the budgets asked for on `matches` of
    `mode`, everything else in it kept."""
    entry = dict(entry) if isinstance(entry, dict) else {"mode": mode}
    rows = {row["simulations"]: dict(row) for row in entry.get("budgets", [])}
    game = load_game(mode)
    for budget in asked:
        found = measure(game, matches, budget, seed)
        simulations = Budget.parse(budget).simulations
        if found is None:
            print(f"{key} at {simulations}: no decision to measure the noise at in {matches} matches of {mode} "
                  "(left as it was: ask for more --matches)")
            continue
        rows.setdefault(simulations, {"simulations": simulations}).update(
            found, noise_matches=matches, noise_seed=seed, noise_command=command)
        print(f"{key} at {simulations}: noise scale {found['noise_scale']} [{found['noise_low']}, "
              f"{found['noise_high']}] over {found['noise_decisions']} decisions ({matches} matches of {mode})")
    entry["budgets"] = [rows[at] for at in sorted(rows)]
    return entry


def main(argv: list[str] | None = None) -> int:
    """Measure the families, modes and budgets asked for (all families, BUDGETS by default) and write their
    scales into calibration.json."""
    return measure_into(CALIBRATION, "arena.analysis.measure_noise", __doc__, (40, 2028), measured_rows, argv,
                        BUDGETS)


if __name__ == "__main__":
    sys.exit(main())
