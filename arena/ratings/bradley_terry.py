"""Bradley-Terry maximum likelihood over all stored results, with 95% intervals.

TrueSkill forgets: its sigma shrinks and its dynamics weigh recent games. This batch fit over every
stored result is the cross-check. Model: P(i beats j) = p_i / (p_i + p_j); a draw counts as half a
win each way. Fitted with Hunter's MM (Zermelo) iterations; intervals come from the observed
information matrix of the log-strengths, with the field's mean log-strength fixed at zero (the
matrix's pseudo-inverse). Ratings are reported in Elo: 400 / ln 10 times the log-strength, so the
field averages 0.

A bot that never lost (or never won) has no finite maximum; `prior` adds that many virtual draws
against an average opponent per bot to keep every estimate finite (0 gives the plain MLE).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Hashable, Iterable

from arena.ratings.stats import ELO_PER_NAT, Z95

Comparison = tuple[Hashable, Hashable, float, float, float]  # (a, b, a's wins, draws, a's losses)


@dataclass(frozen=True)
class StrengthEstimate:
    """One player's Bradley-Terry rating: log-strength, its standard error, and Elo with a 95% interval."""

    player: Hashable
    theta: float
    stderr: float
    games: float

    @property
    def elo(self) -> float:
        return ELO_PER_NAT * self.theta

    @property
    def elo_interval(self) -> tuple[float, float]:
        half = Z95 * ELO_PER_NAT * self.stderr
        return (self.elo - half, self.elo + half)


class ConvergenceError(RuntimeError):
    """The MM iterations did not settle (a disconnected field without a prior)."""


def fit(comparisons: Iterable[Comparison], prior: float = 0.0, tolerance: float = 1e-10,
        max_iterations: int = 100_000) -> list[StrengthEstimate]:
    """Maximum-likelihood strengths of every player in `comparisons`, ordered by player appearance."""
    players, games, wins = _tally(comparisons)
    n = len(players)
    if n == 0:
        return []
    opponents: list[list[tuple[int, float]]] = [[] for _ in range(n)]
    for (i, j), count in games.items():
        opponents[i].append((j, count))
        opponents[j].append((i, count))
    played = [sum(count for _, count in row) for row in opponents]
    strength = _strengths(wins, opponents, prior, tolerance, max_iterations)
    theta = [math.log(max(s, 1e-300)) for s in strength]
    mean = sum(theta) / n
    theta = [t - mean for t in theta]
    covariance = _centred_covariance(n, strength, games, prior)
    return [StrengthEstimate(players[i], theta[i], math.sqrt(max(covariance[i][i], 0.0)), played[i])
            for i in range(n)]


def _tally(comparisons: Iterable[Comparison]) -> tuple[list[Hashable], dict[tuple[int, int], float], list[float]]:
    """(the players in order of appearance, games per pair of their indices (lower first), each one's wins
    counting a draw as half)."""
    players: list[Hashable] = []
    index: dict[Hashable, int] = {}
    games: dict[tuple[int, int], float] = {}
    wins: list[float] = []

    def slot(player: Hashable) -> int:
        if player not in index:
            index[player] = len(players)
            players.append(player)
            wins.append(0.0)
        return index[player]

    for a, b, won, drawn, lost in comparisons:
        i, j = slot(a), slot(b)
        if i == j:
            continue
        total = won + drawn + lost
        if total <= 0:
            continue
        key = (min(i, j), max(i, j))
        games[key] = games.get(key, 0.0) + total
        wins[i] += won + drawn / 2
        wins[j] += lost + drawn / 2
    return players, games, wins


def _strengths(wins: list[float], opponents: list[list[tuple[int, float]]], prior: float, tolerance: float,
               max_iterations: int) -> list[float]:
    """The strengths by Hunter's MM iterations, until no log-strength moves by `tolerance`."""
    n = len(wins)
    strength = [1.0] * n
    for _ in range(max_iterations):
        updated = []
        for i in range(n):
            numerator = wins[i] + prior / 2
            denominator = sum(count / (strength[i] + strength[j]) for j, count in opponents[i])
            denominator += prior / (strength[i] + 1.0)
            updated.append(numerator / denominator if denominator > 0 else strength[i])
        if prior == 0:  # the likelihood fixes strengths only up to a common factor
            scale = math.exp(-sum(math.log(max(s, 1e-300)) for s in updated) / n)
            updated = [s * scale for s in updated]
        change = max(abs(math.log(max(new, 1e-300)) - math.log(max(old, 1e-300)))
                     for new, old in zip(updated, strength))
        strength = updated
        if change < tolerance:
            return strength
    raise ConvergenceError(f"Bradley-Terry did not converge in {max_iterations} iterations")


def _centred_covariance(n: int, strength: list[float], games: dict[tuple[int, int], float],
                        prior: float) -> list[list[float]]:
    """Covariance of the mean-centred log-strengths: the pseudo-inverse of the observed information."""
    info = _observed_information(n, strength, games, prior)
    # For a Laplacian-like L (rows summing to 0, connected), pinv(L) = inv(L + J/n) - J/n, J all ones.
    # With a prior the matrix is invertible; centring its inverse gives the same kind of answer.
    shift = 1.0 / n
    augmented = [[info[i][j] + (shift if prior == 0 else 0.0) for j in range(n)] for i in range(n)]
    inverse = _invert(augmented)
    if prior == 0:
        return [[inverse[i][j] - shift for j in range(n)] for i in range(n)]
    return _double_centred(inverse)


def _observed_information(n: int, strength: list[float], games: dict[tuple[int, int], float],
                          prior: float) -> list[list[float]]:
    """The observed information matrix of the log-strengths, the prior's virtual draws included."""
    info = [[0.0] * n for _ in range(n)]
    for (i, j), count in games.items():
        weight = count * strength[i] * strength[j] / (strength[i] + strength[j]) ** 2
        info[i][i] += weight
        info[j][j] += weight
        info[i][j] -= weight
        info[j][i] -= weight
    if prior > 0:
        for i in range(n):
            info[i][i] += prior * strength[i] / (strength[i] + 1.0) ** 2
    return info


def _double_centred(matrix: list[list[float]]) -> list[list[float]]:
    """The symmetric square `matrix` centred both ways: each entry less its row's and its column's mean, plus the
    overall mean (for a symmetric matrix the column means are the row means)."""
    n = len(matrix)
    row_means = [sum(row) / n for row in matrix]
    total_mean = sum(row_means) / n
    return [[matrix[i][j] - row_means[i] - row_means[j] + total_mean for j in range(n)] for i in range(n)]


def _invert(matrix: list[list[float]]) -> list[list[float]]:
    """Gauss-Jordan inverse with partial pivoting; a singular matrix gives infinite variances."""
    n = len(matrix)
    work = _augmented_with_identity(matrix)
    for column in range(n):
        pivot = max(range(column, n), key=lambda r: abs(work[r][column]))
        if abs(work[pivot][column]) < 1e-12:
            return _infinite_variances(n)
        work[column], work[pivot] = work[pivot], work[column]
        scale = work[column][column]
        work[column] = [value / scale for value in work[column]]
        _eliminate_column(work, column)
    return [row[n:] for row in work]


def _augmented_with_identity(matrix: list[list[float]]) -> list[list[float]]:
    """Each row of the square `matrix` followed by the same row of the identity: [matrix | I]."""
    n = len(matrix)
    return [row[:] + [1.0 if i == j else 0.0 for j in range(n)] for i, row in enumerate(matrix)]


def _infinite_variances(n: int) -> list[list[float]]:
    """The answer for a singular matrix: infinity on the diagonal, 0 elsewhere."""
    return [[math.inf if i == j else 0.0 for j in range(n)] for i in range(n)]


def _eliminate_column(work: list[list[float]], column: int) -> None:
    """Subtract the (normalised) pivot row from every other row so that `column` is 0 in all of them."""
    pivot_row = work[column]
    for row in range(len(work)):
        if row != column and work[row][column] != 0.0:
            factor = work[row][column]
            work[row] = [a - factor * b for a, b in zip(work[row], pivot_row)]
