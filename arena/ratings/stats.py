"""Small statistics: Wilson score intervals, Student's t, intervals of a mean score, and Elo conversions."""

from __future__ import annotations

import math
from functools import lru_cache

Z95 = 1.959963984540054  # two-sided 95% normal quantile
ELO_PER_NAT = 400.0 / math.log(10.0)  # Elo points per unit of natural-log odds
EXACT_T_DEGREES = 100  # Student's t quantile from its exact distribution up to here, an expansion beyond
PRIOR_GAMES = 2  # pseudo-games at the reference variance in a mean score's variance


def wilson_interval(successes: float, trials: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion (draws may count as half successes); (0, 1) with no trials."""
    if trials <= 0:
        return (0.0, 1.0)
    p = min(max(successes / trials, 0.0), 1.0)
    z2 = z * z
    centre = (p + z2 / (2 * trials)) / (1 + z2 / trials)
    half = z / (1 + z2 / trials) * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials))
    return (max(0.0, centre - half), min(1.0, centre + half))


def mean_interval(total: float, squares: float, count: int, z: float = Z95) -> tuple[float, float, float]:
    """(mean, low, high) of `count` values from their sum and sum of squares: the normal 95% interval (a
    luck-corrected score is not a count of wins, so no Wilson here); (nan, nan, nan) with no values."""
    if count <= 0:
        return (math.nan, math.nan, math.nan)
    mean = total / count
    half = z * math.sqrt(sample_variance(total, squares, count) / count)
    return (mean, mean - half, mean + half)


def t95(degrees: int) -> float:
    """The two-sided 95% quantile of Student's t with `degrees` (at least 1) degrees of freedom: 12.706 at 1,
    2.228 at 10, Z95 as they grow. Up to EXACT_T_DEGREES it inverts the exact distribution by bisection; beyond,
    the Cornish-Fisher expansion (Abramowitz & Stegun 26.7.5), within 1e-9 there."""
    if degrees < 1:
        raise ValueError(f"Student's t needs at least 1 degree of freedom, not {degrees}")
    if degrees > EXACT_T_DEGREES:
        return _t95_expansion(degrees)
    return _t95_exact(degrees)


@lru_cache(maxsize=EXACT_T_DEGREES)
def _t95_exact(degrees: int) -> float:
    low, high = 0.0, 16.0  # 12.706 at one degree, the widest
    for _ in range(64):
        middle = (low + high) / 2
        low, high = (middle, high) if _t_central_mass(middle, degrees) < 0.95 else (low, middle)
    return (low + high) / 2


def _t_central_mass(t: float, degrees: int) -> float:
    """P(-t <= T <= t) for Student's T with integer `degrees`: the finite sums of Abramowitz & Stegun 26.7.3-4."""
    theta = math.atan(t / math.sqrt(degrees))
    cos_squared = math.cos(theta) ** 2
    odd = degrees % 2
    term, total = (math.cos(theta) if odd else 1.0), 0.0
    for power in range(odd, degrees - 1, 2):
        total += term
        term *= cos_squared * (power + 1) / (power + 2)
    return 2 / math.pi * (theta + math.sin(theta) * total) if odd else math.sin(theta) * total


def _t95_expansion(degrees: int) -> float:
    z = Z95
    terms = ((z ** 3 + z) / 4,
             (5 * z ** 5 + 16 * z ** 3 + 3 * z) / 96,
             (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / 384,
             (79 * z ** 9 + 776 * z ** 7 + 1482 * z ** 5 - 1920 * z ** 3 - 945 * z) / 92160)
    return z + sum(term / degrees ** (order + 1) for order, term in enumerate(terms))


def score_reference_variance(points: float, games: int) -> float:
    """The variance of one game's score (a win 1, a draw 1/2) at the score seen shrunk towards 1/2 (one win and one
    loss added: never 0 nor 1), as if no game were drawn: the most a game's score can vary about that mean."""
    shrunk = (points + 1) / (games + 2)
    return shrunk * (1 - shrunk)


def score_interval(total: float, squares: float, count: int, reference_variance: float
                   ) -> tuple[float, float | None, float | None]:
    """(mean, low, high) of a score per game from `count` games' values (their sum and sum of squares), each game's
    value a result less what chance gave it (arena.luck), which can leave [0, 1] where a mean score cannot.

    The interval is Student's t at count - 1 degrees of freedom, over a variance to which PRIOR_GAMES pseudo-games
    add `reference_variance` (score_reference_variance of the raw results), as arena.ratings.sprt does: from a few
    games whose values happen to be close the sample's own variance is near zero, and read alone it gives an
    interval far narrower than the games can tell (this matters at a few games and fades as they add up).
    Low and high are None under two games: one game's value says nothing of how far the next may fall.

    The mean and the bounds are clamped to [0, 1]. The score they estimate, a bot's expected points a game, lies
    in [0, 1] whatever the luck, so a mean outside is certainly further from it than the nearest end, and an
    interval covers it exactly when its part within [0, 1] does: clamping loses no coverage and claims no
    impossible value. (nan, None, None) with no games."""
    if count <= 0:
        return (math.nan, None, None)
    mean = total / count
    if count < 2:
        return (_clamped(mean), None, None)
    deviations = max(0.0, squares - total * mean)  # the sum of squared deviations from the mean
    variance = (deviations + PRIOR_GAMES * reference_variance) / (count - 1 + PRIOR_GAMES)
    half = t95(count - 1) * math.sqrt(variance / count)
    return (_clamped(mean), _clamped(mean - half), _clamped(mean + half))


def _clamped(score: float) -> float:
    return min(max(score, 0.0), 1.0)


def sample_variance(total: float, squares: float, count: int) -> float:
    """The unbiased variance of `count` (at least 1) values from their sum and sum of squares."""
    mean = total / count
    return max(0.0, squares / count - mean * mean) * count / max(1, count - 1)


def elo_to_score(elo: float) -> float:
    """Expected score of a player `elo` points stronger (logistic Elo)."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def score_to_elo(score: float) -> float:
    """Elo difference that gives this expected score (infinite at 0 and 1)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)
