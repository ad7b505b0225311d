"""A ladder round's tables: more information first, no bot starved, no bot over its pending cap."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.ladder.pairing import NEW_GAMES, WINDOW, Candidate, placement_anchors, OpenBots, WeightedDraw, charged_pending, idle_rounds, plan_tables
from arena.ratings.trueskill_env import DEFAULT_SYSTEM

SYSTEM = DEFAULT_SYSTEM


def _settled(bot: int, mu: float, **changes: int) -> Candidate:
    return Candidate(bot, (mu, 1.5), games=changes.get("games", 200), idle_rounds=changes.get("idle", 0),
                     pending=changes.get("pending", 0))


def test_a_new_version_is_seated_far_more_than_a_settled_bot() -> None:
    seated: Counter[int] = Counter()
    for round_number in range(1000):  # about 2.3 times as often on average; 1,000 rounds keep the noise well below
        field = [_settled(bot, 25.0) for bot in range(1, 9)] + [Candidate(99, SYSTEM.initial, games=0)]
        for table in plan_tables(field, 2, 2, random.Random(round_number), SYSTEM, max_pending=8):
            seated.update(table)
    anchors = set(placement_anchors([_settled(bot, 25.0) for bot in range(1, 9)]))
    others = [seated[bot] for bot in range(1, 9) if bot not in anchors]  # (the anchors meet it by design)
    assert seated[99] == 1000 and seated[99] > 2 * max(others)


def test_a_new_version_is_placed_against_the_same_anchors_in_turn() -> None:
    """Until it has NEW_GAMES games, a new version's first table of a round is against the next of the
    ANCHORS settled bots at even steps of the ratings; then ordinary pairing takes over."""
    field = [_settled(bot, float(bot)) for bot in range(1, 41)]
    anchors = placement_anchors(field)
    assert anchors == [1, 14, 27, 40]  # lowest to highest, evenly spread
    met = []
    for games in range(0, NEW_GAMES, 2):  # two games a table (the seats rotate)
        tables = plan_tables(field + [Candidate(99, SYSTEM.initial, games=games)], 20, 2, random.Random(games),
                             SYSTEM, max_pending=8)
        assert 99 in tables[0]
        met.append(next(bot for bot in tables[0] if bot != 99))
    assert met == [1, 14, 27, 40, 1]
    first = [plan_tables(field + [Candidate(99, (20.0, 2.0), games=NEW_GAMES)], 20, 2, random.Random(seed), SYSTEM,
                         max_pending=8)[0] for seed in range(50)]
    assert sum(99 in table for table in first) < 25  # past placement: drawn like any other bot
    assert placement_anchors(field[:3]) == [1, 2, 3]  # a small field: every settled bot


def test_close_ratings_meet_more_than_far_ones() -> None:
    met: Counter[frozenset[int]] = Counter()
    for round_number in range(300):
        field = [_settled(1, 20.0), _settled(2, 20.5), _settled(3, 40.0)]
        for table in plan_tables(field, 2, 2, random.Random(round_number), SYSTEM, max_pending=8):
            met[frozenset(table)] += 1
    far = met[frozenset((1, 3))] + met[frozenset((2, 3))]
    assert met[frozenset((1, 2))] > 2 * far and far > 0  # the far bot still plays: idle bots are never starved


def test_a_bot_idle_for_rounds_is_seated_first() -> None:
    field = [_settled(bot, 25.0) for bot in range(1, 20)] + [_settled(50, 10.0, idle=3)]
    for seed in range(50):
        tables = plan_tables(field, 2, 2, random.Random(seed), SYSTEM, max_pending=8)
        assert 50 in tables[0]


def test_a_bot_with_matches_waiting_gets_none_beyond_its_cap() -> None:
    field = [_settled(1, 25.0, pending=8), _settled(2, 25.0), _settled(3, 25.0), _settled(4, 25.0, pending=6)]
    tables = plan_tables(field, 40, 2, random.Random(1), SYSTEM, max_pending=8)
    seated = Counter(bot for table in tables for bot in table)
    assert len(tables) == 4 and seated[1] == 0 and seated[4] <= 1 and seated[2] <= 4 and seated[3] <= 4


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 50), st.floats(0.5, 8.3), st.integers(0, 50), st.integers(0, 6),
                          st.integers(0, 10)), min_size=0, max_size=12),
       st.integers(1, 40), st.sampled_from([2, 3]), st.integers(1, 12), st.integers(0, 2**31))
def test_tables_always_respect_the_caps(bots: list[tuple[float, float, int, int, int]], matches: int, seats: int,
                                        cap: int, seed: int) -> None:
    field = [Candidate(index, (mu, sigma), games, idle, pending)
             for index, (mu, sigma, games, idle, pending) in enumerate(bots)]
    tables = plan_tables(field, matches, seats, random.Random(seed), SYSTEM, max_pending=cap)
    assert len(tables) <= -(-matches // seats)
    assert all(len(table) == seats == len(set(table)) for table in tables)
    pending = {c.bot: c.pending for c in field}
    for bot, count in Counter(bot for table in tables for bot in table).items():
        assert pending[bot] + count * seats <= cap
    assert plan_tables(field, matches, seats, random.Random(seed), SYSTEM, max_pending=cap) == tables


def test_idle_rounds() -> None:
    assert idle_rounds([(0, (1, 2)), (3, (2, 3))], [1, 2, 3, 4], 5) == {1: 4, 2: 1, 3: 1, 4: 5}


def test_a_waiting_match_counts_against_its_slowest_bot_only() -> None:
    durations = {1: 0.1, 2: 30.0, 3: 0.2}
    assert charged_pending([(1, 2), (2, 1), (3, 1)], durations) == {2: 2, 3: 1}
    assert charged_pending([(1, 9), (9, 1)], durations) == {9: 2}  # never finished a match: the suspect
    assert charged_pending([(8, 9)], {}) == {8: 1, 9: 1}


def test_a_large_field_meets_near_ratings_within_its_caps() -> None:
    """3,000 bots: each table of a round is drawn among near ratings (the window), not the whole field, yet
    every cap holds and the same seed plans the same round."""
    rng = random.Random(4)
    field = [Candidate(bot, (rng.gauss(25, 6), rng.uniform(0.8, 8.3)), rng.randrange(100), rng.randrange(3),
                       rng.randrange(4)) for bot in range(3000)]
    tables = plan_tables(field, 1500, 2, random.Random(9), SYSTEM, max_pending=6)
    assert len(tables) == 750
    by_bot = {c.bot: c for c in field}
    seated = Counter(bot for table in tables for bot in table)
    assert all(by_bot[bot].pending + count * 2 <= 6 for bot, count in seated.items())
    gaps = sorted(abs(by_bot[a].rating[0] - by_bot[b].rating[0]) for a, b in tables)
    assert gaps[len(gaps) // 2] < 1.0  # drawn at random, the median gap would be about 5.7
    assert plan_tables(field, 1500, 2, random.Random(9), SYSTEM, max_pending=6) == tables


def test_an_uncertain_rating_meets_beyond_the_window() -> None:
    """Beyond the window, a few opponents are drawn from the whole field: a new version (a wide sigma) among
    80 settled bots spread over 50 points of mu meets some farther away than its window reaches."""
    field = [_settled(bot, 0.625 * bot) for bot in range(80)] + [Candidate(99, SYSTEM.initial, games=0)]
    gaps = [abs(25.0 - 0.625 * (a if b == 99 else b)) for seed in range(300)
            for a, b in plan_tables(field, 40, 2, random.Random(seed), SYSTEM, 8) if 99 in (a, b)]
    assert gaps and max(gaps) > 0.625 * (WINDOW + 1)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0.0, 10.0), min_size=1, max_size=30), st.lists(st.tuples(st.integers(0, 29),
       st.floats(0.0, 10.0)), max_size=20), st.integers(0, 2**31))
def test_weighted_draws_follow_the_weights(weights: list[float], changes: list[tuple[int, float]], seed: int) -> None:
    draw = WeightedDraw(weights)
    current = list(weights)
    for index, weight in changes:
        if index < len(current):
            draw.set(index, weight)
            current[index] = weight
    assert abs(draw.total() - sum(current)) < 1e-6
    rng = random.Random(seed)
    for _ in range(20):
        drawn = draw.draw(rng)
        assert (drawn is None) == (sum(current) == 0) and (drawn is None or current[drawn] > 0)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 40), st.lists(st.integers(0, 39), max_size=30), st.integers(0, 39), st.integers(1, 6))
def test_open_bots_give_the_nearest_open_ones(size: int, removed: list[int], probe: int, width: int) -> None:
    open_bots = OpenBots(list(range(size)))
    gone = set()
    for bot in removed:
        if bot < size and bot not in gone and bot != probe:
            open_bots.remove(bot)
            gone.add(bot)
    if probe >= size:
        return
    left = [bot for bot in range(probe - 1, -1, -1) if bot not in gone][:width]
    right = [bot for bot in range(probe + 1, size) if bot not in gone][:width]
    assert sorted(open_bots.near(probe, width)) == sorted(left + right)
    assert open_bots.count == size - len(gone)


def _owned(bot: int, mu: float, owner: str, games: int = 200) -> Candidate:
    return Candidate(bot, (mu, 1.5), games=games, owner=owner)


def _same_owner_tables(tables: list[tuple[int, ...]], owner: dict[int, str]) -> list[tuple[int, ...]]:
    return [table for table in tables if len({owner[bot] for bot in table if owner[bot]})
            < len([bot for bot in table if owner[bot]])]


def test_two_bots_of_one_owner_never_share_a_table_unless_the_operator_allows_it() -> None:
    """A bot could throw its games to a sibling: the plan never seats two bots of one owner together (bots of no
    owner, the built-in players, meet anyone); `same_owner=True` is the operator's way to allow it."""
    field = [_owned(bot, 25.0 + (bot % 3), "ann" if bot <= 6 else "bob" if bot <= 12 else "") for bot in range(1, 15)]
    field.append(_owned(20, 25.0, "ann", games=0))  # a new version of ann's: placed against others' anchors only
    owner = {c.bot: c.owner for c in field}
    allowed = 0
    for seeded in range(50):
        for seats in (2, 3):
            tables = plan_tables(field, 30, seats, random.Random(seeded), SYSTEM, max_pending=8)
            assert tables and not _same_owner_tables(tables, owner)
            allowed += len(_same_owner_tables(plan_tables(field, 30, seats, random.Random(seeded), SYSTEM,
                                                          max_pending=8, same_owner=True), owner))
    assert allowed > 0


def test_a_bot_whose_only_open_opponents_are_its_owners_sits_the_round_out() -> None:
    one_owner = [_owned(bot, 25.0, "ann") for bot in range(1, 5)]
    assert plan_tables(one_owner, 10, 2, random.Random(1), SYSTEM, max_pending=8) == []
    tables = plan_tables([*one_owner, _owned(9, 25.0, "bob")], 10, 2, random.Random(1), SYSTEM, max_pending=8)
    assert tables and all(9 in table for table in tables)  # bob's bot meets ann's until it has no room left
    assert len(tables) == 4  # its cap: 8 pending matches, two a table


def test_a_field_of_one_owner_but_a_few_is_planned_without_trying_every_bot() -> None:
    """When the other owners' bots have no room left, the round ends: the one owner's bots are not each tried."""
    field = [_owned(bot, 25.0 + bot / 1000, "ann") for bot in range(1, 3001)] + [_owned(9001, 25.0, "bob")]
    tables = plan_tables(field, 1000, 2, random.Random(3), SYSTEM, max_pending=8)
    assert len(tables) == 4 and all(9001 in table for table in tables)
