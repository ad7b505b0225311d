"""Schedules are valid: round-robin covers every pair, Swiss avoids rematches, knockout halves the field."""

from __future__ import annotations

import itertools
import math
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.ratings.trueskill_env import RatingSystem
from arena.tournament.formats import (Gauntlet, Knockout, Ladder, PlanContext, Planned, RoundRobin, Swiss,
                                      bracket_order, derive_seed, ladder_tables, round_robin_rounds, swiss_pairings)


@given(st.integers(min_value=2, max_value=17))
def test_round_robin_covers_every_pair_once_per_cycle(count: int) -> None:
    rounds = round_robin_rounds(count)
    pairs = [frozenset(table) for tables in rounds for table in tables]
    assert sorted(map(sorted, pairs)) == sorted(map(sorted, itertools.combinations(range(count), 2)))
    assert len(set(pairs)) == len(pairs)
    for tables in rounds:  # nobody plays twice in a round
        seated = [bot for table in tables for bot in table]
        assert len(seated) == len(set(seated))
    assert len(rounds) == (count if count % 2 else count - 1)


def test_round_robin_of_three_seat_tables() -> None:
    rounds = round_robin_rounds(5, seats=3)
    tables = [frozenset(t) for tables in rounds for t in tables]
    assert set(tables) == {frozenset(c) for c in itertools.combinations(range(5), 3)} and len(tables) == 10


def test_round_robin_format_repeats_cycles_with_fresh_rounds() -> None:
    context = PlanContext(entries=[11, 12, 13, 14], num_seats=2, rounds=3, seed=1)
    planned = RoundRobin().plan(context)
    assert len(planned) == 6 * 3 and len({(p.round, p.index) for p in planned}) == len(planned)
    assert RoundRobin().expected_matches(4, 2, 3) == len(planned) * 2
    context.planned = planned
    assert RoundRobin().plan(context) == []


def test_gauntlet_pits_the_challenger_against_the_field() -> None:
    planned = Gauntlet().plan(PlanContext(entries=[1, 2, 3, 4], num_seats=2, rounds=2, seed=0))
    assert [p.bots for p in planned] == [(1, 2), (1, 3), (1, 4)] * 2
    assert {p.round for p in planned} == {0, 1}


def _repeat_free_matching_exists(players: list[int], met: set[frozenset[int]]) -> bool:
    if not players:
        return True
    first, rest = players[0], players[1:]
    return any(frozenset((first, other)) not in met and
               _repeat_free_matching_exists([p for p in rest if p != other], met) for other in rest)


@settings(max_examples=150, deadline=None)
@given(st.integers(min_value=2, max_value=9), st.integers(min_value=0, max_value=2**32), st.floats(0.0, 1.0))
def test_swiss_avoids_rematches_whenever_possible(count: int, seed: int, density: float) -> None:
    rng = random.Random(seed)
    players = list(range(count))
    rng.shuffle(players)
    met = {frozenset(pair) for pair in itertools.combinations(players, 2) if rng.random() < density}
    pairs, bye = swiss_pairings(players, met, set())
    seated = [p for pair in pairs for p in pair] + ([bye] if bye is not None else [])
    assert sorted(seated) == sorted(players)  # everyone is paired or has the bye, once
    assert (bye is not None) == (count % 2 == 1)
    possible = any(_repeat_free_matching_exists([p for p in players if p != b], met)
                   for b in (players if count % 2 else [None]))
    if possible:
        assert not any(frozenset(pair) in met for pair in pairs)


def test_swiss_pairs_neighbours_by_points_and_spreads_byes() -> None:
    pairs, bye = swiss_pairings([1, 2, 3, 4, 5], set(), had_bye={5})
    assert bye == 4 and pairs == [(1, 2), (3, 5)]


def _play_swiss(count: int, rounds: int, seed: int) -> list[Planned]:
    rng = random.Random(seed)
    context = PlanContext(entries=list(range(100, 100 + count)), num_seats=2, rounds=rounds, seed=seed)
    swiss = Swiss()
    while planned := swiss.plan(context):
        for pairing in planned:
            if not pairing.is_bye:
                a, b = pairing.bots
                share = rng.choice([0.0, 0.5, 1.0, 1.5, 2.0])
                context.points[(pairing.round, pairing.index)] = {a: share, b: 2.0 - share}
        context.planned += planned
    return context.planned


def test_swiss_tournament_has_no_rematch_and_one_bye_each() -> None:
    planned = _play_swiss(count=7, rounds=5, seed=3)
    assert {p.round for p in planned} == set(range(5))
    games = [frozenset(p.bots) for p in planned if not p.is_bye]
    assert len(games) == len(set(games))
    byes = [p.bots[0] for p in planned if p.is_bye]
    assert len(byes) == 5 and len(set(byes)) == 5


def test_bracket_order() -> None:
    assert bracket_order(8) == [0, 7, 3, 4, 1, 6, 2, 5]
    assert sorted(bracket_order(16)) == list(range(16))


@given(st.integers(min_value=2, max_value=20), st.integers(min_value=0, max_value=1000), st.integers(1, 2))
def test_knockout_halves_the_field_each_round(count: int, seed: int, pairs_per_tie: int) -> None:
    rng = random.Random(seed)
    entries = list(range(50, 50 + count))
    context = PlanContext(entries=entries, num_seats=2, rounds=pairs_per_tie, seed=seed)
    knockout = Knockout()
    alive = len(entries)
    size = 1 << (count - 1).bit_length()
    field_sizes = []
    while planned := knockout.plan(context):
        ties = len(planned) // pairs_per_tie
        field_sizes.append(ties * 2)
        for pairing in planned:
            if not pairing.is_bye:
                a, b = pairing.bots
                share = rng.choice([0.0, 1.0, 2.0])
                context.points[(pairing.round, pairing.index)] = {a: share, b: 2.0 - share}
        context.planned += planned
        alive = ties
    assert alive == 1
    assert field_sizes == [size // 2 ** r for r in range(int(math.log2(size)))]
    matches = [p for p in context.planned if not p.is_bye]
    assert len(matches) == (count - 1) * pairs_per_tie  # every bot but the champion loses exactly once


def test_knockout_top_seeds_get_the_byes() -> None:
    planned = Knockout().plan(PlanContext(entries=[1, 2, 3, 4, 5, 6], num_seats=2, rounds=1, seed=0))
    byes = sorted(p.bots[0] for p in planned if p.is_bye)
    assert byes == [1, 2]


def test_ladder_rounds_are_deterministic_and_seat_each_bot_once() -> None:
    system = RatingSystem()
    ratings = {1: (30.0, 2.0), 2: (29.0, 2.0), 3: (10.0, 2.0), 4: (11.0, 2.0), 5: (25.0, 8.3)}
    first = ladder_tables([1, 2, 3, 4, 5], ratings, {}, 0, random.Random(9), system)
    again = ladder_tables([1, 2, 3, 4, 5], ratings, {}, 0, random.Random(9), system)
    assert first == again and len(first) == 2
    seated = [bot for table in first for bot in table]
    assert len(seated) == len(set(seated))
    # close ratings meet far more often than distant ones
    close = far = 0
    for seed in range(300):
        for table in ladder_tables([1, 2, 3, 4], ratings, {}, 0, random.Random(seed), system):
            close += set(table) in ({1, 2}, {3, 4})
            far += set(table) in ({1, 3}, {2, 4}, {1, 4}, {2, 3})
    assert close > 3 * far


def test_ladder_format_plans_one_round_at_a_time() -> None:
    context = PlanContext(entries=[1, 2, 3], num_seats=2, rounds=1, seed=4, system=RatingSystem())
    planned = Ladder().plan(context)
    assert len(planned) == 1 and planned[0].round == 0
    context.planned = planned
    assert Ladder().plan(context)[0].round == 1


def test_derived_seeds_are_stable() -> None:
    assert derive_seed(1, 2, 3) == derive_seed(1, 2, 3) != derive_seed(1, 2, 4)
    assert 0 <= derive_seed(7) < 2**63


def test_ladder_boosts_new_and_idle_bots() -> None:
    system = RatingSystem()
    settled = {bot: (25.0, 1.0) for bot in range(1, 6)}
    new = {**settled, 5: system.initial}  # bot 5 has just joined: its sigma is the prior's
    sat_out = {5: 0, 1: 0}
    for seed in range(400):
        for ratings, key in ((settled, 1), (new, 5)):
            seated = {b for t in ladder_tables(list(range(1, 6)), ratings, {}, 0, random.Random(seed), system)
                      for b in t}
            sat_out[key] += key not in seated
    assert sat_out[5] < sat_out[1] / 2  # the new bot sits out far less often than a settled one would
    idle = ladder_tables([1, 2, 3], settled, {1: 9, 2: 9, 3: 0}, 10, random.Random(1), system)
    waits = 0
    for seed in range(300):  # bot 3 has not played for 9 rounds: it is rarely the one left out
        tables = ladder_tables([1, 2, 3], settled, {1: 9, 2: 9, 3: 0}, 10, random.Random(seed), system)
        waits += 3 not in tables[0]
    assert idle and waits < 300 / 3 / 2
