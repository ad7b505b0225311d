"""Luck: its expectation is zero at every chance node, so a luck-corrected result is an unbiased estimate of the
result (a seeded statistical test over a few thousand fast games); the same test catches a broken correction
(wrong outcome probabilities, a value that looks at the game's result). Luck is measured per chance event,
stored with each match (its seats, its record), and what the SPRT decides on where the game has it."""

from __future__ import annotations

import gzip
import json
import math
import statistics
from dataclasses import replace
from typing import Any, Callable

import pytest

from arena.agents import RandomAgent, make_agent
from arena.cli.main import main
from arena.games.base import CHANCE, IllegalActionError, State
from arena.games.registry import load_game
from arena.luck import LuckMeter, MatchLuck, measure_luck, model_for
from arena.luck.model import ValueModel, value_position
from arena.referee.authority import play_match
from arena.referee.record import MatchRecord
from arena.referee.seeds import game_seed
from arena.store import Store
from arena.tournament import InlineExecutor, TournamentRunner, create_tournament, parse_bots

GAME = "major-general"
GAMES = 2500


def the_model() -> ValueModel:
    """The shipped Major General model, counted fully (beta 1), so that the correction is not zero."""
    model = model_for(load_game(GAME))
    assert model is not None, "arena/luck/models/major-general.json is shipped"
    return replace(model, beta=1.0)


@pytest.fixture(scope="module")
def records() -> list[MatchRecord]:
    game = load_game(GAME)
    return [play_match(game, [RandomAgent(), RandomAgent()], game_seed(0x7E57, index)) for index in range(GAMES)]


@pytest.fixture(scope="module")
def lucks(records: list[MatchRecord]) -> list[MatchLuck]:
    """Each record's luck by the shipped model counted fully (measured once for the tests that read it)."""
    return measured_lucks(records, the_model())


def points(record: MatchRecord) -> float:
    assert record.result is not None
    ranking = record.result.ranking
    return 1.0 if ranking[0] < ranking[1] else 0.0 if ranking[0] > ranking[1] else 0.5


def measured_lucks(records: list[MatchRecord], model: ValueModel, **options: Any) -> list[MatchLuck]:
    """Each record's luck by `model` (measure_luck's `options` passed on)."""
    lucks = []
    for record in records:
        luck = measure_luck(record, model=model, **options)
        assert luck is not None
        lucks.append(luck)
    return lucks


def mean_luck_in_standard_errors(records: list[MatchRecord], model: ValueModel, **options: Any) -> float:
    """The mean luck of seat 0 over the records, in standard errors (about N(0, 1) for a sound correction)."""
    return in_standard_errors(measured_lucks(records, model, **options))


def in_standard_errors(lucks: list[MatchLuck]) -> float:
    """Seat 0's mean luck in standard errors."""
    seat_0 = [luck.seats[0] for luck in lucks]
    return statistics.fmean(seat_0) / (statistics.pstdev(seat_0) / math.sqrt(len(seat_0)))


def test_the_corrected_result_is_an_unbiased_estimate_of_the_result(records: list[MatchRecord],
                                                                    lucks: list[MatchLuck]) -> None:
    raw = [points(record) for record in records]
    corrected = [luck.adjusted([points(record), 1 - points(record)])[0] for record, luck in zip(records, lucks)]
    gap = statistics.fmean(corrected) - statistics.fmean(raw)
    spread = statistics.pstdev([c - r for c, r in zip(corrected, raw)]) / math.sqrt(len(raw))
    assert abs(gap) <= 3.5 * spread, (gap, spread)  # (seeded: the same games every run)
    half = 1.96 * statistics.pstdev(corrected) / math.sqrt(len(corrected))
    assert abs(statistics.fmean(corrected) - statistics.fmean(raw)) <= half  # within the corrected mean's interval


def test_the_test_catches_luck_taken_with_the_wrong_probabilities(records: list[MatchRecord],
                                                                  lucks: list[MatchLuck]) -> None:
    """A correction that takes the outcome best for seat 0 as three times likelier than it is expects too much
    of every chance event: the mean luck leaves zero by far."""
    model = the_model()
    game = load_game(GAME)

    def optimistic(state: State, outcomes: list[tuple[int, float]]) -> list[tuple[int, float]]:
        def value(outcome: int) -> float:
            child = state.clone()
            child.apply_action(outcome)
            return model.chance(game, child)

        best = max(outcomes, key=lambda item: value(item[0]))[0]
        weights = [probability * (3.0 if outcome == best else 1.0) for outcome, probability in outcomes]
        return [(outcome, weight / sum(weights)) for (outcome, _p), weight in zip(outcomes, weights)]

    assert abs(in_standard_errors(lucks)) <= 3.5
    assert mean_luck_in_standard_errors(records[:200], model, probabilities=optimistic) < -6  # (-18.8 here)


class PeekingModel(ValueModel):
    """A broken value: after the outcome that happened it reads the game's result (the record's end)."""

    def peek(self, record: MatchRecord) -> PeekingModel:
        """This model, peeking at `record`: the positions its chance outcomes led to are worth its result."""
        game = load_game(record.game, record.options)
        state = game.new_initial_state()
        seen = set()
        for step in record.steps:
            state.apply_action(step.action)
            if step.seat == CHANCE:
                seen.add(json.dumps(state.to_json(), sort_keys=True))
        object.__setattr__(self, "seen", seen)
        object.__setattr__(self, "result", points(record))
        return self

    def scorer(self, game: Any) -> Callable[[State], float]:
        honest = super().scorer(game)

        def score(state: State) -> float:
            if json.dumps(state.to_json(), sort_keys=True) in getattr(self, "seen", ()):
                return float(getattr(self, "result"))
            return honest(state)

        return score


def test_the_test_catches_a_value_that_looks_at_the_result() -> None:
    """Between unequal players (greedy wins most games against random), a value that has seen the result makes
    the luck follow the winner: the mean luck leaves zero by far."""
    game = load_game(GAME)
    base = the_model()
    honest, peeking = [], []
    for index in range(80):  # (the peeking luck's mean is some 75 standard errors off zero at 80 games, 150 at 300)
        record = play_match(game, [make_agent("greedy"), RandomAgent()], game_seed(0xBEEF, index))
        honest_luck = measure_luck(record, model=base)
        broken = PeekingModel(base.family, base.version, base.features, base.weights, 1.0).peek(record)
        peeking_luck = measure_luck(record, model=broken)
        assert honest_luck is not None and peeking_luck is not None
        honest.append(honest_luck)
        peeking.append(peeking_luck)
    assert abs(in_standard_errors(honest)) <= 3.5
    assert abs(in_standard_errors(peeking)) > 6


def test_luck_is_measured_per_chance_event_and_sums_to_the_seats() -> None:
    record = play_match(GAME, [RandomAgent(), RandomAgent()], 5)
    luck = measure_luck(record)
    assert luck is not None and luck.model.startswith("major-general v")
    chance_steps = [step.n for step in record.steps if step.seat == CHANCE]
    assert [n for n, _value in luck.events] == chance_steps
    assert math.isclose(sum(value for _n, value in luck.events), luck.seats[0], abs_tol=1e-9)
    assert luck.seats[1] == -luck.seats[0]
    assert MatchLuck.from_json(json.loads(json.dumps(luck.to_json()))).seats == tuple(round(s, 6) for s in luck.seats)


@pytest.mark.parametrize("mode", ["major-general", "general-orders-wwii/alpine", "general-orders-sengoku/fortress"])
def test_luck_measured_as_the_match_is_played_is_the_records_luck_exactly(mode: str) -> None:
    """A LuckMeter on the match loop (a tournament worker's way: no replay) gives the very figures measure_luck
    gives from the record, event by event, a match ended by a fault included."""
    game = load_game(mode)
    for seed in range(4):
        meter = LuckMeter.of(game)
        agents = [make_agent("greedy" if seed % 2 else "random"), RandomAgent()]
        record = play_match(game, agents, seed, on_step=meter.observe)
        assert meter.luck() == measure_luck(record, game)
    meter = LuckMeter.of(game)
    record = play_match(game, [RandomAgent(), _Illegal(after=5)], 9, on_step=meter.observe)
    assert record.result is not None and record.result.reason == "illegal_action"
    assert meter.luck() == measure_luck(record, game)


def test_major_generals_draws_are_read_off_one_outcome_to_the_last_bit() -> None:
    """A draw's outcomes differ in a hand alone, so the meter plays one and reads the others off it
    (knowledge.outcome_features): every outcome's value is the very float that playing it and reading it gives, in
    any order of the outcomes; the scenario card and who starts are played outcome by outcome."""
    game = load_game(GAME)
    model = model_for(game)
    assert model is not None
    score, score_all = model.scorer(game), model.outcomes_scorer(game)
    assert score_all is not None
    read_off, played = 0, 0
    for seed in range(6):
        agents = [make_agent("greedy") if seed % 2 else RandomAgent(), RandomAgent()]
        record = play_match(game, agents, seed)
        state = game.new_initial_state()
        for step in record.steps:
            if not state.is_terminal() and state.current_player() == CHANCE:
                outcomes = [outcome for outcome, _probability in state.chance_outcomes()]
                each = []
                for outcome in outcomes:
                    child = state.clone()
                    child.apply_action(outcome)
                    each.append(score(child))
                at_once = score_all(state, outcomes)
                if at_once is None:
                    played += 1
                else:
                    assert at_once == each
                    assert score_all(state, outcomes[::-1]) == each[::-1]
                    read_off += 1
            state.apply_action(step.action)
    assert read_off == 6 * 16 and played == 6 * 2  # (eight cards dealt and drawn a seat; the scenario, who starts)


def test_the_meter_takes_any_outcomes_it_is_given_and_refuses_a_card_not_in_the_deck() -> None:
    """Outcome probabilities given as any iterable measure what a list does; a card the drawing seat's deck does
    not hold is refused as playing it refuses it, not read off the others."""
    game = load_game(GAME)
    record = play_match(game, [RandomAgent(), RandomAgent()], 4)
    assert measure_luck(record, game, probabilities=lambda _state, outcomes: iter(outcomes)) == measure_luck(record,
                                                                                                            game)

    def with_a_card_not_in_the_deck(state: Any, outcomes: list[tuple[int, float]]) -> list[tuple[int, float]]:
        decks = [deck for deck in state.decks if all(deck >> card & 1 for card, _probability in outcomes)]
        if len(decks) == 1 and state.current_player() == CHANCE and len(outcomes) < 8:
            missing = next(card for card in range(8) if not decks[0] >> card & 1)
            return [*outcomes, (missing, 0.0)]
        return outcomes

    with pytest.raises(IllegalActionError):
        measure_luck(record, game, probabilities=with_a_card_not_in_the_deck)
    with pytest.raises(IllegalActionError):
        measure_luck(record, game, probabilities=lambda state, outcomes: [*outcomes, (99, 0.0)])


class _Illegal(RandomAgent):
    """Random, then an action that is never legal."""

    def __init__(self, after: int) -> None:
        super().__init__()
        self.left = after

    def act(self, request: Any) -> int:
        self.left -= 1
        return -7 if self.left < 0 else super().act(request)


def test_a_game_without_a_value_model_has_no_luck() -> None:
    odd = load_game("odd-one-out")  # three seats, from a plug-in: no model
    assert model_for(odd) is None
    meter = LuckMeter.of(odd)
    record = play_match(odd, [RandomAgent(), RandomAgent(), RandomAgent()], 3, on_step=meter.observe)
    assert measure_luck(record) is None and meter.luck() is None


def test_every_stored_match_keeps_its_luck_and_the_sprt_decides_on_it(tmp_path: Any,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    store = Store.open(f"sqlite:///{tmp_path / 'luck.db'}")
    tournament = create_tournament(store, game=load_game("general-orders-wwii/alpine"),
                                   bots=parse_bots("a=random,b=scripted"), format="round-robin", rounds=2, seed=4)
    TournamentRunner(store, tournament, InlineExecutor()).run()
    for match in store.matches.of_tournament(tournament):
        assert match.luck is not None and math.isclose(match.luck[0], -match.luck[1], abs_tol=1e-9)
        record = MatchRecord.from_jsonl(gzip.decompress(store.matches.record(match)).decode())
        stored = MatchLuck.from_json(record.extra["luck"])
        assert math.isclose(stored.beta * stored.seats[0], match.luck[0], abs_tol=1e-5)
    store.close()
    code = main(["sprt", "general-orders-wwii/alpine", "greedy", "random", "--elo0", "0", "--elo1", "50",
                 "--max-pairs", "40", "--min-pairs", "10", "-j", "1", "--seed", "3", "--db", str(tmp_path / "sprt.db"),
                 "--json"])  # (the default of 30 pairs is tests/tournament/test_cli.py's: here, what it decides on)
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["luck_corrected"] is True and data["model"] == "normal"
    assert data["raw"]["model"] == "pentanomial" and data["decision"] == "H1"


@pytest.mark.parametrize("mode", ["major-general", "general-orders-wwii/alpine"])
def test_the_players_lookahead_reads_a_position_that_depends_on_the_position_alone(mode: str) -> None:
    """A model with a lookahead reads the position the scripted players reach from a chance outcome, up to the next
    chance event: the same every time from the same position (its luck's expectation stays zero), the position
    given left as it was."""
    game = load_game(mode)
    record = play_match(game, [RandomAgent(), RandomAgent()], 11)
    state, seen = game.new_initial_state(), 0
    for step in record.steps:
        state.apply_action(step.action)
        if step.seat != CHANCE or state.is_terminal() or state.current_player() == CHANCE:
            continue
        before = json.dumps(state.to_json(), sort_keys=True)
        reached = value_position(game, state, 40)
        assert json.dumps(state.to_json(), sort_keys=True) == before
        assert reached == value_position(game, state, 40) and reached != state
        assert reached.is_terminal() or reached.current_player() == CHANCE
        seen += 1
    assert seen > 3


def test_a_model_with_a_lookahead_keeps_it_in_its_file_and_reads_the_position_reached() -> None:
    game = load_game(GAME)
    model = replace(the_model(), lookahead=40)
    assert ValueModel.from_json(json.loads(json.dumps(model.to_json()))) == model
    older = the_model().to_json()
    del older["lookahead"]
    assert ValueModel.from_json(older).lookahead == 0  # (a file written before lookaheads reads the position itself)
    state = game.new_initial_state()
    while state.current_player() == CHANCE:
        state.apply_action(state.chance_outcomes()[0][0])
    reached = value_position(game, state, 40)
    assert model.chance(game, state) == replace(model, lookahead=0).chance(game, reached)
    assert model.chance(game, state) != replace(model, lookahead=0).chance(game, state)


def test_a_model_with_a_lookahead_is_measured_off_the_match_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    """The match loop meters luck only where the model is cheap; a lookahead model's luck is measured from the
    record once the match is over (the same figures: the luck is a function of the record)."""
    game = load_game(GAME)
    shipped = model_for(game)
    assert (LuckMeter.during_play(game) is None) == bool(shipped is not None and shipped.lookahead)
    monkeypatch.setattr("arena.luck.measure.model_for", lambda _game: replace(the_model(), lookahead=40))
    assert LuckMeter.during_play(game) is None
    model = LuckMeter.of(game).model
    assert model is not None and model.lookahead == 40
