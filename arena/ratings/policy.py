"""How stored results move ratings: the rating policy the store applies as it stores matches (and
`arena rerate` replays). One place for it: TrueSkill's update per match in order, a new version's
prior, and the tallies (a seat alone in first place wins, a shared first place draws, the rest lose)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from arena.ratings.trueskill_env import DEFAULT_SYSTEM, RatingSystem
from arena.referee.record import seat_outcome
from arena.store.rows import Pair, PlayedMatchLike, RatingChanges, RatingPoint, TallyDelta


def seed_rating(ancestors: Sequence[int], current: dict[int, Pair], initial: Pair) -> Pair:
    """A bot's rating before its first match in a pool: a new version of a bot starts from the mu of its
    nearest earlier version rated there, with the sigma of a newcomer (Halite's practice); else `initial`."""
    for ancestor in ancestors:
        if ancestor in current:
            return (current[ancestor][0], initial[1])
    return initial


def seed_newcomers(bots: Sequence[int], current: dict[int, Pair], lineage: dict[int, tuple[int, ...]],
                   initial: Pair) -> None:
    """Give each of `bots` not rated in `current` yet its `seed_rating` there, in order."""
    for bot in bots:
        if bot not in current:
            current[bot] = seed_rating(lineage.get(bot, ()), current, initial)


def _count_seat(tallies: dict[int, TallyDelta], bot: int, outcome: str, match_id: int, finished_at: datetime) -> None:
    """Add one seat's outcome ('win', 'draw' or 'loss': `seat_outcome`) of a match to its bot's tally."""
    tally = tallies.get(bot)
    if tally is None:
        tally = tallies[bot] = TallyDelta()
    tally.games += 1
    if outcome == "win":
        tally.wins += 1
    elif outcome == "draw":
        tally.draws += 1
    else:
        tally.losses += 1
    tally.last_match_id = match_id
    tally.last_played = finished_at


@dataclass(frozen=True)
class TrueSkillPolicy:
    """TrueSkill (`system`), match by match in the order stored."""

    system: RatingSystem = field(default=DEFAULT_SYSTEM)

    def apply(self, matches: Sequence[tuple[PlayedMatchLike, int]], current: dict[int, Pair],
              lineage: dict[int, tuple[int, ...]]) -> RatingChanges:
        ratings = dict(current)
        initial = self.system.initial
        rate = self.system.rate
        tallies: dict[int, TallyDelta] = {}
        history: list[RatingPoint] = []
        for played, match_id in matches:
            bot_ids, ranking, finished_at, pool = played.bot_ids, played.ranking, played.finished_at, played.pool
            seed_newcomers(bot_ids, ratings, lineage, initial)
            after = rate([ratings[bot] for bot in bot_ids], ranking)
            for seat, bot in enumerate(bot_ids):
                rating = ratings[bot] = after[seat]
                history.append(RatingPoint(pool, bot, match_id, rating[0], rating[1], finished_at))
                _count_seat(tallies, bot, seat_outcome(ranking, seat), match_id, finished_at)
        return RatingChanges(history, {bot: ratings[bot] for bot in tallies}, tallies)


DEFAULT_POLICY = TrueSkillPolicy()
