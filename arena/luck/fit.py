"""Fit a family's value model (arena/luck/models/FAMILY.json) from a corpus of self-play games of its own.

    python -m arena.luck.fit FAMILY [--games N] [--validation M] [--lookahead D] [--out FILE] [-j N]
    python -m arena.luck.fit major-general --rollouts K --inputs hand_deck --players scripted [...]

The corpus: N games between Arena's built-in players (each pair of --players, scripted and greedy by default,
the seats alternating), over every mode of the family, on seeds keyed by the corpus' own key (`CORPUS_KEY`: no game
a bench or a ladder plays is among them). Every position right after a chance event (its consequence
settled, and with --lookahead D the scripted players' next decisions up to the next chance event, at most D:
arena.luck.model.value_position, as the model reads it) is a sample, labelled with seat 0's final points. The
model is a logistic regression on the family's value features (L2-regularised, Newton's method; numpy, from
the dev extras). Then M validation games of their own key fix `beta`, the control variate's coefficient (the one that
minimises the variance of the luck-corrected results there, within [0, 1]). The same command with the same
arguments writes the same model, to arena/luck/models/FAMILY.json (the shipped model) or to --out FILE (a
candidate, judged by `python bench/luck.py --model FILE`).

With --rollouts K the labels are not results but the family's scripted players' own rollout values: N scripted
games on the family's first mode (seeds keyed by `ROLLOUT_KEY`), and at every chance event each outcome's position
(every outcome, not only the one drawn) labelled with the mean result of K scripted rollouts from it (`rollout`,
bench/luck_rollouts.py's), so that the model learns what each outcome is worth with far less noise than a result
carries. --inputs names what the model reads (arena.luck.features.INPUTS: `hand_deck`, Major General's hands,
decks, scenario and who moved first, with their products; default its family's value features).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import statistics
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from arena.agents import make_agent
from arena.agents.knowledge import Features, knowledge_for
import random

from arena.games.base import CHANCE, Game, State, points
from arena.games.registry import family_of, game_modes, load_game
from arena.luck.features import INPUTS, UnnamedFeatures, feature_names
from arena.luck.measure import measure_luck
from arena.luck.model import ValueModel, clear_model_cache, model_path, value_position
from arena.referee.authority import play_match
from arena.referee.record import MatchRecord
from arena.referee.seeds import game_seed
from arena.start_method import worker_start_method

CORPUS_KEY = 0xC0A905  # the corpus' games
VALIDATION_KEY = 0x7A11D  # the games that fix beta
ROLLOUT_KEY = 0x7EA1  # the games whose chance outcomes are labelled by rollouts (--rollouts)
PLAYERS = ("scripted", "greedy")  # (random, against anything, loses on skill: its games teach the model no luck)
L2 = 1.0

Task = tuple[str, int, int, ValueModel | None, tuple[str, ...], int]  # (the model the luck is measured with)


def _game_task(task: Task) -> tuple[list[list[float]], list[float], float, float]:
    """One game: (samples' features, their labels, seat 0's points, the match's summed luck for seat 0 under the
    task's model, or nan where it has none). The model travels in the task: a pool started from a fork server
    shares none of this process' globals."""
    mode, key, index, judged, players, lookahead = task
    game = load_game(mode)
    names = _seat_names(players, index)
    record = play_match(game, [make_agent(names[0]), make_agent(names[1])], game_seed(key, index))
    assert record.result is not None
    ranking = record.result.ranking
    seat0 = points(ranking[0] < ranking[1], ranking[0] == ranking[1])
    knowledge = knowledge_for(game)
    assert knowledge.value_features is not None
    features = _chance_samples(game, record, knowledge.value_features, lookahead)
    luck = _seat0_luck(record, game, judged)
    return features, [seat0] * len(features), seat0, luck


def _seat_names(players: tuple[str, ...], index: int) -> tuple[str, str]:
    """Who plays game `index` of the corpus, seat 0 first: each ordered pair of `players` in turn, the seats swapped
    every other round."""
    pairs = [(a, b) for a in players for b in players]
    first, second = pairs[index % len(pairs)]
    return (first, second) if index // len(pairs) % 2 == 0 else (second, first)


def _chance_samples(game: Game, record: MatchRecord, value_features: Features, lookahead: int) -> list[list[float]]:
    """The record replayed: the value features of the position after each chance event (settled, then `lookahead`
    scripted decisions on) where a seat is still to decide."""
    features: list[list[float]] = []
    state = game.new_initial_state()
    for step in record.steps:
        state.apply_action(step.action)
        if step.seat == CHANCE:
            settled = value_position(game, state)
            if not settled.is_terminal() and settled.current_player() != CHANCE:
                reached = value_position(game, state, lookahead) if lookahead else settled
                if not reached.is_terminal():
                    features.append(value_features(reached))
    return features


def _seat0_luck(record: MatchRecord, game: Game, judged: ValueModel | None) -> float:
    """Seat 0's summed luck over the match under the model `judged`, or nan without a model or a measure."""
    if judged is None:
        return float("nan")
    measured = measure_luck(record, game, judged)
    return measured.seats[0] if measured is not None else float("nan")


def rollout(state: State, k: int) -> float:
    """Seat 0's points at the end of one rollout of the family's scripted players from `state`, rollout k's chance
    drawn from `random.Random(k)` and its tie-breaks from `random.Random(1000 + k)` (the same for every position:
    common random numbers)."""
    game = state.game
    policy = knowledge_for(game).scripted_action
    assert policy is not None
    state, rng, chance = state.clone(), random.Random(1000 + k), random.Random(k)
    while not state.is_terminal():
        seat = state.current_player()
        if seat == CHANCE:
            state.apply_action(state.sample_chance(chance))
            continue
        legal = state.legal_actions()
        state.apply_action(legal[0] if len(legal) == 1 else policy(game, state.observation(seat), legal, rng))
    returns = state.returns()
    return points(returns[0] > returns[1], returns[0] == returns[1])


def _rollout_task(task: tuple[str, int, int, str, int]) -> tuple[list[list[float]], list[float]]:
    """One scripted game: every chance outcome's position (the features `inputs` names) and its K-rollout value."""
    mode, index, rollouts, inputs, lookahead = task
    game = load_game(mode)
    read = INPUTS[inputs][1] if inputs != "value" else knowledge_for(game).value_features
    assert read is not None
    record = play_match(game, [make_agent("scripted"), make_agent("scripted")], game_seed(ROLLOUT_KEY, index))
    features: list[list[float]] = []
    labels: list[float] = []
    state = game.new_initial_state()
    for step in record.steps:
        if step.seat == CHANCE:
            for outcome, _probability in state.chance_outcomes():
                child = state.clone()
                child.apply_action(outcome)
                reached = value_position(game, child, lookahead)
                if not reached.is_terminal():
                    features.append(read(reached))
                    labels.append(statistics.fmean(rollout(child, k) for k in range(rollouts)))
        state.apply_action(step.action)
    return features, labels


def _play(modes: list[str], key: int, games: int, jobs: int, players: tuple[str, ...],
          judged: ValueModel | None = None, lookahead: int = 0) -> list[Any]:
    tasks = [(modes[index % len(modes)], key, index, judged, players, lookahead) for index in range(games)]
    with multiprocessing.get_context(worker_start_method()).Pool(jobs) as pool:
        return pool.map(_game_task, tasks, chunksize=8)


def _logistic(rows: list[list[float]], labels: list[float], l2: float = L2) -> list[float]:
    import numpy as np

    x = np.hstack([np.ones((len(rows), 1)), np.array(rows)])
    y = np.array(labels)
    weights = np.zeros(x.shape[1])
    penalty = l2 * np.eye(x.shape[1])
    penalty[0, 0] = 0.0  # (the intercept is not shrunk)
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-np.clip(x @ weights, -40, 40)))
        gradient = x.T @ (p - y) + penalty @ weights
        hessian = (x * (p * (1 - p))[:, None]).T @ x + penalty
        step = np.linalg.solve(hessian, gradient)
        weights -= step
        if float(np.max(np.abs(step))) < 1e-9:
            break
    return [round(float(w), 6) for w in weights]


class FitError(ValueError):
    """A model cannot be fitted (an unknown family, one whose features are not all named); the message says why.
    (A family whose features have no names at all raises arena.luck.features.UnnamedFeatures.)"""


def named_features(family: str) -> tuple[str, ...]:
    """The names of a family's value features (arena/luck/features.py), checked against their count on a
    position of its first mode."""
    mode = next(mode for mode in game_modes() if family_of(mode.name).name == family)
    game = mode.load()
    names = feature_names(game)
    knowledge = knowledge_for(game)
    assert knowledge.value_features is not None  # (a family with named features has them)
    state = game.new_initial_state()
    while state.current_player() == CHANCE:
        state.apply_action(state.chance_outcomes()[0][0])
    count = len(knowledge.value_features(state))
    if len(names) != count:
        raise FitError(f"{family} has {count} value features but arena/luck/features.py names {len(names)}")
    return names


def _corpus(modes: list[str], games: int, jobs: int, players: tuple[str, ...], lookahead: int,
            rollouts: int, inputs: str) -> tuple[list[list[float]], list[float]]:
    """The corpus' samples and their labels: results, or with `rollouts` the scripted players' rollout values."""
    if not rollouts:
        corpus = _play(modes, CORPUS_KEY, games, jobs, players, lookahead=lookahead)
        return ([row for features, _labels, _points, _luck in corpus for row in features],
                [label for _features, game_labels, _points, _luck in corpus for label in game_labels])
    return _rollout_corpus(modes[0], games, jobs, lookahead, rollouts, inputs)


def _rollout_corpus(mode: str, games: int, jobs: int, lookahead: int, rollouts: int,
                    inputs: str) -> tuple[list[list[float]], list[float]]:
    """The samples of `games` games of `mode` labelled with the scripted players' rollout values, and the labels."""
    with multiprocessing.get_context(worker_start_method()).Pool(jobs) as pool:
        labelled = pool.map(_rollout_task, [(mode, index, rollouts, inputs, lookahead) for index in range(games)],
                            chunksize=1)
    return [row for rows, _ in labelled for row in rows], [label for _, labels in labelled for label in labels]


def _command(family: str, games: int, validation: int, players: tuple[str, ...], lookahead: int, rollouts: int,
             l2: float, inputs: str, out: Path | None) -> str:
    """The command that fits the same model again."""
    return (f"python -m arena.luck.fit {family} --games {games} --validation {validation} --players {','.join(players)}"
            + (f" --lookahead {lookahead}" if lookahead else "") + (f" --rollouts {rollouts}" if rollouts else "")
            + (f" --l2 {l2:g}" if l2 != L2 else "") + (f" --inputs {inputs}" if inputs != "value" else "")
            + (f" --out {out}" if out else ""))


def _corpus_note(games: int, samples: int, players: tuple[str, ...], modes: list[str], rollouts: int) -> dict[str, Any]:
    """What the model file says of its corpus."""
    return {"games": games, "samples": samples, "players": ["scripted"] if rollouts else list(players),
            "modes": modes[:1] if rollouts else modes,
            "seeds": f"game_seed({ROLLOUT_KEY if rollouts else CORPUS_KEY:#x}, i) for i < {games}",
            "labels": f"{rollouts} scripted rollouts per chance outcome" if rollouts else "results"}


def _family_modes(family: str, inputs: str) -> list[str]:
    """The family's modes; FitError for an unknown family or unknown inputs."""
    modes = [mode.name for mode in game_modes() if family_of(mode.name).name == family]
    if not modes:
        raise FitError(f"no game family {family!r}")
    if inputs != "value" and inputs not in INPUTS:
        raise FitError(f"no inputs {inputs!r} (arena/luck/features.py: {', '.join(sorted(INPUTS))})")
    return modes


def _target_and_version(family: str, out: Path | None) -> tuple[Path, int]:
    """Where the model is written (`out`, else the shipped model's file) and its version: one more than the
    model already there's (else the shipped one's), or 1."""
    target = out or model_path(family)
    previous = target if target.is_file() else model_path(family)
    version = int(json.loads(previous.read_text()).get("version", 0)) + 1 if previous.is_file() else 1
    return target, version


def _beta(results: list[float], lucks: list[float]) -> float:
    """The control variate's coefficient that minimises the variance of the luck-corrected results, within [0, 1]
    (0 when the luck does not vary)."""
    mean_result, mean_luck, variance = statistics.fmean(results), statistics.fmean(lucks), statistics.pvariance(lucks)
    covariance = statistics.fmean((p - mean_result) * (l - mean_luck) for p, l in zip(results, lucks))
    return min(1.0, max(0.0, covariance / variance)) if variance > 0 else 0.0


def _validation_note(validation: int, results: list[float], lucks: list[float], beta: float) -> dict[str, Any]:
    """What the model file says of its validation games: the results' variance, raw and corrected with `beta`."""
    raw = statistics.pvariance(results)
    corrected = statistics.pvariance([p - beta * l for p, l in zip(results, lucks)])
    return {"games": validation, "seeds": f"game_seed({VALIDATION_KEY:#x}, i) for i < {validation}",
            "variance_raw": round(raw, 5), "variance_corrected": round(corrected, 5),
            "ratio": round(raw / corrected, 3) if corrected > 0 else None}


def fit(family: str, games: int, validation: int, jobs: int, players: tuple[str, ...] = PLAYERS,
        lookahead: int = 0, out: Path | None = None, rollouts: int = 0, inputs: str = "value",
        l2: float = L2) -> ValueModel:
    """The family's model from a fresh corpus (its beta from the validation games), written to `out` (default: the
    shipped model's file); FitError if it has none."""
    modes = _family_modes(family, inputs)
    names = named_features(family) if inputs == "value" else INPUTS[inputs][0]
    rows, labels = _corpus(modes, games, jobs, players, lookahead, rollouts, inputs)
    target, version = _target_and_version(family, out)
    model = ValueModel(family, version, names, tuple(_logistic(rows, labels, l2)), 1.0, lookahead=lookahead,
                                 inputs=inputs)
    checked = _play(modes, VALIDATION_KEY, validation, jobs, players, model, lookahead)
    results = [row[2] for row in checked]
    lucks = [row[3] for row in checked]
    beta = _beta(results, lucks)
    fitted = ValueModel(family, version, model.features, model.weights, round(beta, 4), {
        "command": _command(family, games, validation, players, lookahead, rollouts, l2, inputs, out),
        "corpus": _corpus_note(games, len(rows), players, modes, rollouts),
        "validation": _validation_note(validation, results, lucks, beta),
        "fitted_at": datetime.now(timezone.utc).strftime("%Y-%m-%d")}, lookahead, inputs)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(fitted.to_json(), indent=1) + "\n")
    clear_model_cache()
    return fitted


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("family", help="a game family: major-general, general-orders-wwii, general-orders-sengoku")
    parser.add_argument("--games", type=int, default=3000, help="corpus games (default 3000)")
    parser.add_argument("--validation", type=int, default=1000, help="games that fix beta (default 1000)")
    parser.add_argument("--players", default=",".join(PLAYERS), help="the corpus' players, every pair of them")
    parser.add_argument("--lookahead", type=int, default=0,
                        help="the scripted players' decisions played after a chance outcome before the model reads "
                             "the position (up to the next chance event; default 0: none)")
    parser.add_argument("--out", type=Path, help="where the model is written (default: the shipped model's file, "
                                                 "arena/luck/models/FAMILY.json)")
    parser.add_argument("--rollouts", type=int, default=0,
                        help="label every chance outcome's position with K scripted rollouts' mean result instead of "
                             "fitting to results (scripted games on the family's first mode; default 0: results)")
    parser.add_argument("--inputs", default="value", help="what the model reads: value (its family's value features, "
                                                          "the default) or hand_deck (Major General)")
    parser.add_argument("--l2", type=float, default=L2, help=f"the weights' L2 penalty (default {L2:g})")
    parser.add_argument("-j", "--jobs", type=int, default=multiprocessing.cpu_count())
    arguments = parser.parse_args(argv)
    players = tuple(name.strip() for name in arguments.players.split(",") if name.strip())
    try:
        model = fit(arguments.family, arguments.games, arguments.validation, arguments.jobs, players,
                    arguments.lookahead, arguments.out, arguments.rollouts, arguments.inputs,
                    arguments.l2)
    except (FitError, UnnamedFeatures) as error:
        print(f"python -m arena.luck.fit: {error}", file=sys.stderr)
        return 2
    validation = model.fit["validation"]
    print(f"{model.label}: beta {model.beta}; validation variance {validation['variance_raw']} raw, "
          f"{validation['variance_corrected']} corrected (ratio {validation['ratio']}); "
          f"{arguments.out or model_path(model.family)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
