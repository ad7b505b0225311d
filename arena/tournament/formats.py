"""Tournament formats: who meets whom, round by round. Pure functions of the entrants, the seed and
the results so far, so a tournament's schedule is fixed by its seed.

Every pairing is a table of bots played once per seat rotation (for two seats, a seat-swapped pair),
each game on a chance seed of its own (`game_seed`): a bot that remembers one game's cards and dice
learns nothing of the next. The duplicate format (every rotation of a pairing on one seed, which cuts
the luck between players that cannot remember) is an explicit option for in-process agents only.
Formats:

- round-robin: every pair (every table of `seats` bots) meets once per cycle; `rounds` cycles.
- gauntlet: the first bot meets every other, `rounds` times.
- swiss: `rounds` rounds; bots with equal points meet, never twice while a repeat-free pairing
  exists; an odd bot out gets a bye worth a won pair (each bot at most one bye while avoidable).
- knockout: a seeded bracket (1 v n, 2 v n-1, ...; top seeds get byes up to a power of two); each
  tie is `rounds` seat-swapped pairs; the winner has more points, then more total game score, then
  the better seed. The field halves every round.
- ladder: open-ended; each round pairs bots by TrueSkill match quality, boosted for uncertain (new)
  and idle bots.
"""

from __future__ import annotations

import itertools
import math
import random
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Sequence

from arena.ratings.trueskill_env import RatingSystem
from arena.referee.seeds import derive_seed

FORMAT_NAMES = ("round-robin", "gauntlet", "swiss", "knockout", "ladder")


DUPLICATE_REFUSED = ("--duplicate deals every game of a pairing alike: only for in-process agents, which cannot "
                     "remember one game in the next; a bot program or remote bot keeps its memory between games "
                     "and would know the second game's cards and dice")


@dataclass(frozen=True)
class Planned:
    """A pairing to store: its round, position in the round, bots in base seat order, and a label."""

    round: int
    index: int
    bots: tuple[int, ...]
    label: str = ""

    @property
    def is_bye(self) -> bool:
        return len(self.bots) == 1


@dataclass
class PlanContext:
    """What a format may look at when planning: entrants, settings, and everything played so far."""

    entries: list[int]  # bot ids in seeding order
    num_seats: int
    rounds: int
    seed: int
    planned: list[Planned] = field(default_factory=list)
    # (round, index) -> bot id -> game points (win 1, draw 1/2) and summed game scores, over rotations
    points: dict[tuple[int, int], dict[int, float]] = field(default_factory=dict)
    scores: dict[tuple[int, int], dict[int, float]] = field(default_factory=dict)
    ratings: dict[int, tuple[float, float]] = field(default_factory=dict)
    system: RatingSystem | None = None

    @property
    def next_round(self) -> int:
        return max((p.round for p in self.planned), default=-1) + 1

    def rng(self, round_number: int) -> random.Random:
        """The seeded generator a format uses for one round's choices."""
        return random.Random(derive_seed(self.seed, round_number, -1))


class FormatError(ValueError):
    """The format cannot run with these entrants or this game."""


class Format(ABC):
    """A way of pairing bots."""

    name: str = ""
    dynamic: bool = False  # plans a round at a time, after the previous one is played
    extendable: bool = False  # a finished tournament can be given more rounds (more cycles, more Swiss rounds)

    def check(self, entrants: int, num_seats: int, rounds: int) -> None:
        """Raise FormatError if the format cannot run."""
        if entrants < num_seats:
            raise FormatError(f"{self.name} needs at least {num_seats} bots, got {entrants}")
        if rounds < 1:
            raise FormatError("rounds must be at least 1")

    @abstractmethod
    def plan(self, context: PlanContext) -> list[Planned]:
        """The next pairings to play; empty when the tournament is complete."""

    @abstractmethod
    def expected_matches(self, entrants: int, num_seats: int, rounds: int) -> int | None:
        """How many matches the whole tournament plays (None: open-ended)."""


def round_robin_rounds(count: int, seats: int = 2) -> list[list[tuple[int, ...]]]:
    """One cycle: rounds of tables over entrant positions 0..count-1; every table of `seats` exactly once."""
    if seats == 2:
        return _circle_rounds(count)
    return _greedy_rounds(count, seats)


def _circle_rounds(count: int) -> list[list[tuple[int, ...]]]:
    """The circle method's cycle of two-seat rounds (one position sits out each round when `count` is odd)."""
    players: list[int | None] = list(range(count))
    if count % 2:
        players.append(None)  # the circle method's bye
    size = len(players)
    rounds: list[list[tuple[int, ...]]] = []
    for _ in range(size - 1):
        tables: list[tuple[int, ...]] = []
        for i in range(size // 2):
            a, b = players[i], players[size - 1 - i]
            if a is not None and b is not None:
                tables.append((a, b))
        rounds.append(tables)
        players = [players[0], players[-1], *players[1:-1]]
    return rounds


def _greedy_rounds(count: int, seats: int) -> list[list[tuple[int, ...]]]:
    """Rounds of `seats`-seat tables, each filled greedily with the tables left that share no entrant."""
    remaining: list[tuple[int, ...]] = list(itertools.combinations(range(count), seats))
    combined: list[list[tuple[int, ...]]] = []
    while remaining:
        used: set[int] = set()
        chosen: list[tuple[int, ...]] = []
        for table in remaining:
            if not used.intersection(table):
                chosen.append(table)
                used.update(table)
        combined.append(chosen)
        remaining = [table for table in remaining if table not in chosen]
    return combined


class RoundRobin(Format):
    """Every table of bots meets once per cycle."""

    name = "round-robin"
    extendable = True

    def plan(self, context: PlanContext) -> list[Planned]:
        cycle = round_robin_rounds(len(context.entries), context.num_seats)
        planned = []
        for repeat in range(-(-context.next_round // len(cycle)), context.rounds):  # the cycles not planned yet
            for offset, tables in enumerate(cycle):
                number = repeat * len(cycle) + offset
                for index, table in enumerate(tables):
                    planned.append(Planned(number, index, tuple(context.entries[p] for p in table)))
        return planned

    def expected_matches(self, entrants: int, num_seats: int, rounds: int) -> int:
        return math.comb(entrants, num_seats) * num_seats * rounds


class Gauntlet(Format):
    """The first bot (the challenger) meets the rest of the field."""

    name = "gauntlet"
    extendable = True

    def check(self, entrants: int, num_seats: int, rounds: int) -> None:
        super().check(entrants, num_seats, rounds)
        if entrants < 2:
            raise FormatError("a gauntlet needs a challenger and a field")

    def plan(self, context: PlanContext) -> list[Planned]:
        challenger, field_ = context.entries[0], context.entries[1:]
        tables = [(challenger, *others) for others in itertools.combinations(field_, context.num_seats - 1)]
        return [Planned(number, index, table) for number in range(context.next_round, context.rounds)
                for index, table in enumerate(tables)]

    def expected_matches(self, entrants: int, num_seats: int, rounds: int) -> int:
        return math.comb(entrants - 1, num_seats - 1) * num_seats * rounds


def _two_seats_only(name: str, num_seats: int) -> None:
    if num_seats != 2:
        raise FormatError(f"{name} pairs two bots at a time; this game has {num_seats} seats")


def swiss_pairings(order: Sequence[int], met: set[frozenset[int]], had_bye: set[int],
                   budget: int = 200_000) -> tuple[list[tuple[int, int]], int | None]:
    """Pair bots listed best first: neighbours by standing, no rematch while one can be avoided.

    Returns (pairs, bye). The bye goes to the lowest-placed bot without one that still leaves a
    repeat-free pairing of the rest; the search is exhaustive up to `budget` steps, then it falls
    back to pairing neighbours.
    """
    players = list(order)
    candidates = _bye_candidates(players, had_bye)
    search = _RematchFreeSearch(met, budget)
    for bye in candidates:
        rest = [p for p in players if p != bye]
        pairs = search.pairs(rest)
        if pairs is not None:
            return pairs, bye
    bye = candidates[0]
    rest = [p for p in players if p != bye]
    return [(rest[i], rest[i + 1]) for i in range(0, len(rest) - 1, 2)], bye


def _bye_candidates(players: list[int], had_bye: set[int]) -> list[int | None]:
    """Who may take the bye, in the order tried: [None] for an even field, else the lowest-placed first,
    bots without a bye before those that had one."""
    if not len(players) % 2:
        return [None]
    return [*(p for p in reversed(players) if p not in had_bye), *(p for p in reversed(players) if p in had_bye)]


class _RematchFreeSearch:
    """A depth-first search for a pairing without rematches, bounded by `budget` steps over all its calls."""

    def __init__(self, met: set[frozenset[int]], budget: int) -> None:
        self.met = met
        self.budget = budget
        self.steps = 0

    def pairs(self, rest: list[int]) -> list[tuple[int, int]] | None:
        """Pairs of `rest` in which no two bots have met, each bot paired with the best-placed it may meet
        first; None if there is none (or the budget ran out)."""
        if not rest:
            return []
        self.steps += 1
        if self.steps > self.budget:
            return None
        first, others = rest[0], rest[1:]
        for position, opponent in enumerate(others):
            if frozenset((first, opponent)) in self.met:
                continue
            tail = self.pairs(others[:position] + others[position + 1:])
            if tail is not None:
                return [(first, opponent), *tail]
        return None


class Swiss(Format):
    """Bots with equal points meet; no rematches while avoidable."""

    name = "swiss"
    dynamic = True
    extendable = True

    def check(self, entrants: int, num_seats: int, rounds: int) -> None:
        super().check(entrants, num_seats, rounds)
        _two_seats_only(self.name, num_seats)

    def plan(self, context: PlanContext) -> list[Planned]:
        number = context.next_round
        if number >= context.rounds:
            return []
        position = {bot: i for i, bot in enumerate(context.entries)}
        totals = swiss_points(context)
        order = sorted(context.entries, key=lambda bot: (-totals.get(bot, 0.0), position[bot]))
        met = {frozenset(p.bots) for p in context.planned if not p.is_bye}
        had_bye = {p.bots[0] for p in context.planned if p.is_bye}
        pairs, bye = swiss_pairings(order, met, had_bye)
        planned = [Planned(number, index, pair) for index, pair in enumerate(pairs)]
        if bye is not None:
            planned.append(Planned(number, len(planned), (bye,), "bye"))
        return planned

    def expected_matches(self, entrants: int, num_seats: int, rounds: int) -> int:
        return (entrants // 2) * 2 * rounds


def swiss_points(context: PlanContext) -> dict[int, float]:
    """Points so far: game points from every pairing, a won pair (2 points) for a bye."""
    totals = {bot: 0.0 for bot in context.entries}
    for pairing in context.planned:
        if pairing.is_bye:
            totals[pairing.bots[0]] = totals.get(pairing.bots[0], 0.0) + float(context.num_seats)
            continue
        for bot, points in context.points.get((pairing.round, pairing.index), {}).items():
            totals[bot] = totals.get(bot, 0.0) + points
    return totals


def bracket_order(size: int) -> list[int]:
    """Seed positions in bracket order for a power-of-two field: 1 v size, and the top two meet last."""
    order = [0]
    while len(order) < size:
        total = len(order) * 2
        order = [x for seed in order for x in (seed, total - 1 - seed)]
    return order


class Knockout(Format):
    """A seeded single-elimination bracket."""

    name = "knockout"
    dynamic = True

    def check(self, entrants: int, num_seats: int, rounds: int) -> None:
        super().check(entrants, num_seats, rounds)
        _two_seats_only(self.name, num_seats)

    def plan(self, context: PlanContext) -> list[Planned]:
        ties = context.rounds  # seat-swapped pairs per tie
        if not context.planned:
            size = 1 << max(1, (len(context.entries) - 1).bit_length())
            slots = [context.entries[s] if s < len(context.entries) else None for s in bracket_order(size)]
            return self._round(0, slots, ties)
        number = context.next_round - 1
        this_round = [p for p in context.planned if p.round == number]
        winners: list[int | None] = []
        for start in range(0, len(this_round), ties):
            group = this_round[start:start + ties]
            winners.append(tie_winner(context, group))
        if len(winners) <= 1:
            return []
        return self._round(number + 1, winners, ties)

    @staticmethod
    def _round(number: int, slots: list[int | None], ties: int) -> list[Planned]:
        planned = []
        for tie in range(len(slots) // 2):
            a, b = slots[2 * tie], slots[2 * tie + 1]
            present = tuple(bot for bot in (a, b) if bot is not None)
            for repeat in range(ties):
                index = tie * ties + repeat
                label = "bye" if len(present) == 1 else f"tie {tie + 1}"
                planned.append(Planned(number, index, present, label))
        return planned

    def expected_matches(self, entrants: int, num_seats: int, rounds: int) -> int:
        return (entrants - 1) * 2 * rounds


def tie_winner(context: PlanContext, group: Sequence[Planned]) -> int:
    """Who goes through: more points, then more total game score, then the better seed."""
    bots = group[0].bots
    if len(bots) == 1:
        return bots[0]
    position = {bot: i for i, bot in enumerate(context.entries)}
    points = {bot: 0.0 for bot in bots}
    scores = {bot: 0.0 for bot in bots}
    for pairing in group:
        for bot, value in context.points.get((pairing.round, pairing.index), {}).items():
            points[bot] += value
        for bot, value in context.scores.get((pairing.round, pairing.index), {}).items():
            scores[bot] += value
    return min(bots, key=lambda bot: (-points[bot], -scores[bot], position.get(bot, 0)))


class Ladder(Format):
    """Open-ended: each round pairs every bot once, by match quality with a boost for new and idle bots."""

    name = "ladder"
    dynamic = True

    def check(self, entrants: int, num_seats: int, rounds: int) -> None:
        if entrants < num_seats:
            raise FormatError(f"a ladder needs at least {num_seats} bots, got {entrants}")

    def plan(self, context: PlanContext) -> list[Planned]:
        number = context.next_round
        system = context.system or RatingSystem()
        last_round: dict[int, int] = {}
        for pairing in context.planned:
            for bot in pairing.bots:
                last_round[bot] = max(last_round.get(bot, -1), pairing.round)
        tables = ladder_tables(context.entries, context.ratings, last_round, number, context.rng(number), system,
                               context.num_seats)
        return [Planned(number, index, table) for index, table in enumerate(tables)]

    def expected_matches(self, entrants: int, num_seats: int, rounds: int) -> None:
        return None


def ladder_weight(rating: tuple[float, float], idle_rounds: int, system: RatingSystem) -> float:
    """How eagerly a bot is scheduled: more for an uncertain rating (new bots) and for idle bots."""
    return 1.0 + 2.0 * rating[1] / system.sigma + 0.5 * min(idle_rounds, 20)


def ladder_tables(bots: Sequence[int], ratings: dict[int, tuple[float, float]], last_round: dict[int, int],
                  number: int, rng: random.Random, system: RatingSystem, seats: int = 2) -> list[tuple[int, ...]]:
    """One ladder round: tables of `seats` bots, each bot at most once.

    The first bot of a table is drawn with probability proportional to its weight; each further
    one in proportion to its weight times the TrueSkill match quality with those already seated.
    """
    available = sorted(set(bots))
    weight = {bot: ladder_weight(ratings.get(bot, system.initial), number - last_round.get(bot, -1) - 1, system)
              for bot in available}
    tables = []
    while len(available) >= seats:
        first = weighted_choice(available, [weight[b] for b in available], rng)
        table = [first]
        available.remove(first)
        while len(table) < seats:
            seated = [ratings.get(b, system.initial) for b in table]
            scores = [weight[b] * match_quality(system, seated, ratings.get(b, system.initial)) for b in available]
            chosen = weighted_choice(available, scores, rng)
            table.append(chosen)
            available.remove(chosen)
        tables.append(tuple(table))
    return tables


def match_quality(system: RatingSystem, seated: list[tuple[float, float]], candidate: tuple[float, float]) -> float:
    """TrueSkill's match quality (the chance of a draw) of a table with `candidate` added; never 0."""
    if len(seated) == 1:
        return max(system.quality(seated[0], candidate), 1e-6)
    import trueskill

    env = system.env
    groups = [(trueskill.Rating(*r),) for r in (*seated, candidate)]
    return max(float(env.quality(groups)), 1e-6)


def weighted_choice(items: Sequence[int], weights: Sequence[float], rng: random.Random) -> int:
    """One of `items`, drawn with probability proportional to its weight."""
    total = sum(weights)
    point = rng.random() * total
    for item, value in zip(items, weights):
        point -= value
        if point < 0:
            return item
    return items[-1]


FORMATS: dict[str, type[Format]] = {
    "round-robin": RoundRobin,
    "gauntlet": Gauntlet,
    "swiss": Swiss,
    "knockout": Knockout,
    "ladder": Ladder,
}


def get_format(name: str) -> Format:
    """The format called `name`; raises FormatError listing the known ones."""
    try:
        return FORMATS[name]()
    except KeyError:
        raise FormatError(f"unknown format {name!r}; formats: {', '.join(FORMATS)}") from None


def default_rounds(format_name: str, entrants: int) -> int:
    """A sensible number of rounds: 1 cycle, or log2(field) Swiss rounds; 1 pair per knockout tie."""
    if format_name == "swiss":
        return max(1, math.ceil(math.log2(max(entrants, 2))))
    return 1
