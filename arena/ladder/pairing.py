"""Who meets whom in a ladder service's round: the tables that teach the ratings the most.

A table's worth is its TrueSkill match quality (how uncertain its outcome is) times the eagerness of
its bots: more for an uncertain rating (a high sigma), for a new version (few games in the pool) and
for a bot left idle: roughly, what the result would teach the ratings. Bots idle for `starve_rounds`
rounds are seated first, so none is ever starved; a bot with `max_pending` matches already waiting
(a slow or stalling one) gets no new table, so it cannot hold up a round. Draws are seeded: the same
state plans the same round.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from arena.ratings.trueskill_env import RatingSystem
from arena.tournament.formats import match_quality, weighted_choice

NEW_GAMES = 10  # a version with fewer games than this in the pool counts as new
STARVE_ROUNDS = 3  # a bot idle this many rounds is seated before anyone else


@dataclass(frozen=True)
class Candidate:
    """A bot the round may seat: its rating, games in the pool, rounds since it last played, matches pending."""

    bot: int
    rating: tuple[float, float]
    games: int = 0
    idle_rounds: int = 0
    pending: int = 0


def eagerness(candidate: Candidate, system: RatingSystem) -> float:
    """How much a round wants this bot: uncertain ratings (by variance), new versions and idle bots first."""
    weight = 1.0 + 3.0 * (candidate.rating[1] / system.sigma) ** 2 + 0.5 * min(candidate.idle_rounds, 20)
    if candidate.games < NEW_GAMES:
        weight += 2.0
    return weight


def plan_tables(candidates: Sequence[Candidate], matches: int, seats: int, rng: random.Random,
                system: RatingSystem, max_pending: int, starve_rounds: int = STARVE_ROUNDS) -> list[tuple[int, ...]]:
    """Tables for one round: about `matches` matches (each table is played once per seat rotation, so
    it is `seats` matches), each bot kept within `max_pending` matches not yet played.

    A pair's worth is the match quality of the two times both bots' eagerness; the first seat of a
    table is drawn in proportion to the worth of the pairs it could make (so a two-seat table is drawn
    in proportion to its worth), each further seat in proportion to its eagerness times the quality of
    the table with it. A pair already seated this round is worth a fifth as much again.
    """
    tables_wanted = max(1, -(-matches // seats))
    room = {c.bot: max(0, (max_pending - c.pending) // seats) for c in candidates}
    rating = {c.bot: c.rating for c in candidates}
    weight = {c.bot: eagerness(c, system) for c in candidates}
    starving = [c.bot for c in sorted(candidates, key=lambda c: (-c.idle_rounds, c.bot))
                if c.idle_rounds >= starve_rounds]
    quality: dict[frozenset[int], float] = {}
    met: Counter[frozenset[int]] = Counter()

    def worth(bot: int, other: int) -> float:
        pair = frozenset((bot, other))
        if pair not in quality:
            quality[pair] = match_quality(system, [rating[bot]], rating[other])
        return weight[bot] * weight[other] * quality[pair] / (1 + 4 * met[pair])

    tables: list[tuple[int, ...]] = []
    while len(tables) < tables_wanted:
        open_bots = sorted(bot for bot, left in room.items() if left > 0)
        if len(open_bots) < seats:
            break
        waiting = [bot for bot in starving if room[bot] > 0]
        if waiting:
            first = waiting[0]
            starving.remove(first)
        else:
            first = weighted_choice(open_bots, [sum(worth(bot, other) for other in open_bots if other != bot)
                                                for bot in open_bots], rng)
        table = [first]
        while len(table) < seats:
            others = [bot for bot in open_bots if bot not in table]
            if len(table) == 1:
                scores = [worth(first, bot) for bot in others]
            else:
                seated = [rating[bot] for bot in table]
                scores = [weight[bot] * match_quality(system, seated, rating[bot])
                          / (1 + 4 * sum(met[frozenset((bot, s))] for s in table)) for bot in others]
            table.append(weighted_choice(others, scores, rng))
        for bot in table:
            room[bot] -= 1
        for index, bot in enumerate(table):
            for other in table[index + 1:]:
                met[frozenset((bot, other))] += 1
        tables.append(tuple(table))
    return tables


def idle_rounds(planned: Sequence[tuple[int, Sequence[int]]], bots: Sequence[int], next_round: int) -> dict[int, int]:
    """Rounds since each bot was last given a table ((round, bots) of the planned tables); a bot never
    given one counts as idle since round 0."""
    last: dict[int, int] = {}
    for number, table in planned:
        for bot in table:
            last[bot] = max(last.get(bot, -1), number)
    return {bot: next_round - last.get(bot, -1) - 1 for bot in bots}


def charged_pending(waiting: Sequence[Sequence[int]], durations: Mapping[int, float]) -> Mapping[int, int]:
    """Matches waiting per bot, for the cap: each waiting match (its bots) counts against its slowest bot
    only, by the bots' usual match times in `durations`; a bot with no finished match yet is the likeliest
    to stall, so such bots are charged first. The opponent of a stalling bot is not held back with it."""
    counts: Counter[int] = Counter()
    for bots in waiting:
        unknown = [bot for bot in set(bots) if bot not in durations]
        counts.update(unknown or [max(bots, key=lambda bot: (durations[bot], -bot))])
    return counts
