"""Small statistics: Wilson score intervals and Elo conversions."""

from __future__ import annotations

import math

Z95 = 1.959963984540054  # two-sided 95% normal quantile
ELO_PER_NAT = 400.0 / math.log(10.0)  # Elo points per unit of natural-log odds


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
