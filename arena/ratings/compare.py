"""Version against version: did v3 do better than v2, in which game modes, and by how much (`arena bot compare
NAME v2 v3`, GET /api/bots/{name}/compare).

Each mode is judged on the opponents both versions met, so a version that faced an easier or a harder field
does not pass that off as progress: over those games, each version's score (a win 1, a draw 1/2) with its
Wilson interval and its score less its luck (arena.luck: what the dice and draws gave it) with a normal
interval, then the difference of the two (B less A) with its interval, which says "better", "worse" or
"not clear yet"; while it is not clear, about how many more games each would need against those opponents
for a difference of the size seen to be clear. The versions' ratings and their own games against each other
are shown beside, for what they are (a rating mixes in every opponent).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from arena.games.registry import did_you_mean
from arena.ratings.stats import Z95, mean_interval, sample_variance, wilson_interval
from arena.store import BotRow, RatingRow, Store
from arena.store.rows import PairCount


class CompareError(ValueError):
    """No such bot or version; the message names the versions there are."""


class Verdict(StrEnum):
    """What the difference B less A says (its value is the word the JSON carries)."""

    BETTER = "better"
    WORSE = "worse"
    NOT_CLEAR = "not clear yet"
    NO_COMMON_OPPONENTS = "no common opponents"


class Measure(StrEnum):
    """The figure a verdict was made on."""

    SCORE_LESS_LUCK = "score less luck"
    SCORE = "score"


@dataclass(frozen=True)
class Interval:
    """A figure with its 95% interval, rounded to 4 places."""

    value: float
    low: float
    high: float

    @classmethod
    def of(cls, value: float, low: float, high: float) -> Interval | None:
        """The interval, rounded; None where there is none (no games: nan)."""
        if math.isnan(value):
            return None
        return cls(round(value, 4), round(low, 4), round(high, 4))

    @staticmethod
    def json(interval: Interval | None, name: str) -> dict[str, float | None]:
        """{name, name_low, name_high}, each None for no interval."""
        if interval is None:
            return {name: None, f"{name}_low": None, f"{name}_high": None}
        return {name: interval.value, f"{name}_low": interval.low, f"{name}_high": interval.high}


@dataclass(frozen=True)
class VersionSide:
    """One version's results against the common opponents in one mode."""

    version: str
    games: int
    score: Interval | None  # a win 1, a draw 1/2, per game (Wilson)
    corrected: Interval | None  # the score less luck, over the games whose luck was measured (normal)
    mu: float | None  # its rating in the mode (all opponents)
    sigma: float | None

    def to_json(self) -> dict[str, Any]:
        """The side as `--json` and the web API print it (flat: score, score_low, score_high, ...)."""
        return {"version": self.version, "games": self.games, **Interval.json(self.score, "score"),
                **Interval.json(self.corrected, "corrected"), "mu": self.mu, "sigma": self.sigma}


@dataclass(frozen=True)
class ModeComparison:
    """Two versions in one mode: against the same opponents, and the difference B less A."""

    pool: str
    opponents: list[str]
    a: VersionSide
    b: VersionSide
    difference: Interval | None  # of the scores less luck where both have them, else of the scores
    measure: Measure
    verdict: Verdict
    more_games: int | None  # while not clear: about how many more games each, for a difference this size
    against_each_other: dict[str, Any] | None  # A's games against B: wins, draws, losses

    def measured(self, side: VersionSide) -> Interval | None:
        """A side's figure the verdict was made on, with its interval: its score less luck, or its score."""
        return side.corrected if self.measure is Measure.SCORE_LESS_LUCK else side.score

    def to_json(self) -> dict[str, Any]:
        """The mode as `--json` and the web API print it."""
        return {"pool": self.pool, "opponents": self.opponents, "a": self.a.to_json(), "b": self.b.to_json(),
                **Interval.json(self.difference, "difference"), "measure": self.measure, "verdict": self.verdict,
                "more_games": self.more_games, "against_each_other": self.against_each_other}


def find_versions(store: Store, name: str, first: str, second: str) -> tuple[BotRow, BotRow]:
    """Two versions of the bot `name`, each by its label ('3' or 'v3') or a hash prefix (4 or more)."""
    versions = store.bots.find(name)
    if not versions:
        known = {bot.name for bot in store.bots.find()}
        raise CompareError(f"no bot named {name!r}{did_you_mean(name, known)} (see `arena bot list`)")

    return _one_version(versions, name, first), _one_version(versions, name, second)


def _one_version(versions: list[BotRow], name: str, wanted: str) -> BotRow:
    """The one of the bot `name`'s `versions` that `wanted` names (its label, 'v' and label, or a hash prefix)."""
    label = wanted[1:] if wanted[:1] in ("v", "V") and wanted[1:] else wanted
    found = [bot for bot in versions if bot.version in (wanted, label)] or [
        bot for bot in versions if len(wanted) >= 4 and bot.artifact_hash.startswith(wanted)]
    if len(found) != 1:
        raise _no_single_version(versions, name, wanted, found)
    return found[0]


def _no_single_version(versions: list[BotRow], name: str, wanted: str, found: list[BotRow]) -> CompareError:
    """The error for a version `wanted` that names none, or more than one, of the bot's versions."""
    listed = ", ".join(f"v{bot.version} ({bot.artifact_hash[:12]})" for bot in versions)
    return CompareError(f"{'no' if not found else 'more than one'} version {wanted!r} of {name}; its "
                        f"versions: {listed}" + ("; give a hash prefix instead" if found else ""))


def compare_versions(store: Store, a: BotRow, b: BotRow) -> list[ModeComparison]:
    """A and B compared in every mode either has played (see the module's docstring)."""
    rated_a = {row.pool: row for row in store.ratings.of_bot(a.id)}
    rated_b = {row.pool: row for row in store.ratings.of_bot(b.id)}
    return [_compared_in(store, pool, a, b, rated_a.get(pool), rated_b.get(pool))
            for pool in sorted(set(rated_a) | set(rated_b))]


def _compared_in(store: Store, pool: str, a: BotRow, b: BotRow, rating_a: RatingRow | None,
                 rating_b: RatingRow | None) -> ModeComparison:
    """A and B (with their ratings in `pool`, if any) compared in that one mode, on their common opponents there."""
    pairs_a = {pair.b: pair for pair in store.matches.pair_counts(pool, a.id)}
    pairs_b = {pair.b: pair for pair in store.matches.pair_counts(pool, b.id)}
    common = sorted((set(pairs_a) & set(pairs_b)) - {a.id, b.id})
    names = store.bots.names(common)
    side_a = _side(a, [pairs_a[o] for o in common], rating_a)
    side_b = _side(b, [pairs_b[o] for o in common], rating_b)
    direct = pairs_a.get(b.id)
    return _judged(pool, sorted(names.get(o, str(o)) for o in common), side_a, side_b,
                   [pairs_a[o] for o in common], [pairs_b[o] for o in common],
                   None if direct is None else {"games": direct.games, "wins": direct.wins,
                                                "draws": direct.draws, "losses": direct.losses})


def _side(bot: BotRow, pairs: list[PairCount], rating: Any) -> VersionSide:
    games = sum(pair.games for pair in pairs)
    points = sum(pair.points for pair in pairs)
    score = Interval.of(points / games, *wilson_interval(points, games)) if games else None
    corrected = Interval.of(*mean_interval(sum(p.corrected for p in pairs), sum(p.corrected_squares for p in pairs),
                                           sum(pair.luck_games for pair in pairs)))
    return VersionSide(bot.version, games, score, corrected, _round(rating.mu if rating else None),
                       _round(rating.sigma if rating else None))


def _judged(pool: str, opponents: list[str], a: VersionSide, b: VersionSide, pairs_a: list[PairCount],
            pairs_b: list[PairCount], direct: dict[str, Any] | None) -> ModeComparison:
    if not a.games or not b.games:
        return ModeComparison(pool, opponents, a, b, None, Measure.SCORE, Verdict.NO_COMMON_OPPONENTS, None, direct)
    use_luck = all(sum(p.luck_games for p in pairs) >= 2 for pairs in (pairs_a, pairs_b))
    moments = [_moments(pairs, use_luck) for pairs in (pairs_a, pairs_b)]
    (mean_a, var_a, n_a), (mean_b, var_b, n_b) = moments
    difference = mean_b - mean_a
    spread = math.sqrt(var_a / n_a + var_b / n_b)
    low, high = difference - Z95 * spread, difference + Z95 * spread
    verdict = Verdict.BETTER if low > 0 else Verdict.WORSE if high < 0 else Verdict.NOT_CLEAR
    more = _more_games(verdict, difference, moments)
    return ModeComparison(pool, opponents, a, b, Interval.of(difference, low, high),
                          Measure.SCORE_LESS_LUCK if use_luck else Measure.SCORE, verdict, more, direct)


def _more_games(verdict: Verdict, difference: float, moments: list[tuple[float, float, int]]) -> int | None:
    """About how many more games each needs for a difference this size to be clear; None unless not clear yet."""
    (_mean_a, var_a, n_a), (_mean_b, var_b, n_b) = moments
    if verdict is Verdict.NOT_CLEAR and abs(difference) > 1e-9:
        needed = 2 * (Z95 * math.sqrt((var_a + var_b) / 2) / abs(difference)) ** 2  # each, for this difference
        return max(1, math.ceil(needed - min(n_a, n_b)))
    return None


def _moments(pairs: list[PairCount], use_luck: bool) -> tuple[float, float, int]:
    """(mean, variance of one game, games) of the score less luck, or of the score."""
    if use_luck:
        count = sum(p.luck_games for p in pairs)
        total, squares = sum(p.corrected for p in pairs), sum(p.corrected_squares for p in pairs)
    else:
        count = sum(p.games for p in pairs)
        total = sum(p.points for p in pairs)
        squares = sum(p.wins + 0.25 * p.draws for p in pairs)
    return total / count, max(sample_variance(total, squares, count), 1e-6), count


def _round(value: float | None) -> float | None:
    return None if value is None or math.isnan(value) else round(value, 4)


def comparison_json(name: str, a: BotRow, b: BotRow, modes: list[ModeComparison]) -> dict[str, Any]:
    """The comparison as `arena bot compare --json` and GET /api/bots/{name}/compare print it."""
    return {"bot": name, "a": a.version, "b": b.version, "modes": [mode.to_json() for mode in modes]}
