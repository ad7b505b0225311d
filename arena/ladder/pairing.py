"""Who meets whom in a ladder service's round: the tables that teach the ratings the most.

A table's worth is its TrueSkill match quality (how uncertain its outcome is) times the eagerness of
its bots: more for an uncertain rating (a high sigma), for a new version (few games in the pool) and
for a bot left idle: roughly, what the result would teach the ratings. Bots idle for `starve_rounds`
rounds are seated first, so none is ever starved; a bot with `max_pending` matches already waiting
(a slow or stalling one) gets no new table, so it cannot hold up a round. Draws are seeded: the same
state plans the same round.

A new version is placed first: until it has NEW_GAMES games in the pool, each round seats it (two seats a
table) against the next of a fixed set of settled opponents, the ANCHORS settled bots at even steps of the
field's ratings (`placement_anchors`), in turn, so every new version is measured against the same yardsticks
before ordinary pairing takes over.

A round is planned in about N log N for N bots, not N squared: the quality of a pair falls off fast
with the gap between the ratings, so a bot's opponents are drawn among its `WINDOW` nearest open bots
on each side in rating order (a linked list over the sorted field), plus `FAR_DRAWS` drawn from the
whole field by their worth so that a far rating can still be met; the first seats are drawn from a
Fenwick tree of weights. On a field of at most 2 * WINDOW + 1 bots every bot is near every other.

Two bots of one owner never share a table (a bot could throw its games to a sibling): a table's next seat
is drawn only among bots of owners not yet at it, a new version is placed only against anchors of other
owners, and a bot that no open bot of another owner is left for sits the round out. A bot with no owner
(the built-in players) is of no owner's. `same_owner=True` lifts the rule (an operator's choice).
"""

from __future__ import annotations

import math
import random
from collections import Counter, deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import chain

from arena.ratings.trueskill_env import RatingSystem
from arena.tournament.formats import match_quality, weighted_choice

NEW_GAMES = 10  # a version with fewer games than this in the pool counts as new
ANCHORS = 4  # a new version's placement opponents: this many settled bots spread over the ratings
STARVE_ROUNDS = 3  # a bot idle this many rounds is seated before anyone else
IDLE_HORIZON = 21  # rounds a ladder looks back on for idle counts (eagerness counts at most 20 idle rounds)
WINDOW = 12  # a seat's opponents are drawn among this many open bots on each side in rating order...
FAR_DRAWS = 2  # ...and this many drawn from the whole field by their worth
MIN_QUALITY = 1e-6  # no pair is worth nothing (match_quality's floor, inlined in _near_worths)


@dataclass(frozen=True)
class Candidate:
    """A bot the round may seat: its rating, games in the pool, rounds since it last played, matches pending."""

    bot: int
    rating: tuple[float, float]
    games: int = 0
    idle_rounds: int = 0
    pending: int = 0
    owner: str = ""  # who submitted it ("": no one's, as a built-in player)


def eagerness(candidate: Candidate, system: RatingSystem) -> float:
    """How much a round wants this bot: uncertain ratings (by variance), new versions and idle bots first."""
    weight = 1.0 + 3.0 * (candidate.rating[1] / system.sigma) ** 2 + 0.5 * min(candidate.idle_rounds, 20)
    if candidate.games < NEW_GAMES:
        weight += 2.0
    return weight


class OpenBots:
    """The bots with room left, in rating order: the nearest ones to a bot in O(window), a removal in O(1)."""

    def __init__(self, order: Sequence[int]) -> None:
        self._before = {bot: previous for previous, bot in zip((None, *order), order)}
        self._after = {bot: following for bot, following in zip(order, (*order[1:], None))}
        self.count = len(order)

    def __contains__(self, bot: int) -> bool:
        return bot in self._after

    def remove(self, bot: int) -> None:
        before, after = self._before.pop(bot), self._after.pop(bot)
        if before is not None:
            self._after[before] = after
        if after is not None:
            self._before[after] = before
        self.count -= 1

    def near(self, bot: int, width: int) -> list[int]:
        """Up to `width` open bots on each side of `bot` (itself excluded), the nearer first."""
        found: list[int] = []
        below, above = self._before.get(bot), self._after.get(bot)
        for _ in range(width):
            if below is None and above is None:
                break
            if below is not None:
                found.append(below)
                below = self._before[below]
            if above is not None:
                found.append(above)
                above = self._after[above]
        return found


class WeightedDraw:
    """Draws in proportion to weights that change one at a time (a Fenwick tree): both in O(log n)."""

    def __init__(self, weights: Sequence[float]) -> None:
        self.weights = list(weights)
        self._size = len(weights)
        self._tree = [0.0] * (self._size + 1)
        for index, weight in enumerate(weights):  # linear build
            position = index + 1
            self._tree[position] += weight
            parent = position + (position & -position)
            if parent <= self._size:
                self._tree[parent] += self._tree[position]

    def set(self, index: int, weight: float) -> None:
        change, self.weights[index] = weight - self.weights[index], weight
        position = index + 1
        while position <= self._size:
            self._tree[position] += change
            position += position & -position

    def total(self) -> float:
        total, position = 0.0, self._size
        while position > 0:
            total += self._tree[position]
            position -= position & -position
        return total

    def draw(self, rng: random.Random) -> int | None:
        """An index drawn in proportion to its weight; None when every weight is 0."""
        point = rng.random() * self.total()
        position, step = 0, 1 << self._size.bit_length()
        while step:
            following = position + step
            if following <= self._size and self._tree[following] <= point:
                position = following
                point -= self._tree[following]
            step >>= 1
        if position < self._size and self.weights[position] > 0:
            return position
        for index in chain(range(position, self._size), range(position)):  # rounding landed on a spent weight
            if self.weights[index] > 0:
                return index
        return None


def _near_worths(in_order: Sequence[Candidate], weights: Sequence[float], spread: float) -> list[float]:
    """For each bot (in rating order), the worth of the pairs it makes with its WINDOW neighbours on each
    side: each pair computed once, RatingSystem.quality inlined (this loop is most of a large round's
    planning)."""
    mus = [c.rating[0] for c in in_order]
    variances = [c.rating[1] * c.rating[1] for c in in_order]
    sums = [0.0] * len(in_order)
    exp, sqrt = math.exp, math.sqrt
    for index, (mu, variance, weight) in enumerate(zip(mus, variances, weights)):
        for other in range(index + 1, min(index + WINDOW + 1, len(in_order))):
            total = spread + variance + variances[other]
            gap = mu - mus[other]
            worth = weight * weights[other] * max(sqrt(spread / total) * exp(-gap * gap / (2.0 * total)), MIN_QUALITY)
            sums[index] += worth
            sums[other] += worth
    return [total or MIN_QUALITY for total in sums]


def placement_anchors(candidates: Sequence[Candidate]) -> list[int]:
    """The settled bots (NEW_GAMES games or more) a new version is placed against: ANCHORS of them at even
    steps of the ratings, lowest to highest (all of them when there are no more)."""
    settled = sorted((c for c in candidates if c.games >= NEW_GAMES), key=lambda c: (c.rating[0], c.bot))
    if len(settled) <= ANCHORS:
        return [c.bot for c in settled]
    return [settled[round(i * (len(settled) - 1) / (ANCHORS - 1))].bot for i in range(ANCHORS)]


def plan_tables(candidates: Sequence[Candidate], matches: int, seats: int, rng: random.Random,
                system: RatingSystem, max_pending: int, starve_rounds: int = STARVE_ROUNDS,
                same_owner: bool = False) -> list[tuple[int, ...]]:
    """Tables for one round: about `matches` matches (each table is played once per seat rotation, so
    it is `seats` matches), each bot kept within `max_pending` matches not yet played.

    A pair's worth is the match quality of the two times both bots' eagerness. The first seat of a
    table is drawn in proportion to the worth of the pairs it could make with the bots near it at the
    start of the round; the second among the bots near it and a few far ones in proportion to the
    pair's worth; each further seat in proportion to its eagerness times the quality of the table with
    it. A pair already seated this round is worth a fifth as much again. No table seats two bots of one
    owner unless `same_owner`.
    """
    round_ = _Round(candidates, seats, system, max_pending, starve_rounds, same_owner)
    tables_wanted = max(1, -(-matches // seats))
    if seats == 2:
        round_.place_new_versions(candidates, tables_wanted)
    round_.pair(tables_wanted, rng)
    return round_.tables


def _owners(candidates: Sequence[Candidate], same_owner: bool) -> dict[int, str]:
    """Each owned bot's owner ({} when `same_owner` lifts the rule: then no two bots count as one owner's)."""
    return {} if same_owner else {c.bot: c.owner for c in candidates if c.owner}


def _with_room_in_rating_order(candidates: Sequence[Candidate], room: Mapping[int, int]) -> list[Candidate]:
    """The candidates with room for a table, by rating (then bot id)."""
    return sorted((c for c in candidates if room[c.bot] > 0), key=lambda c: (c.rating[0], c.bot))


def _starving(in_order: Sequence[Candidate], starve_rounds: int) -> deque[int]:
    """The bots idle `starve_rounds` rounds or more, the longest idle first (then by bot id)."""
    return deque(c.bot for c in sorted(in_order, key=lambda c: (-c.idle_rounds, c.bot))
                 if c.idle_rounds >= starve_rounds)


def _open_by_owner(in_order: Sequence[Candidate], owner: Mapping[int, str]) -> Counter[str]:
    """How many of `in_order`'s bots each owner has."""
    return Counter(owner[c.bot] for c in in_order if c.bot in owner)


class _Round:
    """One round being planned: each bot's room left, the open bots, the pairs met so far and the tables."""

    def __init__(self, candidates: Sequence[Candidate], seats: int, system: RatingSystem, max_pending: int,
                 starve_rounds: int, same_owner: bool = False) -> None:
        self.seats = seats
        self.owner = _owners(candidates, same_owner)
        self.system = system
        self.room = {c.bot: max(0, (max_pending - c.pending) // seats) for c in candidates}
        self.rating = {c.bot: c.rating for c in candidates}
        self.weight = {c.bot: eagerness(c, system) for c in candidates}
        self.in_order = _with_room_in_rating_order(candidates, self.room)
        self.open_bots = OpenBots([c.bot for c in self.in_order])
        self.index_of = {c.bot: index for index, c in enumerate(self.in_order)}
        self.starving = _starving(self.in_order, starve_rounds)
        self.met: Counter[tuple[int, int]] = Counter()
        spread = 2.0 * system.beta * system.beta
        self.first_seats = WeightedDraw(_near_worths(self.in_order, [self.weight[c.bot] for c in self.in_order],
                                                     spread))
        self.tables: list[tuple[int, ...]] = []
        self.open_by_owner = _open_by_owner(self.in_order, self.owner)

    def seat(self, table: tuple[int, ...]) -> None:
        """Add a table: its bots' room shrinks (a bot with none left closes) and its pairs count as met."""
        for bot in table:
            self.room[bot] -= 1
            if self.room[bot] == 0:
                self.close(bot)
        for index, bot in enumerate(table):
            for other in table[index + 1:]:
                self.met[min(bot, other), max(bot, other)] += 1
        self.tables.append(table)

    def close(self, bot: int) -> None:
        """No more tables for `bot` this round."""
        self.room[bot] = 0
        self.open_bots.remove(bot)
        self.first_seats.set(self.index_of[bot], 0.0)
        owner = self.owner.get(bot)
        if owner is not None:
            self.open_by_owner[owner] -= 1
            if not self.open_by_owner[owner]:
                del self.open_by_owner[owner]

    def one_owner_left(self) -> bool:
        """Whether every open bot is one owner's (then no table can be made: the round is planned)."""
        return len(self.open_by_owner) == 1 and next(iter(self.open_by_owner.values())) == self.open_bots.count

    def may_join(self, bot: int, table: Sequence[int]) -> bool:
        """True unless `bot`'s owner already has a bot at the table (bots of no owner are anyone's opponents)."""
        owner = self.owner.get(bot)
        return bot not in table and (owner is None or all(self.owner.get(seated) != owner for seated in table))

    def place_new_versions(self, candidates: Sequence[Candidate], tables_wanted: int) -> None:
        """Placement (two seats a table): each new version against its next anchor with room (see the
        module's docstring)."""
        anchors = placement_anchors(candidates)
        for new in sorted((c for c in self.in_order if c.games < NEW_GAMES), key=lambda c: (c.games, c.bot)):
            if len(self.tables) >= tables_wanted or not anchors:
                break
            anchor = self._next_anchor(new, anchors)
            if anchor is not None and self.room[new.bot] > 0:
                self.seat((new.bot, anchor))

    def _next_anchor(self, new: Candidate, anchors: list[int]) -> int | None:
        """The anchor a new version plays next: the first with room and of another owner, in the anchors' turn
        from the one its games so far point to; None when none is."""
        start = (new.games // self.seats) % len(anchors)
        turn = anchors[start:] + anchors[:start]
        return next((bot for bot in turn if self.may_join(bot, (new.bot,)) and self.room[bot] > 0), None)

    def pair(self, tables_wanted: int, rng: random.Random) -> None:
        """Seat drawn tables until `tables_wanted` are planned or too few bots are open."""
        while len(self.tables) < tables_wanted and self.open_bots.count >= self.seats and not self.one_owner_left():
            table = [self.first_seat(rng)]
            while len(table) < self.seats:
                others = self.opponents(table, rng)
                if not others:  # only its owner's bots are left open: this seat sits the round out
                    break
                table.append(weighted_choice(others, self.scores(table, others), rng))
            if len(table) < self.seats:
                self.close(table[0])
                continue
            self.seat(tuple(table))

    def first_seat(self, rng: random.Random) -> int:
        """A starving bot if one is open, else one drawn by the worth of the pairs it could make."""
        while self.starving and self.starving[0] not in self.open_bots:
            self.starving.popleft()
        if self.starving:
            return self.starving.popleft()
        drawn = self.first_seats.draw(rng)
        assert drawn is not None  # open bots are left, each with a weight
        return self.in_order[drawn].bot

    def opponents(self, table: Sequence[int], rng: random.Random) -> list[int]:
        """The bots a table's next seat is drawn among: the open bots near its first seat and FAR_DRAWS far
        ones (every open bot when none of those is free), of owners not at the table yet; [] when none is."""
        first = table[0]
        others = [bot for bot in self.open_bots.near(first, WINDOW) if self.may_join(bot, table)]
        for _ in range(FAR_DRAWS):
            drawn = self.first_seats.draw(rng)
            if drawn is not None and self.in_order[drawn].bot not in others \
                    and self.may_join(self.in_order[drawn].bot, table):
                others.append(self.in_order[drawn].bot)
        if not others:
            others = [bot for bot in self.open_bots.near(first, self.open_bots.count) if self.may_join(bot, table)]
        return others

    def scores(self, table: Sequence[int], others: Sequence[int]) -> list[float]:
        """The draw weight of each of `others` as the table's next seat: a pair's worth for the second seat,
        eagerness times the table's quality with it for a further one; pairs met this round count less."""
        met, weight, rating = self.met, self.weight, self.rating
        if len(table) == 1:
            first = table[0]
            return [weight[first] * weight[bot] * match_quality(self.system, [rating[first]], rating[bot])
                    / (1 + 4 * met[min(first, bot), max(first, bot)]) for bot in others]
        seated = [rating[bot] for bot in table]
        return [weight[bot] * match_quality(self.system, seated, rating[bot])
                / (1 + 4 * sum(met[min(bot, s), max(bot, s)] for s in table)) for bot in others]


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
