"""Sequential probability ratio test: "is A stronger than B?", the way fishtest and fastchess ask it.

Hypotheses are in logistic Elo: H0 says A is `elo0` stronger than B, H1 says `elo1`. The test is
fishtest's generalized SPRT (GSPRT): outcomes are a multinomial; under each hypothesis the outcome
distribution is the maximum-likelihood one whose expected score equals that hypothesis' score, and
the log-likelihood ratio of the two is compared with Wald's bounds log(beta / (1 - alpha)) and
log((1 - beta) / alpha). Seat-swapped pairs are scored as a pair: the pentanomial model (0, 1/2, 1,
3/2 or 2 points of 2), which fishtest uses because it takes the pairs' correlation into account;
single games use the trinomial model (loss, draw, win); luck-corrected scores (arena.luck), which are
not a few outcomes, the GSPRT's normal approximation. Empty bins get 1e-3 of a
count, as in fishtest, so the estimate stays inside the simplex.

No test decides before `min_pairs` seat-swapped pairs (default 30; single games count half a pair). The normal
test estimates its variance from the scores themselves, and from a few pairs that estimate can be nearly zero:
two equal pair scores once made it stop at 4 games. So it also takes PRIOR_PAIRS pseudo-pairs at a reference
variance (the raw pairs' pentanomial variance, where the caller has it): the variance it uses is
(n s^2 + k reference) / (n + k), which matters at a few pairs and fades as they add up. bench/sprt_check.py
measures the error rates that result, on resampled real pairs (docs/fair-play.md has the figures).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from arena.ratings.stats import Z95, elo_to_score, score_to_elo

PENTANOMIAL_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)  # a pair's points out of 2, as a fraction
TRINOMIAL_SCORES = (0.0, 0.5, 1.0)
EMPTY_BIN = 1e-3
MIN_PAIRS = 30  # no decision before this many seat-swapped pairs
PRIOR_PAIRS = 2  # pseudo-pairs at the reference variance in the normal test's variance
VARIANCE_FLOOR = 1e-6  # the normal test's variance, at least (scores all equal and no reference)


def wald_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """(lower, upper) LLR bounds: accept H0 at or below the lower, H1 at or above the upper."""
    return (math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha))


def constrained_mle(probabilities: Sequence[float], scores: Sequence[float], target: float) -> list[float]:
    """The distribution closest to `probabilities` (maximum likelihood) whose expected score is `target`.

    It is q_i = p_i / (1 + theta (a_i - target)), theta found by bisection on the mean constraint.
    """
    low_score, high_score = min(scores), max(scores)
    if not low_score < target < high_score:
        raise ValueError(f"target score {target} must lie strictly between {low_score} and {high_score}")
    shifts = [a - target for a in scores]

    def excess(theta: float) -> float:  # decreasing in theta; zero at the solution
        return sum(p * d / (1.0 + theta * d) for p, d in zip(probabilities, shifts))

    low = -1.0 / (high_score - target) * (1 - 1e-12)
    high = 1.0 / (target - low_score) * (1 - 1e-12)
    for _ in range(200):
        middle = (low + high) / 2
        if excess(middle) > 0:
            low = middle
        else:
            high = middle
    theta = (low + high) / 2
    q = [p / (1.0 + theta * d) for p, d in zip(probabilities, shifts)]
    total = sum(q)
    return [value / total for value in q]


def log_likelihood_ratio(counts: Sequence[float], scores: Sequence[float], elo0: float, elo1: float) -> float:
    """The GSPRT log-likelihood ratio of H1 (elo1) against H0 (elo0) for outcome counts with these scores."""
    total = sum(counts)
    if total <= 0:
        return 0.0
    p = [count / total for count in counts]
    q0 = constrained_mle(p, scores, elo_to_score(elo0))
    q1 = constrained_mle(p, scores, elo_to_score(elo1))
    return total * sum(pi * (math.log(b) - math.log(a)) for pi, a, b in zip(p, q0, q1) if pi > 0)


@dataclass(frozen=True)
class SprtResult:
    """Where the test stands: the LLR against its bounds, the verdict once reached, and an Elo estimate."""

    llr: float
    lower: float
    upper: float
    model: str  # "pentanomial" or "trinomial"
    counts: tuple[float, ...]
    elo: float
    elo_interval: tuple[float, float]
    pairs: float = 0.0  # seat-swapped pairs seen (single games count half)
    min_pairs: int = 0  # no decision below this many

    @property
    def decision(self) -> str | None:
        """'H1' (A is at least elo1 stronger), 'H0' (at most elo0), or None while undecided (and always before
        `min_pairs` pairs)."""
        if self.pairs < self.min_pairs:
            return None
        if self.llr >= self.upper:
            return "H1"
        if self.llr <= self.lower:
            return "H0"
        return None


@dataclass(frozen=True)
class Sprt:
    """A test set-up: the two hypotheses in logistic Elo, the error rates, and the pairs before any decision."""

    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05
    min_pairs: int = MIN_PAIRS

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise ValueError(f"elo0 ({self.elo0}) must be below elo1 ({self.elo1})")
        if not (0 < self.alpha < 0.5 and 0 < self.beta < 0.5):
            raise ValueError("alpha and beta must lie between 0 and 0.5")
        if self.min_pairs < 1:
            raise ValueError(f"min_pairs ({self.min_pairs}) must be at least 1")

    def pentanomial(self, counts: Sequence[int]) -> SprtResult:
        """Test from pair counts: how many seat-swapped pairs gave A 0, 1/2, 1, 3/2 and 2 points."""
        return self._result(counts, PENTANOMIAL_SCORES, "pentanomial", sum(counts))

    def trinomial(self, losses: int, draws: int, wins: int) -> SprtResult:
        """Test from single games (A's losses, draws, wins)."""
        return self._result((losses, draws, wins), TRINOMIAL_SCORES, "trinomial", (losses + draws + wins) / 2)

    def normal(self, scores: Sequence[float], reference_variance: float | None = None) -> SprtResult:
        """Test from scores that are not counts of a few outcomes (luck-corrected pair scores, as a fraction of the
        pair's points): the GSPRT's normal approximation, LLR = n (s1 - s0) (2 mean - s0 - s1) / (2 variance).
        `reference_variance` (the raw pairs' pentanomial variance) is what PRIOR_PAIRS pseudo-pairs add to it."""
        n = len(scores)
        mean = sum(scores) / n if n else 0.0
        return self.normal_moments(n, mean, sum((x - mean) ** 2 for x in scores) / n if n else 0.0,
                                   reference_variance)

    def normal_moments(self, n: int, mean: float, variance: float,
                       reference_variance: float | None = None) -> SprtResult:
        """`normal` from the scores' count, mean and (population) variance: what a caller that keeps running sums
        uses (bench/sprt_check.py)."""
        lower, upper = wald_bounds(self.alpha, self.beta)
        if n < 2:
            return SprtResult(0.0, lower, upper, "normal", (float(n),), 0.0, (-math.inf, math.inf), n, self.min_pairs)
        variance = prior_variance(n, variance, reference_variance)
        s0, s1 = elo_to_score(self.elo0), elo_to_score(self.elo1)
        llr = n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * variance)
        half = Z95 * math.sqrt(variance / n)
        clip = lambda score: min(1 - 1e-6, max(1e-6, score))  # noqa: E731  (an adjusted score may leave [0, 1])
        return SprtResult(llr, lower, upper, "normal", (float(n),), score_to_elo(clip(mean)),
                          (score_to_elo(clip(mean - half)), score_to_elo(clip(mean + half))), n, self.min_pairs)

    def _result(self, counts: Sequence[float], scores: Sequence[float], model: str, pairs: float) -> SprtResult:
        lower, upper = wald_bounds(self.alpha, self.beta)
        total = sum(counts)
        if total <= 0:
            return SprtResult(0.0, lower, upper, model, tuple(counts), 0.0, (-math.inf, math.inf), 0, self.min_pairs)
        regular = [max(float(count), EMPTY_BIN) for count in counts]
        llr = log_likelihood_ratio(regular, scores, self.elo0, self.elo1)
        # (from the regularised counts, as the LLR: a perfect score still gets a finite estimate and interval)
        mean = sum(c * a for c, a in zip(regular, scores)) / sum(regular)
        variance = sum(c * (a - mean) ** 2 for c, a in zip(regular, scores)) / sum(regular)
        half = Z95 * math.sqrt(variance / total)
        interval = (score_to_elo(mean - half), score_to_elo(mean + half))
        return SprtResult(llr, lower, upper, model, tuple(counts), score_to_elo(mean), interval, pairs,
                          self.min_pairs)


def prior_variance(n: int, variance: float, reference_variance: float | None) -> float:
    """The normal test's variance from n scores' own: PRIOR_PAIRS pseudo-pairs at the reference variance added
    (none without one), and never below VARIANCE_FLOOR."""
    if reference_variance is not None:
        variance = (n * variance + PRIOR_PAIRS * reference_variance) / (n + PRIOR_PAIRS)
    return max(variance, VARIANCE_FLOOR)


def pentanomial_variance(counts: Sequence[float]) -> float:
    """The variance of a pair's score (a fraction of its 2 points) over these pentanomial counts, empty bins
    regularised as the test does (so it is never zero): the normal test's reference."""
    regular = [max(float(count), EMPTY_BIN) for count in counts]
    mean = sum(c * a for c, a in zip(regular, PENTANOMIAL_SCORES)) / sum(regular)
    return sum(c * (a - mean) ** 2 for c, a in zip(regular, PENTANOMIAL_SCORES)) / sum(regular)


def pair_counts(pair_points: Sequence[float]) -> list[int]:
    """Pentanomial counts from A's points per seat-swapped pair (each 0, 0.5, 1, 1.5 or 2)."""
    counts = [0] * 5
    for points in pair_points:
        counts[min(4, max(0, round(points * 2)))] += 1
    return counts
